// A campaign on a Slurm cluster: the batch scripts of its array job (task i runs shard i of N with
// `mmdiff fuzz --shard auto` into OUT/shard-<i>/, resuming it after a requeue) and of the triage
// job that merges the shards, and the shards' progress read back from their summaries.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "src/support/status.h"

namespace mmdiff {

struct SlurmCampaign {
  std::string mmdiff;   // absolute path of the mmdiff executable the tasks run (a shared folder)
  std::string out_dir;  // absolute: the campaign's folder on a shared file system
  int64_t tasks = 0;    // the array's size: the number of shards
  // Each task's `mmdiff fuzz` options (seed, budget, paths, policy...), checked by the caller;
  // never --out, --shard, --resume or --inductor-cache (the script gives those).
  std::vector<std::string> fuzz_args;
  // sbatch options; "" or 0: the cluster's default. Checked by CheckSlurmCampaign.
  std::string partition, gres, time_limit, mem, account, qos;
  int64_t cpus_per_task = 0;
  std::vector<std::string> sbatch_extra;  // more sbatch options for the tasks, "--name[=value]"
  // Slurm signals each task's batch shell this many seconds before its time limit; the task stops
  // its campaign after the cases under way and requeues itself to resume the shard.
  int64_t warning_s = 300;
  // Node-local folder for Inductor's cache; "": $TMPDIR on the node, else /tmp.
  std::string local_dir;
  std::string job_name = "mmdiff";
};

// An error when a value cannot go into a #SBATCH line as it is (whitespace, quotes, control
// characters, `%` in paths, which Slurm expands) or a number is out of range.
Status CheckSlurmCampaign(const SlurmCampaign& c);

// `text` as one bash word, whatever it holds.
std::string ShellQuote(const std::string& text);

// The array job's batch script (OUT/slurm/task.sbatch) and the triage job's
// (OUT/slurm/triage.sbatch); both are plain sbatch scripts that `sbatch` takes again by hand.
// Submit the triage job with --dependency=afterany:<array job id> and that id as its argument.
std::string SlurmTaskScript(const SlurmCampaign& c);
std::string SlurmTriageScript(const SlurmCampaign& c);

// "123" or "123;cluster" (sbatch --parsable) -> 123; an error otherwise.
Result<int64_t> ParseSbatchJobId(const std::string& output);

// One shard's state from its summary.json.
struct ShardProgress {
  std::string dir;       // the shard's folder
  std::string shard;     // "i/N"
  int64_t cases = 0;     // done
  int64_t budget = -1;   // the shard's share of the --cases budget; -1: only a time budget
  double elapsed_s = 0;  // across resumes
  double time_s = 0;     // the time budget (infinite: none)
  int64_t buckets = 0;
  int64_t resumes = 0;
  bool interrupted = false;
  bool complete = false;  // its budget is spent: a resume has nothing left to run
};

// The progress of the shard whose summary.json text is `summary` (in folder `dir`); an error
// names what is wrong with it.
Result<ShardProgress> ReadShardProgress(const std::string& dir, const std::string& summary);

// A table of the shards, one line each, and a total line.
std::string ShardProgressTable(const std::vector<ShardProgress>& shards);

}  // namespace mmdiff
