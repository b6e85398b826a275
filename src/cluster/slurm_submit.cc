// Writing a Slurm campaign's scripts, submitting them, finding its shards.
#include "src/cluster/slurm_submit.h"

#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <utility>

#include "src/support/files.h"
#include "src/support/subprocess.h"
#include "src/support/utf8.h"

namespace mmdiff {

namespace {

namespace fs = std::filesystem;

// `sbatch --parsable [options] script [argument]` -> the job id.
Result<int64_t> Sbatch(const std::vector<std::string>& options, const std::string& script,
                       const std::string& argument, double timeout_s) {
  ProcessOptions o;
  o.argv = {"sbatch", "--parsable"};
  o.argv.insert(o.argv.end(), options.begin(), options.end());
  o.argv.push_back(script);
  if (!argument.empty()) o.argv.push_back(argument);
  o.capture_stdout = true;
  o.timeout_s = timeout_s;
  ProcessResult r = RunProcess(o);
  if (!r.started) return Status::Error("cannot run sbatch: " + r.error);
  if (r.exit_code == 127)
    return Status::Error("cannot run sbatch (not on PATH: is this a Slurm node?)");
  if (r.timed_out)
    return Status::Error("sbatch did not answer in " + std::to_string(static_cast<int>(timeout_s)) +
                         " s for " + script);
  if (r.exit_code != 0)
    return Status::Error("sbatch refused " + script + " (exit " +
                         std::to_string(r.signal ? 128 + r.signal : r.exit_code) +
                         "; its message is above)");
  return ParseSbatchJobId(r.stdout_text);
}

std::string Now() {
  std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

}  // namespace

ClusterStep WriteSlurmScripts(const SlurmCampaign& c) {
  // The message quotes the refused value, control characters and all: one terminal line.
  if (Status s = CheckSlurmCampaign(c); !s.ok()) return {kExitUsage, TerminalLine(s.message())};
  const fs::path slurm = fs::path(c.out_dir) / "slurm";
  if (fs::exists(slurm / "task.sbatch") || fs::exists(fs::path(c.out_dir) / "shard-0") ||
      fs::exists(fs::path(c.out_dir) / "summary.json"))
    return {kExitUsage, c.out_dir +
                            " already holds a campaign; resume it with `mmdiff cluster "
                            "resubmit " +
                            c.out_dir + "` or choose another --out"};
  if (Status s = MakeWritableDir(slurm.string()); !s.ok()) return {kExitEnvironment, s.message()};
  for (const auto& [name, text] : {std::pair{"task.sbatch", SlurmTaskScript(c)},
                                   std::pair{"triage.sbatch", SlurmTriageScript(c)}}) {
    std::string path = (slurm / name).string();
    if (Status s = WriteFileAtomic(path, text); !s.ok()) return {kExitEnvironment, s.message()};
    chmod(path.c_str(), 0755);
  }
  return {};
}

Result<SlurmSubmission> SubmitSlurmScripts(const std::string& out, double timeout_s) {
  const std::string slurm = (fs::path(out) / "slurm").string();
  auto array = Sbatch({}, slurm + "/task.sbatch", "", timeout_s);
  if (!array.ok()) return array.status();
  const std::string after = std::to_string(array.value());
  auto triage = Sbatch({"--dependency=afterany:" + after, "--kill-on-invalid-dep=yes"},
                       slurm + "/triage.sbatch", after, timeout_s);
  if (!triage.ok())
    return Status::Error(
        "the array job " + after + " is submitted, but not its triage job: " + triage.error() +
        "\n(run `mmdiff triage " + out + " --out " + out + "/triage` when the tasks have ended)");
  std::ofstream(slurm + "/submissions.log", std::ios::app)
      << Now() << " array job " << after << ", triage job " << triage.value() << "\n";
  return SlurmSubmission{array.value(), triage.value()};
}

Result<int64_t> SubmittedTasks(const std::string& out) {
  const fs::path slurm = fs::path(out) / "slurm";
  auto script = ReadFile((slurm / "task.sbatch").string());
  if (!script.ok() || !fs::exists(slurm / "triage.sbatch"))
    return Status::Error(out +
                         " holds no campaign of `mmdiff cluster submit` (no slurm/task.sbatch and "
                         "slurm/triage.sbatch)");
  const std::string key = "\n#SBATCH --array=0-";
  size_t at = script.value().find(key);
  if (at == std::string::npos) return int64_t{-1};
  return static_cast<int64_t>(std::atoll(script.value().c_str() + at + key.size())) + 1;
}

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

}  // namespace mmdiff
