// The fuzz campaign: generate, run on parallel workers, judge, keep one report per bucket;
// resumable after a kill, and splittable into shards that merge into what one machine would have
// found.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "src/campaign/campaign_profile.h"
#include "src/campaign/case_schedule.h"
#include "src/campaign/stage_controls.h"
#include "src/campaign/standalone_check.h"
#include "src/exec/supervisor.h"
#include "src/gen/policy.h"
#include "src/report/finding_class.h"
#include "src/report/known.h"
#include "src/report/report.h"
#include "src/report/rewrite_coverage.h"

namespace mmdiff {

struct FuzzOptions {
  double time_s = 60;      // stop starting new cases after this long (in total, across resumes)
  int64_t max_cases = -1;  // case indices below this (-1: no limit); a shard runs its share of them
  uint64_t seed = 1;       // case index i uses program and input seed `seed + i`
  Shard shard;
  int jobs = 1;  // parallel workers
  std::string out_dir;
  GenPolicy policy;
  std::vector<std::string> paths;
  // Inductor's knob variants a program may also run (GenPolicy::variant_rate): every one the worker
  // offers when the campaign's paths were not given, else none (those named run on every program).
  std::vector<std::string> variants;
  bool progress_line = false;  // a live line on a terminal instead of periodic log lines
  // How the workers were started, kept so that --resume starts them the same way.
  bool test_paths = false;
  double stage_timeout_s = 300;
  // Each new bucket's case is reduced (src/reduce) with at most this many candidate runs before its
  // folder is written, into findings/<hash>/reduced/; 0: no reduction.
  int64_t reduce_budget = 50;
  // ... and for at most this many seconds per bucket: a crash or timeout candidate restarts its
  // worker, and a timeout candidate takes stage_timeout_s, so a hang could otherwise hold a job for
  // hours. Like the campaign's own end, the limit keeps the smallest case found so far.
  double reduce_time_s = 300;
  // Inductor's caches (TORCHINDUCTOR_CACHE_DIR of the workers), relative to out_dir.
  std::string inductor_cache_dir = "inductor-cache";
  // Known behaviours: a finding whose root cause is in the catalogue is counted and written, but
  // gets no mitigation reruns, ablation or reduction unless reduce_known. known_paths is what the
  // catalogue was read from (kept for --resume, which reads it again).
  std::vector<std::string> known_paths;
  std::shared_ptr<const KnownCatalogue> known;
  bool reduce_known = false;
  // When torch.compile's lower stages (compile_eager, aot_eager) run beside inductor
  // (src/campaign/stage_controls.h).
  ControlsMode controls = ControlsMode::kOnDivergence;
  // Each new root cause is run again on its own before it is listed (src/campaign/
  // standalone_check.h); false: not checked (its status says so, and it is not listed as new).
  bool standalone_check = true;
  StandaloneOptions standalone;
  // Each new root cause's case runs through torch.compile's stages (src/campaign/ablation.h);
  // false: no ablation (campaigns about the campaign's own machinery).
  bool ablation = true;
  // Steering (src/campaign/steering.h): each case generates with a focus drawn from odds that
  // follow what each focus found per core-second (steer_yield: the yield scheduler) or the
  // campaign's pass coverage, in epochs of steer_epoch_cases cases.
  bool steer = false;
  bool steer_yield = true;
  int64_t steer_epoch_cases = 16;  // Steering::kYieldEpochCases; 64 for coverage steering
  // The attention fusions and lowerings the installed torch can reach on this CPU
  // (Steering::SetReachableTargets), listed when a steered campaign starts; none: unknown (every
  // target focus can be open), or resumed (the summary holds them).
  std::optional<std::set<std::string>> reachable_targets;
};

struct BucketStats {
  std::string signature;
  std::string headline;
  std::string finding_dir;  // relative to out_dir; "" until written
  int64_t count = 0;
  int64_t first_index = -1;  // the smallest case index in the bucket: its case is the report
  uint64_t first_seed = 0;
  double first_found_s = 0;  // seconds into the campaign
  // The smallest case seeds in the bucket (at most kBucketExamples, the report's first): more
  // examples to rerun with `mmdiff gen --seed`.
  std::vector<uint64_t> example_seeds;
  std::optional<KnownRecord> known;  // the catalogue's entry of a known root cause; none: new
  // The entry that matches a new root cause without claiming it on this torch (CaseRun::unclaimed):
  // with "back" standing, listed before the new ones as a known bug back or a fix's miss.
  std::optional<KnownRecord> unclaimed;
  // The root-cause signature of the bucket's reduced case, where reduction kept steps: an error on
  // an accepted program is signed by all its ops, and reduction narrows them to the one that
  // fails, so buckets that reduce to one signature are one root cause; where the finding is a
  // knob variant's that a variant with fewer knobs shows alike (LowerToBaseVariant), that one's.
  // "" when neither.
  std::string reduced_signature;
  std::string reduced_headline;  // the reduced case's headline, where reduced
  // The class of its folder's case (CaseClass: the reduced one where kept), as its report says;
  // none until the folder is written (Class() then decides by the root cause alone).
  std::optional<RootCauseClass> root_class;
  RootCauseClass Class() const {
    return root_class ? *root_class : ClassifyRootCause(RootCause(), "");
  }
  // The standalone check of the folder's case (a new root cause's); none for a known one.
  std::optional<StandaloneRecord> standalone;
  // The folded root cause (oracles/root_cause_fold.h) the bucket's finding is one case of, where
  // it folds: one documented behaviour, whatever the op. "" otherwise.
  std::string folded;
  // The op families its cases' findings were located at, sorted (at most kMaxOpsSeen).
  std::vector<std::string> ops_seen;
  // The rewrites its example case (first_index) reached (src/report/rewrite_coverage.h), sorted.
  std::vector<std::string> rewrites;
  // The focus its example case generated with (src/gen/focus.h), in a steered campaign; "" else.
  std::string first_focus;
  const std::string& RootCause() const {
    return !folded.empty() ? folded : reduced_signature.empty() ? signature : reduced_signature;
  }
};

inline constexpr size_t kBucketExamples = 5;
inline constexpr size_t kMaxOpsSeen = 32;
// Adds `seed` to the bucket's example seeds, which keep the kBucketExamples smallest, sorted: the
// same set whatever the order of the cases.
void AddExample(BucketStats& b, uint64_t seed);

// Compile once, run many: the inputs checked and what the compiled paths did with them.
struct InputStats {
  int64_t checked_inputs = 0;  // (program, input) pairs run: each program runs on up to
                               // policy.inputs_per_program inputs
  int64_t shape_variants = 0;  // inputs with new sizes for one dimension (dynamic shapes)
  int64_t compiles = 0;        // compiled-path runs that compiled (dynamo made a graph)
  int64_t reuses = 0;  // compiled-path runs that ran the graph compiled for an earlier input of
                       // their program without compiling again
  int64_t fx_cache_hits = 0,
          fx_cache_misses = 0;  // Inductor's FX graph cache, in the campaign's folder
  // Inputs with special values (recipe rate > 0) the reference computed, their reference output
  // elements, and those it left unjudged (infinite bound: a correct path may return anything).
  int64_t special_inputs = 0, special_elements = 0, special_unjudged = 0;
  // Inputs rerun with an ignored input (addmm-family beta = 0) holding NaN or inf zeroed.
  int64_t ignored_input_reruns = 0;
  void Add(const std::vector<PathResult>& results, bool new_shapes, bool special_values = false);
  InputStats& operator+=(const InputStats& o);
  nlohmann::json ToJson() const;
  static InputStats FromJson(const nlohmann::json& j);
};

// A case whose worker failed twice on one of its requests (src/exec/supervisor.h): not judged.
struct WorkerFaultCase {
  int64_t index = 0;
  uint64_t seed = 0;
  std::string detail;  // the supervisor's words for both faults
};
inline constexpr size_t kMaxWorkerFaultCases = 20;  // listed in the summary; all are counted

struct FuzzSummary {
  int64_t cases = 0;
  int64_t diverging_cases = 0;
  int64_t skipped_paths = 0;           // path runs reported unsupported
  int64_t cuda_cases_without_gpu = 0;  // cuda programs eager could not run: this machine has no GPU
  int restarts = 0;                    // workers restarted after a crash or hang
  int recycles = 0;                    // workers replaced to contain leaks
  int resumes = 0;                     // times the campaign was resumed
  bool interrupted = false;            // stopped by RequestFuzzStop (e.g. Ctrl-C)
  int64_t worker_fault_cases = 0;      // cases given up as worker faults (done, not judged)
  std::vector<WorkerFaultCase> worker_faults;  // the first kMaxWorkerFaultCases of them
  // Why the campaign stopped before its budget because its workers cannot work (exit 3; --resume
  // continues once the cause is fixed); "" otherwise. `not_started`: before any case ran.
  std::string worker_failure;
  bool not_started = false;
  double elapsed_s = 0;
  InputStats inputs;
  // Where the campaign's job-seconds went (workers started before it began are not in it).
  CampaignProfile profile;
  std::map<std::string, BucketStats> buckets;  // by bucket hash
  // The rewrites of Inductor the programs' compiled runs reached.
  RewriteCoverage rewrites;
  // A steered campaign's steering state (Steering::ToJson); null when not steered.
  nlohmann::json steering;
  // Resume state: the schedule's done set.
  int64_t done_below = 0;
  std::vector<int64_t> done_extra;
};

// Whether a bucket is listed among the new root causes: not known, and not found "not reproduced"
// when run again standalone (reproduced, flaky, or not checked: checks turned off, or the campaign
// stopped during its check; its line says so). One that was not reproduced is listed apart.
bool ListedAsNew(const BucketStats& b);
// Whether a new bucket's root cause is matched by a catalogue entry that expects agreement (or
// other divergences) on this torch (KnownStanding::kBack): a known bug back, or a fix that misses
// this form. Listed before the other new ones.
bool IsBack(const BucketStats& b);
// The new root causes none of whose buckets is listed as new: not reproduced standalone.
std::set<std::string> NotReproducedCauses(const FuzzSummary& s);

// The buckets with a written report: the new root causes reproduced standalone first (those back
// first: IsBack), ranked by
// class (src/report/finding_class.h: a compiled path's wrong result first), each class in the
// order found (by the smallest case index, buckets of one root cause after reduction together);
// then the new ones not reproduced standalone, the same way; then the known ones.
std::vector<std::pair<std::string, const BucketStats*>> OrderedBuckets(const FuzzSummary& s);

// The campaign's rewrites as table rows, each with the buckets (by hash) whose example reached it.
std::vector<RewriteRow> SummaryRewriteRows(const FuzzSummary& s);

// summary.json: the user-facing summary plus everything --resume needs (options, policy, done set).
nlohmann::json SummaryToJson(const FuzzSummary& s, const FuzzOptions& o);
// Reads a summary.json written by SummaryToJson back, for --resume: the options it ran with and
// its progress. Errors name what is wrong (not a summary, another version or generator version).
Status SummaryFromJson(const nlohmann::json& j, FuzzOptions& o, FuzzSummary& s);

// The most parallel workers a campaign starts (each imports torch: about 1 GB).
inline constexpr int kMaxJobs = 256;
// Whether the options are in range, whether given on the command line or read back by --resume:
// jobs 1..kMaxJobs, a stage timeout above 0 and at most a day, budgets and limits not negative (nor
// NaN), reduction runs at most a million. The error names the first option out of range.
Status CheckFuzzOptions(const FuzzOptions& o);

// Asks a running RunFuzz to stop after the current cases (async-signal-safe).
void RequestFuzzStop();

// Writes DIR/findings/<bucket-hash>/ (complete or not at all) for each new bucket, and
// DIR/summary.json (at every new bucket, every second and at the end). With `resume`, `start` is
// the summary read back and finding folders written after its last save are adopted, not
// duplicated. One supervisor per job, each already started. Returns an error only if the output
// folder is unusable.
Result<FuzzSummary> RunFuzz(const FuzzOptions& o, const std::vector<Supervisor*>& workers,
                            const RunContext& ctx, FuzzSummary start = {});

}  // namespace mmdiff
