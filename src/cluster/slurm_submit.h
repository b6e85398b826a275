// A Slurm campaign's batch scripts written into its folder and submitted with sbatch (through the
// one process runner, src/support/subprocess.h), and its shards' folders found again.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "src/cluster/slurm_campaign.h"
#include "src/support/exit_codes.h"
#include "src/support/status.h"

namespace mmdiff {

// kExitOk, or the exit code of what went wrong and a one-line reason.
struct ClusterStep {
  int exit_code = kExitOk;
  std::string error;
};

// Writes OUT/slurm/task.sbatch and OUT/slurm/triage.sbatch (executable) for `c`: kExitUsage when
// CheckSlurmCampaign refuses it or OUT already holds a campaign, kExitEnvironment when the folder
// or a script cannot be written.
ClusterStep WriteSlurmScripts(const SlurmCampaign& c);

struct SlurmSubmission {
  int64_t array_job = 0;
  int64_t triage_job = 0;
};

// Submits OUT/slurm/task.sbatch, then triage.sbatch to start after every task has ended
// (--dependency=afterany, the array's id as its argument), and appends both ids to
// OUT/slurm/submissions.log. An error says which job was submitted and which was not, and what
// sbatch said (its stderr is ours); sbatch gets `timeout_s` seconds each.
Result<SlurmSubmission> SubmitSlurmScripts(const std::string& out, double timeout_s = 300);

// The number of tasks of OUT's submitted campaign, from its task script's #SBATCH --array line; an
// error when OUT holds no scripts of a submitted campaign.
Result<int64_t> SubmittedTasks(const std::string& out);

// The shard folders under `dir`: itself when it holds a summary.json, else its shard-<i>/ folders
// with one, in index order.
std::vector<std::string> ShardDirs(const std::string& dir);

}  // namespace mmdiff
