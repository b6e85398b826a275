// CampaignProfile: where a campaign's seconds went — generating programs, running each path (and
// inside the compiled paths, Dynamo, AOTAutograd, Inductor, the C++ compiler, running the code),
// starting workers, judging, and the work on new buckets (mitigations, ablation, reduction,
// writing their folders). Kept in summary.json and printed by `mmdiff fuzz --profile`.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "src/ir/outcome.h"
#include "src/support/status.h"

namespace mmdiff {

struct PathTime {
  int64_t runs = 0;
  double seconds = 0;     // as the worker timed the path's runs
  bool compiled = false;  // the path reported compile phases
  CompilePhases phases;
};

struct CampaignProfile {
  // Seconds summed over the campaign's jobs (with one job, parts of its wall time).
  double generate_s = 0;  // programs and their input variants
  double run_s = 0;    // the workers' runs of the checked inputs, as the campaign waited for them
  double judge_s = 0;  // judging them (the ignored-input reruns are runs, not judging)
  double mitigations_s = 0, ablation_s = 0, reduce_s = 0;  // new buckets only
  double standalone_s = 0;  // new root causes: their standalone checks (reruns, repro.py)
  double store_s = 0;       // writing the buckets' folders and the summary
  // Workers started (including restarts and recycles) and the seconds that took, part of run_s
  // and of the new buckets' parts wherever a worker started.
  int64_t worker_starts = 0;
  double worker_start_s = 0;
  std::map<std::string, PathTime> paths;  // the checked inputs' path runs, by path
  // Training programs (inputs that require grad): how many, and their share of run_s.
  int64_t training_programs = 0;
  double training_run_s = 0;
  // Programs the contract rejects (eager must raise): how many, their share of run_s, and the
  // seconds their compiled paths spent in the C++ compiler. A path that raises while tracing or
  // lowering such a program compiles no C++; one that accepted the violation does, to build and
  // run it: what a campaign pays to learn whether the code it accepted also builds and runs.
  int64_t rejected_programs = 0;
  double rejected_run_s = 0, rejected_cpp_compile_s = 0;
  // A steered campaign's jobs waiting for an epoch to complete before the next case's odds are
  // known (src/campaign/steering.h): idle job-seconds, part of "the rest".
  double steer_wait_s = 0;

  void AddRuns(const std::vector<PathResult>& results);
  // The C++ compiler's seconds over every path.
  double CppCompileSeconds() const;
  CampaignProfile& operator+=(const CampaignProfile& o);
  nlohmann::json ToJson() const;
  // What ToJson wrote (every number finite and >= 0), or an error naming the field.
  static Result<CampaignProfile> FromJson(const nlohmann::json& j);
};

// The profile as a table for people: each part's seconds, its share of `total_s` (the campaign's
// job-seconds) and its seconds per program, the paths' parts indented under the runs.
std::string ProfileTable(const CampaignProfile& p, int64_t programs, double total_s);

}  // namespace mmdiff
