// Starting a campaign without the CLI: a new campaign from its settings, or the resume of a
// folder's campaign; the folder and its lock, Inductor's cache, the stop signals, the worker pool
// and its paths; then RunFuzz. `mmdiff fuzz` parses its options into a CampaignStart and prints
// what StartCampaign returns.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "src/campaign/fuzz_campaign.h"
#include "src/exec/supervisor.h"
#include "src/report/report.h"
#include "src/support/exit_codes.h"

namespace mmdiff {

// Whether a new campaign steers (src/campaign/steering.h). kAuto steers a default campaign: no
// policy file (the foci would override the user's choice of forms), one shard (only unsteered
// shards merge into the one-machine campaign), inductor among its paths (no other path reports
// rewrites).
enum class SteerChoice { kAuto, kOn, kOff };

struct CampaignStart {
  // A new campaign's settings: out_dir, seed, shard, policy, budget, jobs, test_paths,
  // stage_timeout_s and the rest of FuzzOptions, but `paths` (path_list says which), `known` (read
  // from known_paths), `steer` (from `steer` below) and `standalone` (from `python` below).
  FuzzOptions options;
  std::string path_list;  // comma-separated; "": the worker's default paths (SelectPaths)
  // The knob variants a share of the programs run (FuzzOptions::variants), comma-separated, or
  // "none"; unset: every non-test variant the worker offers with the default paths, else none.
  std::optional<std::string> variant_list;
  SteerChoice steer = SteerChoice::kAuto;
  bool policy_given = false;  // the policy came from a file: kAuto does not steer

  // Resume the campaign of this folder instead: its summary.json gives every setting above, and
  // only those below replace its own.
  std::string resume;
  std::optional<Shard> resume_shard;  // the shard a requeued task says it is: the folder's must be
  std::optional<double> resume_time_s;
  std::optional<int64_t> resume_cases;
  int resume_jobs = 0;  // 0: the campaign's own

  // The workers.
  std::string worker_binary;
  int64_t recycle_after = 1000;      // programs on a compiled path before a fresh worker
  int64_t recycle_growth_mb = 1024;  // or this much resident growth
  int64_t memory_mb = -1;            // each worker's RLIMIT_DATA; -1: 3/4 of memory over the jobs
  // Inductor's caches (TORCHINDUCTOR_CACHE_DIR, set in this process for the workers to inherit):
  // "" puts them in the campaign's folder (options.inductor_cache_dir); else this folder.
  std::string inductor_cache;
  // The Python that runs a new finding's repro.py standalone: the workers' venv.
  std::string python;
  // Ctrl-C or SIGTERM finish the cases under way and end the campaign normally; a second one a
  // second or more later ends the process. The previous handlers come back at the end.
  bool stop_on_signals = true;
  bool progress_line = false;  // a live line on a terminal instead of periodic log lines
};

struct CampaignEnd {
  int exit_code = kExitOk;  // kExitUsage: a bad setting or folder; kExitEnvironment: the rest
  std::string error;        // what went wrong, one line, when exit_code is not kExitOk
  FuzzOptions options;      // as the campaign ran (its paths resolved)
  FuzzSummary summary;
};

// Runs the campaign to its end (its budget, or a stop signal) and returns its summary, as written
// to its folder's summary.json. A folder that holds a campaign already (without `resume`), one
// another campaign process holds, or settings out of range are kExitUsage before any worker starts.
// A stop asked for (a signal, RequestFuzzStop) lasts for the rest of the process: a later campaign
// started in it runs no case and ends interrupted.
CampaignEnd StartCampaign(CampaignStart start);

// The versions and knobs a report records, from a started worker.
RunContext WorkerRunContext(const Supervisor& sup);

}  // namespace mmdiff
