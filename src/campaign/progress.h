// Campaign progress: a live line on a terminal, plain periodic log lines otherwise.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace mmdiff {

struct ProgressSnapshot {
  int64_t cases = 0;
  int64_t diverging = 0;
  int64_t buckets = 0;
  int restarts = 0;
  double elapsed_s = 0;  // in total, across resumes
  double budget_s = 0;   // the time budget
  int64_t cases_this_run = 0;
};

// "1234 cases (41.2/s) | 3 diverging | 2 buckets | 0 restarts | 1m05s left"
std::string ProgressText(const ProgressSnapshot& s, double run_seconds);

class Progress {
 public:
  explicit Progress(bool live_line);
  // Redraws the live line (at most twice a second) or logs a line every 15 s.
  void Update(const ProgressSnapshot& s);
  // Ends the live line so that what follows starts on a fresh line.
  void Finish();

 private:
  bool live_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point start_, last_;
};

}  // namespace mmdiff
