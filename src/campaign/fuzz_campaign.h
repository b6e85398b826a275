// The fuzz loop: generate, run through the supervisor, judge, keep one report per bucket.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "src/exec/supervisor.h"
#include "src/gen/policy.h"
#include "src/report/report.h"

namespace mmdiff {

struct FuzzOptions {
  double time_s = 60;      // stop starting new cases after this long
  int64_t max_cases = -1;  // and/or after this many cases (-1: no limit)
  uint64_t seed = 1;       // case i uses program seed and input seed `seed + i`
  std::string out_dir;
  GenPolicy policy;
  std::vector<std::string> paths;
};

struct BucketStats {
  std::string signature;
  std::string headline;
  std::string finding_dir;  // relative to out_dir
  int64_t count = 0;
  uint64_t first_seed = 0;
  double first_found_s = 0;  // seconds into the campaign
};

struct FuzzSummary {
  int64_t cases = 0;
  int64_t diverging_cases = 0;
  int64_t skipped_paths = 0;  // path runs reported unsupported
  int64_t cuda_cases_without_gpu = 0;  // cuda programs eager could not run: this machine has no GPU
  int restarts = 0;
  bool interrupted = false;   // stopped by RequestFuzzStop (e.g. Ctrl-C)
  double elapsed_s = 0;
  std::map<std::string, BucketStats> buckets;  // by bucket hash
};

nlohmann::json SummaryToJson(const FuzzSummary& s, const FuzzOptions& o);

// Asks a running RunFuzz to stop after the current case (async-signal-safe).
void RequestFuzzStop();

// Writes DIR/findings/<bucket-hash>/ for each new bucket and DIR/summary.json (after every
// divergence and at the end). Returns an error only if the output folder is unusable.
Result<FuzzSummary> RunFuzz(const FuzzOptions& o, Supervisor& sup, const RunContext& ctx);

}  // namespace mmdiff
