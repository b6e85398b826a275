// `mmdiff cluster`: a campaign as a Slurm job array (submit, resubmit) and its shards' progress
// (status).
#include <CLI/CLI.hpp>
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "src/cli/cli_support.h"
#include "src/cli/command_registry.h"
#include "src/cli/commands.h"
#include "src/cluster/slurm_campaign.h"
#include "src/cluster/slurm_submit.h"
#include "src/support/files.h"

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

// Submits OUT/slurm/*.sbatch and prints the job ids and where the results go.
int SubmitScripts(const std::string& out, int64_t tasks) {
  auto jobs = SubmitSlurmScripts(out);
  if (!jobs.ok()) {
    std::cerr << "mmdiff cluster: " << jobs.error() << "\n";
    return kExitEnvironment;
  }
  const int64_t array = jobs.value().array_job, triage = jobs.value().triage_job;
  std::cout << "submitted array job " << array << " (" << tasks << " tasks: shards 0/" << tasks
            << " to " << tasks - 1 << "/" << tasks << " into " << out << "/shard-<i>/)\n"
            << "and triage job " << triage << " (after every task has ended: " << out
            << "/triage/triage.md)\n"
            << "watch: squeue -j " << array << "," << triage << "; mmdiff cluster status " << out
            << "\nlogs: " << out << "/slurm/task-<i>.log, " << out << "/slurm/triage.log\n";
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
  if (Status s = CheckFuzzArgs(c.fuzz_args); !s.ok()) {
    std::cerr << "mmdiff cluster submit: " << s.message() << "\n";
    return kExitUsage;
  }
  if (ClusterStep w = WriteSlurmScripts(c); w.exit_code != kExitOk) {
    std::cerr << "mmdiff cluster submit: " << w.error << "\n";
    return w.exit_code;
  }
  const fs::path slurm = fs::path(c.out_dir) / "slurm";
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

int Resubmit(const std::string& out) {
  auto tasks = SubmittedTasks(out);
  if (!tasks.ok()) {
    std::cerr << "mmdiff cluster resubmit: " << tasks.error() << "\n";
    return kExitUsage;
  }
  return SubmitScripts(fs::absolute(out).string(), tasks.value());
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
      AddOutFolderOption(submit, args->out, "the campaign, on a shared file system")->required();
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
