// Which case indices a campaign, or one shard of it, runs, and which of them are done: the
// bookkeeping behind --jobs, --shard and --resume.
#pragma once

#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "src/support/status.h"

namespace mmdiff {

// Shard `index` of `count` runs the case indices i with i % count == index.
struct Shard {
  int64_t index = 0;
  int64_t count = 1;
};

// "i/N" with 0 <= i < N.
Result<Shard> ParseShard(const std::string& text);

// `--shard auto`: the shard of a task of a scheduler's job array, from the environment (`env` looks
// a variable up; null: unset). A Slurm array task (SLURM_ARRAY_TASK_ID, _MIN, _MAX, _STEP, _COUNT)
// is shard (id - min) / step of count; the array must be a range (--array=0-7, 1-15:2, 0-99%10).
// A Kubernetes Indexed Job's pod is shard JOB_COMPLETION_INDEX of MMDIFF_SHARD_COUNT (Kubernetes
// does not export the completion count: the manifest sets it). Slurm's variables win when both are
// there. An error says which variable is missing or inconsistent.
Result<Shard> ShardFromEnvironment(const std::function<const char*(const char*)>& env);
std::string ShardText(const Shard& s);

// Hands out the shard's case indices in increasing order, below max_cases (-1: no limit), skipping
// those already done; remembers which are done as "every shard index below done_below" plus a
// sparse set above it. Not thread-safe: the campaign holds its lock.
class CaseSchedule {
 public:
  CaseSchedule(Shard shard, int64_t max_cases);

  // The next index neither done nor handed out; false when the budget is used up.
  bool Next(int64_t* index);
  // The index Next would hand out, without handing it out.
  bool Peek(int64_t* index);
  // Marks a handed-out (or, on resume, an adopted) index done.
  void MarkDone(int64_t index);
  // Resume: every shard index below done_below, and those in extra, are done.
  void Restore(int64_t done_below, const std::vector<int64_t>& extra);

  int64_t done_below() const { return done_below_; }
  std::vector<int64_t> done_extra() const { return {extra_.begin(), extra_.end()}; }
  bool IsDone(int64_t index) const { return index < done_below_ || extra_.count(index) > 0; }

 private:
  bool InBudget(int64_t index) const { return max_cases_ < 0 || index < max_cases_; }
  Shard shard_;
  int64_t max_cases_;
  int64_t done_below_;  // the first shard index not known to be done
  int64_t cursor_;      // the next shard index to consider handing out
  std::set<int64_t> extra_;
};

}  // namespace mmdiff
