// Progress line and periodic progress logs.
#include "src/campaign/progress.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace mmdiff {

namespace {
std::string Duration(double s) {
  if (!std::isfinite(s)) return "no limit";
  long t = std::lround(std::max(s, 0.0));
  char buf[32];
  if (t >= 3600)
    std::snprintf(buf, sizeof buf, "%ldh%02ldm", t / 3600, t / 60 % 60);
  else if (t >= 60)
    std::snprintf(buf, sizeof buf, "%ldm%02lds", t / 60, t % 60);
  else
    std::snprintf(buf, sizeof buf, "%lds", t);
  return buf;
}
}  // namespace

std::string ProgressText(const ProgressSnapshot& s, double run_seconds) {
  char buf[256];
  double rate = run_seconds > 0 ? static_cast<double>(s.cases_this_run) / run_seconds : 0.0;
  std::snprintf(
      buf, sizeof buf,
      "%lld cases (%.1f/s) | %lld diverging | %lld buckets | %d workers restarted | %s left",
      static_cast<long long>(s.cases), rate, static_cast<long long>(s.diverging),
      static_cast<long long>(s.buckets), s.restarts, Duration(s.budget_s - s.elapsed_s).c_str());
  return buf;
}

Progress::Progress(bool live_line)
    : live_(live_line), start_(std::chrono::steady_clock::now()), last_(start_) {}

void Progress::Update(const ProgressSnapshot& s) {
  auto now = std::chrono::steady_clock::now();
  double since = std::chrono::duration<double>(now - last_).count();
  if (since < (live_ ? 0.5 : 15.0)) return;
  last_ = now;
  std::string text = ProgressText(s, std::chrono::duration<double>(now - start_).count());
  if (live_) {
    std::fprintf(stderr, "\r\033[K%s", text.c_str());
    std::fflush(stderr);
    drawn_ = true;
  } else {
    spdlog::info("progress: {}", text);
  }
}

void Progress::Finish() {
  if (live_ && drawn_) std::fprintf(stderr, "\n");
  drawn_ = false;
}

}  // namespace mmdiff
