// `mmdiff cluster`: a campaign as a Slurm job array (submit, resubmit) and its shards' progress
// (status).
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "src/campaign/slurm_campaign.h"
#include "src/cli/command_registry.h"
#include "src/cli/commands.h"
#include "src/support/files.h"
#include "src/support/utf8.h"

namespace mmdiff::cli {
namespace {

namespace fs = std::filesystem;

constexpr const char* kSubmitDescription =
    "Submit a fuzz campaign to Slurm as one job array of --tasks tasks: task i runs `mmdiff fuzz "
    "--shard auto` (shard i of N) with the fuzz options given after `--` into OUT/shard-<i>/, with "
    "Inductor's cache on node-local disk; a second job, after every task has ended "
    "(--dependency=afterany), prints the shards' progress and merges them with `mmdiff triage` "
    "into OUT/triage/. Together the shards check exactly the cases one machine would with the same "
    "--seed and --cases; a --time budget is each task's. Tasks are requeueable: Slurm signals each "
    "one --warning seconds before its time limit, the campaign finishes the cases under way, saves "
    "its summary and the task requeues itself; a task requeued or preempted resumes its shard "
    "(fuzz --resume). OUT must be on a file system every node sees, and so must this mmdiff "
    "(the tasks run this executable); relative paths in the fuzz options are resolved in the "
    "folder you submit from, where Slurm runs the tasks. Prints the job ids and where the results "
    "go. The batch scripts stay in OUT/slurm/ (task.sbatch, triage.sbatch) with the tasks' logs.";

constexpr const char* kFooter =
    "Example: mmdiff cluster submit --tasks 8 --out /shared/camp --partition gpu --gres gpu:1 "
    "--cpus-per-task 8 --time-limit 8:00:00 -- --seed 100001 --cases 20000 --policy gpu.json\n"
    "Watch it with `squeue -j <ids>` and `mmdiff cluster status OUT`; `mmdiff cluster resubmit "
    "OUT` resumes every shard after a cancel or a time limit; `mmdiff triage OUT` merges what is "
    "there at any time.\n"
    "Exit codes: 0 submitted (status: every shard's budget is spent); 1 status: some shard's "
    "budget is not spent; 2 bad usage, fuzz options that `mmdiff fuzz` would reject, an OUT that "
    "already holds a campaign (submit) or none (resubmit, status), an unreadable summary; 3 sbatch "
    "cannot be run or refused the job, OUT cannot be written.";

struct SubmitArgs {
  SlurmCampaign campaign;
  std::string out;
  bool dry_run = false;
};

// Runs argv (PATH searched) with stdin from /dev/null; returns its exit code (127: not found) and
// stdout; its stderr is ours.
int RunCapture(const std::vector<std::string>& argv, std::string* out) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return 127;
  pid_t pid = fork();
  if (pid < 0) return 127;
  if (pid == 0) {
    dup2(fds[1], 1);
    int null = open("/dev/null", O_RDONLY);
    if (null >= 0) dup2(null, 0);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execvp(args[0], args.data());
    _exit(127);
  }
  close(fds[1]);
  char buf[4096];
  ssize_t n;
  while ((n = read(fds[0], buf, sizeof buf)) > 0 || (n < 0 && errno == EINTR))
    if (n > 0 && out->size() < (1u << 20)) out->append(buf, static_cast<size_t>(n));
  close(fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// `sbatch --parsable [options] script` -> the job id; prints why on failure.
Result<int64_t> Sbatch(std::vector<std::string> options, const std::string& script,
                       const std::string& argument = "") {
  std::vector<std::string> argv = {"sbatch", "--parsable"};
  argv.insert(argv.end(), options.begin(), options.end());
  argv.push_back(script);
  if (!argument.empty()) argv.push_back(argument);
  std::string out;
  int code = RunCapture(argv, &out);
  if (code == 127) return Status::Error("cannot run sbatch (not on PATH: is this a Slurm node?)");
  if (code != 0)
    return Status::Error("sbatch refused " + script + " (exit " + std::to_string(code) +
                         "; its message is above)");
  return ParseSbatchJobId(out);
}

// Checks the tasks' fuzz options as `mmdiff fuzz` itself parses them, without running anything.
Status CheckFuzzArgs(const std::vector<std::string>& args) {
  for (const auto& r : CommandRegistry()) {
    if (r.name != "fuzz") continue;
    CLI::App scratch;
    CLI::App* fuzz = r.add(scratch).first;
    std::vector<std::string> reversed = {"fuzz"};
    reversed.insert(reversed.end(), args.begin(), args.end());
    std::reverse(reversed.begin(), reversed.end());
    try {
      scratch.parse(reversed);
    } catch (const CLI::ParseError& e) {
      return Status::Error("the fuzz options after `--`: " + std::string(e.what()));
    }
    for (const char* own : {"--out", "--shard", "--resume", "--inductor-cache"})
      if (fuzz->get_option(own)->count() > 0)
        return Status::Error(std::string("the fuzz options after `--` must not give ") + own +
                             ": each task gets its own");
    return Status::Ok();
  }
  return Status::Error("no fuzz command in this build");
}

std::string Now() {
  std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

// Submits OUT/slurm/task.sbatch, then triage.sbatch after it; records and prints the job ids.
int SubmitScripts(const std::string& out, int64_t tasks) {
  const std::string slurm = (fs::path(out) / "slurm").string();
  auto array = Sbatch({}, slurm + "/task.sbatch");
  if (!array.ok()) {
    std::cerr << "mmdiff cluster: " << array.error() << "\n";
    return kExitEnvironment;
  }
  std::string after = std::to_string(array.value());
  auto triage = Sbatch({"--dependency=afterany:" + after, "--kill-on-invalid-dep=yes"},
                       slurm + "/triage.sbatch", after);
  if (!triage.ok()) {
    std::cerr << "mmdiff cluster: the array job " << after << " is submitted, but not its triage "
              << "job: " << triage.error() << "\n(run `mmdiff triage " << out << " --out " << out
              << "/triage` when the tasks have ended)\n";
    return kExitEnvironment;
  }
  std::ofstream(slurm + "/submissions.log", std::ios::app)
      << Now() << " array job " << after << ", triage job " << triage.value() << "\n";
  std::cout << "submitted array job " << after << " (" << tasks << " tasks: shards 0/" << tasks
            << " to " << tasks - 1 << "/" << tasks << " into " << out << "/shard-<i>/)\n"
            << "and triage job " << triage.value() << " (after every task has ended: " << out
            << "/triage/triage.md)\n"
            << "watch: squeue -j " << after << "," << triage.value() << "; mmdiff cluster status "
            << out << "\nlogs: " << out << "/slurm/task-<i>.log, " << out << "/slurm/triage.log\n";
  return kExitOk;
}

int Submit(SubmitArgs a) {
  SlurmCampaign& c = a.campaign;
  std::error_code ec;
  c.out_dir = fs::weakly_canonical(fs::absolute(a.out), ec).string();
  c.mmdiff = fs::read_symlink("/proc/self/exe", ec).string();
  if (ec) {
    std::cerr << "mmdiff cluster submit: cannot tell where this mmdiff is: " << ec.message()
              << "\n";
    return kExitEnvironment;
  }
  if (Status s = CheckSlurmCampaign(c); !s.ok()) {
    // The message quotes the refused value, control characters and all.
    std::cerr << "mmdiff cluster submit: " << TerminalLine(s.message()) << "\n";
    return kExitUsage;
  }
  if (Status s = CheckFuzzArgs(c.fuzz_args); !s.ok()) {
    std::cerr << "mmdiff cluster submit: " << s.message() << "\n";
    return kExitUsage;
  }
  const fs::path slurm = fs::path(c.out_dir) / "slurm";
  if (fs::exists(slurm / "task.sbatch") || fs::exists(fs::path(c.out_dir) / "shard-0") ||
      fs::exists(fs::path(c.out_dir) / "summary.json")) {
    std::cerr << "mmdiff cluster submit: " << c.out_dir
              << " already holds a campaign; resume it with `mmdiff cluster resubmit " << c.out_dir
              << "` or choose another --out\n";
    return kExitUsage;
  }
  if (Status s = MakeWritableDir(slurm.string()); !s.ok()) {
    std::cerr << "mmdiff cluster submit: " << s.message() << "\n";
    return kExitEnvironment;
  }
  for (const auto& [name, text] : {std::pair{"task.sbatch", SlurmTaskScript(c)},
                                   std::pair{"triage.sbatch", SlurmTriageScript(c)}}) {
    std::string path = (slurm / name).string();
    if (Status s = WriteFileAtomic(path, text); !s.ok()) {
      std::cerr << "mmdiff cluster submit: " << s.message() << "\n";
      return kExitEnvironment;
    }
    chmod(path.c_str(), 0755);
  }
  if (std::none_of(c.fuzz_args.begin(), c.fuzz_args.end(), [](const std::string& arg) {
        return arg.rfind("--time", 0) == 0 || arg.rfind("--cases", 0) == 0;
      }))
    std::cerr << "mmdiff cluster submit: note: no --time or --cases among the fuzz options: each "
                 "task runs fuzz's default budget (60 s)\n";
  if (a.dry_run) {
    std::cout << "wrote " << (slurm / "task.sbatch").string() << " and "
              << (slurm / "triage.sbatch").string()
              << " (--dry-run: not submitted; `mmdiff cluster resubmit " << c.out_dir
              << "` submits them)\n";
    return kExitOk;
  }
  return SubmitScripts(c.out_dir, c.tasks);
}

// The array's size from the script's own #SBATCH --array=0-<N-1> line.
int64_t ArrayTasks(const std::string& script) {
  const std::string key = "\n#SBATCH --array=0-";
  size_t at = script.find(key);
  if (at == std::string::npos) return -1;
  return std::atoll(script.c_str() + at + key.size()) + 1;
}

int Resubmit(const std::string& out) {
  const fs::path slurm = fs::path(out) / "slurm";
  auto script = ReadFile((slurm / "task.sbatch").string());
  if (!script.ok() || !fs::exists(slurm / "triage.sbatch")) {
    std::cerr << "mmdiff cluster resubmit: " << out
              << " holds no campaign of `mmdiff cluster submit` (no slurm/task.sbatch and "
                 "slurm/triage.sbatch)\n";
    return kExitUsage;
  }
  return SubmitScripts(fs::absolute(out).string(), ArrayTasks(script.value()));
}

// The shard folders under `dir`: itself when it holds a summary, else its shard-<i>/ folders with
// one, in index order.
std::vector<std::string> ShardDirs(const std::string& dir) {
  if (fs::exists(fs::path(dir) / "summary.json")) return {dir};
  std::vector<std::pair<long long, std::string>> found;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    std::string name = e.path().filename().string();
    if (name.rfind("shard-", 0) == 0 && fs::exists(e.path() / "summary.json"))
      found.emplace_back(std::atoll(name.c_str() + 6), e.path().string());
  }
  std::sort(found.begin(), found.end());
  std::vector<std::string> out;
  for (auto& [i, d] : found) out.push_back(d);
  return out;
}

int ShowStatus(const std::vector<std::string>& dirs) {
  std::vector<ShardProgress> shards;
  for (const std::string& dir : dirs) {
    std::vector<std::string> found = ShardDirs(dir);
    if (found.empty()) {
      std::cerr << "mmdiff cluster status: " << dir
                << " holds no summary.json, nor shard-<i>/ folders with one (yet)\n";
      return kExitUsage;
    }
    for (const std::string& d : found) {
      auto text = ReadFile(d + "/summary.json");
      if (!text.ok()) {
        std::cerr << "mmdiff cluster status: " << text.error() << "\n";
        return kExitUsage;
      }
      auto p = ReadShardProgress(d, text.value());
      if (!p.ok()) {
        std::cerr << "mmdiff cluster status: " << p.error() << "\n";
        return kExitUsage;
      }
      shards.push_back(p.value());
    }
  }
  std::cout << ShardProgressTable(shards);
  bool all = std::all_of(shards.begin(), shards.end(), [](const auto& p) { return p.complete; });
  return all ? kExitOk : kExitDiverged;
}

const CommandRegistrar kCluster{
    "cluster", [](CLI::App& app) {
      auto* cluster = app.add_subcommand(
          "cluster", "Run a campaign on a Slurm cluster: submit, resubmit, status");
      cluster->footer(kFooter);
      cluster->require_subcommand(1);
      auto args = std::make_shared<SubmitArgs>();
      auto* submit = cluster->add_subcommand("submit", kSubmitDescription);
      SlurmCampaign& c = args->campaign;
      submit->add_option("--tasks", c.tasks, "Array tasks: the campaign's shards")->required();
      submit->add_option("--out", args->out, "The campaign's folder, on a shared file system")
          ->required();
      submit->add_option("--partition", c.partition, "sbatch --partition");
      submit->add_option("--gres", c.gres,
                         "sbatch --gres, per task (gpu:1 for a GPU campaign: raise p_cuda in the "
                         "--policy given to fuzz)");
      submit->add_option("--time-limit", c.time_limit,
                         "sbatch --time, per task (e.g. 8:00:00); a task near it requeues itself "
                         "and resumes its shard");
      submit->add_option("--cpus-per-task", c.cpus_per_task,
                         "sbatch --cpus-per-task; each task runs that many fuzz --jobs (unless "
                         "the fuzz options say)");
      submit->add_option("--mem", c.mem, "sbatch --mem, per task (e.g. 32G)");
      submit->add_option("--account", c.account, "sbatch --account");
      submit->add_option("--qos", c.qos, "sbatch --qos");
      submit->add_option("--sbatch", c.sbatch_extra,
                         "Another sbatch option for the tasks, as --name=value (repeatable)");
      submit
          ->add_option("--warning", c.warning_s,
                       "Seconds before the time limit at which Slurm warns a task (sbatch "
                       "--signal=B:USR1@N): enough for the cases under way to finish, 0: none")
          ->capture_default_str();
      submit->add_option("--local-dir", c.local_dir,
                         "Node-local folder for each task's Inductor cache (default: $TMPDIR on "
                         "the node, else /tmp); removed when the task ends");
      submit->add_option("--job-name", c.job_name, "sbatch --job-name")->capture_default_str();
      submit->add_flag("--dry-run", args->dry_run,
                       "Write the batch scripts into OUT/slurm/ but submit nothing");
      submit->add_option("fuzz-options", c.fuzz_args,
                         "After `--`: each task's `mmdiff fuzz` options (--seed, --cases or "
                         "--time, --paths, --policy, ...), checked here as fuzz checks them");
      auto resubmit_out = std::make_shared<std::string>();
      auto* resubmit = cluster->add_subcommand(
          "resubmit",
          "Submit a campaign's array and triage jobs again (OUT/slurm/*.sbatch): every task "
          "resumes its shard (a finished one ends at once). After a cancel, a time limit or a "
          "failed node; not while its tasks still run");
      resubmit->add_option("out", *resubmit_out, "The campaign's folder")->required();
      auto status_dirs = std::make_shared<std::vector<std::string>>();
      auto* status = cluster->add_subcommand(
          "status",
          "Each shard's progress from its summary.json: cases done of its share of the "
          "budget, time, buckets, resumes, and whether its budget is spent (exit 0 when every "
          "shard's is, 1 otherwise)");
      status->add_option("dirs", *status_dirs, "Campaign folders (OUT) or shard folders")
          ->required();
      return std::make_pair(cluster, std::function<int()>([=] {
                              if (submit->parsed()) return Submit(*args);
                              if (resubmit->parsed()) return Resubmit(*resubmit_out);
                              return ShowStatus(*status_dirs);
                            }));
    }};

}  // namespace
}  // namespace mmdiff::cli
