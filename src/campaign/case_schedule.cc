// Case index bookkeeping for campaigns.
#include "src/campaign/case_schedule.h"

#include <cstdlib>

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

std::string ShardText(const Shard& s) {
  return std::to_string(s.index) + "/" + std::to_string(s.count);
}

CaseSchedule::CaseSchedule(Shard shard, int64_t max_cases)
    : shard_(shard), max_cases_(max_cases), done_below_(shard.index), cursor_(shard.index) {}

bool CaseSchedule::Next(int64_t* index) {
  while (InBudget(cursor_) && IsDone(cursor_)) cursor_ += shard_.count;
  if (!InBudget(cursor_)) return false;
  *index = cursor_;
  cursor_ += shard_.count;
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
