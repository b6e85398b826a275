// Case index bookkeeping for campaigns.
#include "src/campaign/case_schedule.h"

#include <cerrno>
#include <cstdlib>
#include <utility>

namespace mmdiff {

Result<Shard> ParseShard(const std::string& text) {
  size_t slash = text.find('/');
  auto bad = [&] {
    return Status::Error("--shard must be i/N with 0 <= i < N, e.g. 0/4 (got '" + text + "')");
  };
  if (slash == std::string::npos || slash == 0 || slash + 1 == text.size()) return bad();
  char* end = nullptr;
  long long i = std::strtoll(text.c_str(), &end, 10);
  if (end != text.c_str() + slash) return bad();
  long long n = std::strtoll(text.c_str() + slash + 1, &end, 10);
  if (*end != '\0' || n < 1 || i < 0 || i >= n) return bad();
  return Shard{i, n};
}

namespace {

// A non-negative decimal integer, the whole text; -1 otherwise.
int64_t Count(const char* text) {
  if (text == nullptr || *text < '0' || *text > '9') return -1;
  char* end = nullptr;
  errno = 0;
  long long v = std::strtoll(text, &end, 10);
  return *end == '\0' && errno == 0 ? v : -1;
}

Result<Shard> SlurmArrayShard(const std::function<const char*(const char*)>& env) {
  int64_t id = Count(env("SLURM_ARRAY_TASK_ID")), min = Count(env("SLURM_ARRAY_TASK_MIN")),
          max = Count(env("SLURM_ARRAY_TASK_MAX")), count = Count(env("SLURM_ARRAY_TASK_COUNT"));
  // Slurm leaves the step out of some ranges: it is then 1.
  int64_t step = env("SLURM_ARRAY_TASK_STEP") ? Count(env("SLURM_ARRAY_TASK_STEP")) : 1;
  for (const auto& [name, v] : {std::pair<const char*, int64_t>{"SLURM_ARRAY_TASK_ID", id},
                                {"SLURM_ARRAY_TASK_MIN", min},
                                {"SLURM_ARRAY_TASK_MAX", max},
                                {"SLURM_ARRAY_TASK_COUNT", count},
                                {"SLURM_ARRAY_TASK_STEP", step}})
    if (v < 0)
      return Status::Error(
          std::string("--shard auto: ") + name +
          (env(name) ? " is not a non-negative integer ('" + std::string(env(name)) + "')"
                     : " is not set (is this a Slurm array task?)"));
  if (step < 1 || count < 1 || min > max || (max - min) % step != 0 ||
      (max - min) / step + 1 != count)
    return Status::Error("--shard auto: the Slurm array is not a range of indices (min " +
                         std::to_string(min) + ", max " + std::to_string(max) + ", step " +
                         std::to_string(step) + ", " + std::to_string(count) +
                         " tasks): submit it as --array=FIRST-LAST[:STEP]");
  if (id < min || id > max || (id - min) % step != 0)
    return Status::Error("--shard auto: SLURM_ARRAY_TASK_ID " + std::to_string(id) +
                         " is not in the array " + std::to_string(min) + "-" + std::to_string(max) +
                         ":" + std::to_string(step));
  return Shard{(id - min) / step, count};
}

}  // namespace

Result<Shard> ShardFromEnvironment(const std::function<const char*(const char*)>& env) {
  if (env("SLURM_ARRAY_TASK_ID")) return SlurmArrayShard(env);
  if (const char* index = env("JOB_COMPLETION_INDEX")) {
    const char* count = env("MMDIFF_SHARD_COUNT");
    if (!count)
      return Status::Error(
          "--shard auto: JOB_COMPLETION_INDEX is set (a Kubernetes Indexed Job) but "
          "MMDIFF_SHARD_COUNT, the job's completions, is not: set it in the pod's environment");
    int64_t i = Count(index), n = Count(count);
    if (i < 0 || n < 1 || i >= n)
      return Status::Error(std::string("--shard auto: JOB_COMPLETION_INDEX '") + index +
                           "' and MMDIFF_SHARD_COUNT '" + count + "' are not 0 <= index < count");
    return Shard{i, n};
  }
  return Status::Error(
      "--shard auto: neither SLURM_ARRAY_TASK_ID (a Slurm job array task) nor "
      "JOB_COMPLETION_INDEX (a Kubernetes Indexed Job) is set; give the shard as --shard i/N");
}

std::string ShardText(const Shard& s) {
  return std::to_string(s.index) + "/" + std::to_string(s.count);
}

CaseSchedule::CaseSchedule(Shard shard, int64_t max_cases)
    : shard_(shard), max_cases_(max_cases), done_below_(shard.index), cursor_(shard.index) {}

bool CaseSchedule::Next(int64_t* index) {
  if (!Peek(index)) return false;
  cursor_ += shard_.count;
  return true;
}

bool CaseSchedule::Peek(int64_t* index) {
  while (InBudget(cursor_) && IsDone(cursor_)) cursor_ += shard_.count;
  if (!InBudget(cursor_)) return false;
  *index = cursor_;
  return true;
}

void CaseSchedule::MarkDone(int64_t index) {
  if (index < done_below_) return;
  extra_.insert(index);
  while (!extra_.empty() && *extra_.begin() == done_below_) {
    extra_.erase(extra_.begin());
    done_below_ += shard_.count;
  }
}

void CaseSchedule::Restore(int64_t done_below, const std::vector<int64_t>& extra) {
  done_below_ = std::max(done_below, shard_.index);
  extra_.clear();
  for (int64_t i : extra) MarkDone(i);
  cursor_ = shard_.index;
}

}  // namespace mmdiff
