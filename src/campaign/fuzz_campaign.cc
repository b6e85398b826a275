// Fuzz loop: jobs threads, each driving its own worker, share one schedule and one summary.
#include "src/campaign/fuzz_campaign.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <climits>
#include <condition_variable>
#include <filesystem>
#include <mutex>
#include <optional>
#include <set>
#include <thread>

#include "oracles/judge.h"
#include "oracles/root_cause_fold.h"
#include "src/campaign/ablation.h"
#include "src/campaign/case_inputs.h"
#include "src/campaign/case_paths.h"
#include "src/campaign/finding_store.h"
#include "src/campaign/mitigations.h"
#include "src/campaign/progress.h"
#include "src/campaign/reduce_finding.h"
#include "src/campaign/steering.h"
#include "src/campaign/timed.h"
#include "src/gen/focus.h"
#include "src/gen/generator.h"
#include "src/gen/input_variants.h"
#include "src/ir/paths.h"
#include "src/ir/verifier.h"
#include "src/report/run_case.h"
#include "src/support/files.h"
#include "src/support/hash.h"
#include "src/support/rng.h"

namespace mmdiff {

namespace fs = std::filesystem;

namespace {
std::atomic<bool> g_stop{false};
}  // namespace

void RequestFuzzStop() { g_stop = true; }

namespace {

// Everything the jobs share, under one lock.
class Campaign {
 public:
  Campaign(const FuzzOptions& o, const std::vector<Supervisor*>& workers, const RunContext& ctx,
           FuzzSummary start)
      : o_(o),
        workers_(workers),
        ctx_(ctx),
        sum_(std::move(start)),
        schedule_(o.shard, o.max_cases),
        summary_path_((fs::path(o.out_dir) / "summary.json").string()),
        elapsed_before_(sum_.elapsed_s) {
    schedule_.Restore(sum_.done_below, sum_.done_extra);
    if (o.steer) {
      steering_.emplace(o.seed, o.shard, o.steer_epoch_cases,
                        o.steer_yield ? SteerMode::kYield : SteerMode::kCoverage);
      if (o.reachable_targets) steering_->SetReachableTargets(*o.reachable_targets);
      // SummaryFromJson checked a resumed summary's state already.
      if (!sum_.steering.is_null()) (void)steering_->FromJson(sum_.steering);
    }
  }

  // Folders written after the last summary: their cases count as done, with their buckets (a case
  // with several findings wrote one folder per new bucket; it counts once).
  void Adopt(const std::vector<FindingCase>& found) {
    std::set<int64_t> adopted;
    for (const auto& f : found) folder_index_[f.folder] = f.index;
    auto exists = [&](const std::string& dir) {
      return !dir.empty() && fs::is_directory(fs::path(o_.out_dir) / dir);
    };
    for (const auto& f : found) {
      std::string dir = "findings/" + f.folder;
      // A case this campaign would never run (past its case budget, or another shard's) was not
      // written by it: left alone, neither counted nor listed.
      bool ours = f.index % o_.shard.count == o_.shard.index &&
                  (o_.max_cases < 0 || f.index < o_.max_cases);
      if (!ours) {
        spdlog::warn("resume: ignoring {}: case {} is not one of this campaign's", dir, f.index);
        continue;
      }
      auto it = sum_.buckets.find(f.hash);
      if (it != sum_.buckets.end() && it->second.count > 0) {
        // (A folder the summary names is gone where a kill came between writing a smaller case's
        // folder for another root cause and saving the summary.)
        if (!exists(it->second.finding_dir)) it->second.finding_dir = dir;
        continue;
      }
      if (schedule_.IsDone(f.index) && !adopted.count(f.index))
        continue;  // counted in the summary already
      BucketStats& b = sum_.buckets[f.hash];
      b = {f.signature, f.headline, dir, 1, f.index, f.seed, f.found_s, {f.seed}, f.known};
      b.unclaimed = f.unclaimed;
      b.root_class = f.root_class;
      b.standalone = f.standalone;
      b.first_focus = f.focus;
      // The folder's root cause is the reduced case's, where it differs from the bucket's own.
      if (IsFoldedRootCause(f.root_cause))
        b.folded = f.root_cause;
      else if (f.root_cause != f.signature)
        b.reduced_signature = f.root_cause;
      if (adopted.insert(f.index).second) {
        schedule_.MarkDone(f.index);
        ++sum_.cases;
        ++sum_.diverging_cases;
        if (steering_)
          steering_->Record(f.index, FindFocus(f.focus).value_or(0),
                            {f.rewrites.begin(), f.rewrites.end()}, 0,
                            b.Class().filing == Filing::kFilable ? std::vector<std::string>{f.hash}
                                                                 : std::vector<std::string>{});
      }
      spdlog::info("resume: adopted finding {} (case {}) written after the last checkpoint", f.hash,
                   f.index);
    }
    // A folder its own bucket no longer leads to (a kill came before the old one was removed).
    for (const auto& f : found) {
      auto it = sum_.buckets.find(f.hash);
      if (it != sum_.buckets.end() && it->second.count > 0 &&
          it->second.finding_dir != "findings/" + f.folder)
        DropIfUnused("findings/" + f.folder);
    }
  }

  Status Run() {
    start_ = std::chrono::steady_clock::now();
    {
      // At once, before any case: a resume (its count, what it adopted) survives a kill that comes
      // before the first periodic save.
      std::lock_guard<std::mutex> lock(mu_);
      Refresh();
      if (Status s = SaveLocked(); !s.ok()) return s;
    }
    std::vector<std::thread> threads;
    for (size_t j = 0; j < workers_.size(); ++j)
      threads.emplace_back([this, j] { Job(*workers_[j]); });
    Progress progress(o_.progress_line);
    {
      std::unique_lock<std::mutex> lock(mu_);
      auto last_save = std::chrono::steady_clock::now();
      while (finished_threads_ < threads.size()) {
        if (done_cv_.wait_for(lock, std::chrono::milliseconds(500),
                              [&] { return finished_threads_ == threads.size(); }))
          break;
        Refresh();
        progress.Update(Snapshot());
        if (std::chrono::steady_clock::now() - last_save >= std::chrono::seconds(1)) {
          if (Status s = SaveLocked(); !s.ok()) error_ = s;
          last_save = std::chrono::steady_clock::now();
        }
      }
    }
    for (auto& t : threads) t.join();
    progress.Finish();
    std::lock_guard<std::mutex> lock(mu_);
    Refresh();
    if (Status s = SaveLocked(); !s.ok()) return s;
    if (error_.ok() && !sum_.worker_failure.empty())
      return Status::Error(sum_.worker_failure + "\nthe campaign stopped after " +
                           std::to_string(sum_.cases) + " cases; " + summary_path_ +
                           " keeps what it found, and once the cause is fixed `mmdiff fuzz "
                           "--resume " +
                           o_.out_dir + "` continues");
    return error_;
  }

  const FuzzSummary& summary() const { return sum_; }

 private:
  double Elapsed() const {
    return elapsed_before_ +
           std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }

  ProgressSnapshot Snapshot() const {
    return {sum_.cases,
            sum_.diverging_cases,
            static_cast<int64_t>(sum_.buckets.size()),
            sum_.restarts,
            Elapsed(),
            o_.time_s,
            sum_.cases - cases_at_start_};
  }

  // Worker counters into the summary (they only grow).
  void Refresh() {
    int restarts = 0, recycles = 0;
    for (Supervisor* w : workers_) {
      restarts += w->restarts();
      recycles += w->recycles();
    }
    sum_.restarts = restarts_before_ + restarts;
    sum_.recycles = recycles_before_ + recycles;
    sum_.elapsed_s = Elapsed();
  }

  Status SaveLocked() {
    sum_.done_below = schedule_.done_below();
    sum_.done_extra = schedule_.done_extra();
    if (steering_) sum_.steering = steering_->ToJson();
    if (!error_.ok()) return error_;
    auto start = std::chrono::steady_clock::now();
    Status s = WriteFileAtomic(summary_path_, SummaryToJson(sum_, o_).dump(2) + "\n");
    sum_.profile.store_s += SecondsSince(start);
    return s;
  }

  // The next case to run; with steering, it waits until the case's odds are known (its epoch's
  // barrier, src/campaign/steering.h), and hands out its focus.
  bool NextCase(int64_t* index, size_t* focus) {
    std::unique_lock<std::mutex> lock(mu_);
    for (;;) {
      if (g_stop) {
        if (!sum_.interrupted) spdlog::warn("interrupted: stopping after the cases under way");
        sum_.interrupted = true;
        return false;
      }
      if (!error_.ok() || !sum_.worker_failure.empty() || Elapsed() >= o_.time_s) return false;
      *focus = 0;
      if (!steering_) return schedule_.Next(index);
      int64_t next;
      if (!schedule_.Peek(&next)) return false;
      if (steering_->Ready(next, schedule_.done_below(), o_.max_cases)) {
        *focus = steering_->FocusOf(next);
        return schedule_.Next(index);
      }
      auto waiting = std::chrono::steady_clock::now();
      case_done_cv_.wait_for(lock, std::chrono::milliseconds(200));
      sum_.profile.steer_wait_s += SecondsSince(waiting);
    }
  }

  void Job(Supervisor& sup) {
    int64_t index;
    size_t focus;
    while (NextCase(&index, &focus)) RunCase(sup, index, focus);
    std::lock_guard<std::mutex> lock(mu_);
    ++finished_threads_;
    done_cv_.notify_all();
  }

  // A case's counts go into the summary together with marking it done, so that a summary saved at
  // any moment counts exactly the cases a resume will not run again. `buckets`: one per finding;
  // `finds`: the keys of those filed as bugs, the yield scheduler's reward; `spend_s`: the seconds
  // the case took before its findings' work.
  void CountDone(const CaseRun& c, const InputStats& inputs, int64_t index, size_t focus,
                 const std::vector<BucketStats*>& buckets,
                 const std::vector<std::vector<std::string>>& ops,
                 const std::set<std::string>& reached, double spend_s = 0,
                 const std::vector<std::string>& finds = {}) {
    ++sum_.cases;
    if (steering_) steering_->Record(index, focus, reached, spend_s, finds);
    sum_.rewrites.AddProgram(reached, index, o_.seed + static_cast<uint64_t>(index), Elapsed());
    sum_.inputs += inputs;
    for (const auto& r : c.results) {
      sum_.skipped_paths += r.kind == OutcomeKind::kUnsupported;
      // Counted, never silent: a cuda program on a machine without a GPU checks nothing but the
      // reference's contract.
      if (r.path == kEagerPath && r.kind == OutcomeKind::kUnsupported &&
          r.unsupported == UnsupportedReason::kNoGpu)
        ++sum_.cuda_cases_without_gpu;
    }
    if (!buckets.empty()) ++sum_.diverging_cases;
    for (size_t i = 0; i < buckets.size(); ++i) {
      BucketStats* b = buckets[i];
      ++b->count;
      if (b->first_index == index) {
        b->rewrites.assign(reached.begin(), reached.end());
        b->first_focus = steering_ ? std::string(Foci()[focus].name) : "";
      }
      AddExample(*b, o_.seed + static_cast<uint64_t>(index));
      for (const auto& op : i < ops.size() ? ops[i] : std::vector<std::string>{}) {
        auto at = std::lower_bound(b->ops_seen.begin(), b->ops_seen.end(), op);
        if ((at == b->ops_seen.end() || *at != op) && b->ops_seen.size() < kMaxOpsSeen)
          b->ops_seen.insert(at, op);
      }
    }
    schedule_.MarkDone(index);
    case_done_cv_.notify_all();
  }

  // A case is one program checked on up to inputs_per_program inputs in a row (compile once, run
  // many), until one diverges: that input is the case's finding.
  void RunCase(Supervisor& sup, int64_t index, size_t focus) {
    const bool stop_before = g_stop;
    const int faults_before = sup.faults();
    uint64_t case_seed = o_.seed + static_cast<uint64_t>(index);
    CampaignProfile prof;
    auto generating = std::chrono::steady_clock::now();
    const GenPolicy policy = Focused(o_.policy, focus);
    GeneratedCase gc = GenerateCaseFromSeed(case_seed, policy);
    prof.generate_s += SecondsSince(generating);
    // A program the IR rejects is a bug of the generator: said and counted as a case that checked
    // nothing, never a crash of the campaign.
    if (Status valid = Verify(gc.program); !valid.ok()) {
      spdlog::error(
          "case {} (seed {}, focus {}): the generator made a program the IR rejects, a bug of "
          "mmdiff: {}",
          index, case_seed, Foci()[focus].name, valid.message());
      std::lock_guard<std::mutex> lock(mu_);
      CountDone(CaseRun{}, InputStats{}, index, focus, {}, {}, {});
      return;
    }
    prof.training_programs += Trains(gc.program);
    std::vector<std::string> paths =
        CasePaths(o_.paths, o_.variants, policy, gc.program, case_seed,
                  [&](const std::string& path) { return sup.Traits(path); });
    CaseRun c;
    InputStats inputs;
    bool rejects = false;  // the program's contract verdict, known after its first input
    auto same_contract = [&](const Program& q) { return Expect(q).rejects == rejects; };
    // The workers' runs are timed apart from judging; their results give the paths' own seconds.
    PathRunner run = [&](const Program& q, const InputRecipe& r, const std::vector<std::string>& ps,
                         bool fresh) {
      const double ran_before = prof.run_s;
      std::vector<PathResult> results =
          Timed(sup, prof, &CampaignProfile::run_s, [&] { return sup.Run(q, r, ps, fresh); });
      prof.AddRuns(results);
      if (Trains(q)) prof.training_run_s += prof.run_s - ran_before;
      return results;
    };
    const StagePlan plan = PlanStages(paths, o_.controls);
    // The calls a compiled path compiled for so far (the first input; new sizes): a diverging
    // input's calls before (src/ir/call_sequence.h), which its report records, every rerun
    // replays and the deferred stages run first.
    std::vector<PriorCall> compiled_for;
    std::set<std::string> reached;  // the rewrites its compiled runs reported
    for (int v = 0; v < o_.policy.inputs_per_program; ++v) {
      generating = std::chrono::steady_clock::now();
      InputVariant in =
          MakeInputVariant(gc.program, gc.recipe, case_seed, v, policy, same_contract);
      prof.generate_s += SecondsSince(generating);
      auto judging = std::chrono::steady_clock::now();
      double ran_s = prof.run_s + prof.worker_start_s;
      // The first input starts fresh; the next ones reuse what it compiled, as a user's calls do.
      std::vector<PathResult> results = run(in.program, in.recipe, plan.first, v == 0);
      c = AddControls(run, JudgeRun(run, in.program, in.recipe, std::move(results), compiled_for),
                      plan, paths);
      prof.judge_s +=
          std::max(SecondsSince(judging) - (prof.run_s + prof.worker_start_s - ran_s), 0.0);
      if (CompiledAny(c.results) && compiled_for.size() < kMaxPriorCalls)
        compiled_for.push_back(PriorCallOf(in.program, in.recipe));
      inputs.Add(c.results, in.new_shapes, in.recipe.special > 0);
      AddRewrites(c.results, reached);
      AddLowerings(c.results, reached);
      inputs.ignored_input_reruns += !c.rerun_zeroed.empty();
      if (v == 0) rejects = c.contract.rejects;
      if (c.verdict.diverges() || !MoreInputsMatter(c, v)) break;
    }
    if (rejects) {
      prof.rejected_programs = 1;
      prof.rejected_run_s = prof.run_s;
      prof.rejected_cpp_compile_s = prof.CppCompileSeconds();
    }
    // What the case cost its job, for the yield scheduler: the work on its findings (reduction,
    // checks) is not the focus's price.
    const double spend_s = prof.generate_s + prof.run_s + prof.worker_start_s + prof.judge_s;
    std::unique_lock<std::mutex> lock(mu_);
    if (WorkerFailed(sup, index, case_seed, focus, inputs, faults_before)) return;
    // One divergence, one finding: each of the case's root causes is bucketed on its own, and the
    // case may be the example of several buckets.
    std::vector<FindingKey> findings = CaseFindings(c);
    // A stop that came while the case ran may have reached its paths' own processes (a scheduler
    // signals every process of a job: Inductor's compile workers, the C++ compiler), so a finding
    // of that case is not trusted: the case stays undone, and --resume runs it again.
    if (g_stop && !stop_before && !findings.empty()) {
      spdlog::info("case {} (seed {}) diverged while the campaign was stopping: left to --resume",
                   index, case_seed);
      return;
    }
    std::vector<BucketStats*> buckets;
    std::vector<std::vector<std::string>> ops;
    // The yield scheduler's finds: buckets of a root cause filed as a bug (known or new). A
    // by-design, precision-only or error-class root cause is what a maintainer would close, and a
    // scheduler rewarded by them would spend the campaign on them (15 of the 21 new buckets of a
    // 30-minute 2.15.0 run rewarded by every bucket were such).
    std::vector<std::string> finds;
    for (const FindingKey& k : findings) {
      ops.push_back(FindingOps(WithFinding(c, k)));
      BucketStats* b =
          Finding(sup, WithFinding(c, k), k, index, case_seed, focus, reached, paths, lock);
      if (!b) return;  // the output folder failed: error_ is set
      buckets.push_back(b);
      if (b->Class().filing == Filing::kFilable) finds.push_back(HashHex(k.signature));
    }
    sum_.profile += prof;
    CountDone(c, inputs, index, focus, buckets, ops, reached, spend_s, finds);
    if (!buckets.empty()) Refresh();
  }

  // Whether the case's worker failed it (src/exec/supervisor.h), with the lock held. Workers that
  // cannot work stop the campaign, the case left undone for --resume; a request given up as a
  // worker fault makes the case one that is done but not judged, listed in the summary.
  bool WorkerFailed(Supervisor& sup, int64_t index, uint64_t case_seed, size_t focus,
                    const InputStats& inputs, int faults_before) {
    if (sup.Broken()) {
      if (sum_.worker_failure.empty()) {
        sum_.worker_failure = sup.Failure();
        spdlog::error("stopping the campaign: {}", sum_.worker_failure);
      }
      return true;
    }
    if (sup.faults() == faults_before) return false;
    ++sum_.worker_fault_cases;
    if (sum_.worker_faults.size() < kMaxWorkerFaultCases)
      sum_.worker_faults.push_back({index, case_seed, sup.LastFault()});
    spdlog::warn(
        "case {} (seed {}): its worker failed twice on one request, so the case is not judged "
        "(summary.json \"worker_faults\")",
        index, case_seed);
    CountDone(CaseRun{}, inputs, index, focus, {}, {}, {});
    return true;
  }

  // Records finding `k` of case `index` in its bucket, writing the bucket's folder when this is its
  // smallest case so far. Called and returns with `lock` held; null when writing failed.
  // `paths`: those the case ran (the campaign's, with the case's knob variant), which its
  // reduction and standalone check run again.
  BucketStats* Finding(Supervisor& sup, CaseRun c, const FindingKey& k, int64_t index,
                       uint64_t case_seed, size_t focus, const std::set<std::string>& reached,
                       const std::vector<std::string>& paths, std::unique_lock<std::mutex>& lock) {
    const KnownCause* known = o_.known ? o_.known->Find(k.signature) : nullptr;
    if (known) c.known = known->Record(o_.known->torch());
    // An entry that expects this divergence on other releases only: new, and listed first.
    if (!known && o_.known) c.unclaimed = o_.known->Unclaimed(k.signature);
    FindingCase fc{HashHex(k.signature),
                   k.signature,
                   "",
                   k.signature,
                   Headline(c),
                   index,
                   case_seed,
                   Elapsed(),
                   c.known};
    fc.unclaimed = c.unclaimed;
    if (steering_) {
      fc.focus = Foci()[focus].name;
      fc.rewrites.assign(reached.begin(), reached.end());
    }
    BucketStats& b = sum_.buckets[fc.hash];
    // Known now, even while another case of the bucket writes its folder; its first time too: a
    // later case of it may be counted while this one is still being reduced.
    if (b.signature.empty()) {
      b.signature = fc.signature;
      b.headline = fc.headline;
      b.known = fc.known;
      b.unclaimed = fc.unclaimed;
      b.first_found_s = fc.found_s;
    }
    // The bucket's report is always its smallest case index, whatever order the jobs finish in, so
    // that shards and job counts give the same reports.
    // A bucket has its first case once its folder is written, before that case is counted: the
    // case may have other findings still being reduced, its CountDone comes after them all.
    auto claim = claims_.find(fc.hash);
    const bool written = b.count > 0 || !b.finding_dir.empty();
    int64_t first = claim != claims_.end() ? claim->second : INT64_MAX;
    if (written && b.first_index < first) first = b.first_index;
    if (index > first) return &b;
    claims_[fc.hash] = index;
    if (!written && claim == claims_.end())
      spdlog::info("{} bucket {} after {:.1f} s (case seed {}): {}",
                   known       ? "known"
                   : IsBack(b) ? "new (a catalogued bug back, or a fix's miss)"
                               : "new",
                   fc.hash, fc.found_s, case_seed, fc.headline);
    // Write the folder unless a smaller case of the same bucket claims it meanwhile.
    write_cv_.wait(lock, [&] { return !writing_.count(fc.hash); });
    if (claims_[fc.hash] != index) return &b;
    writing_.insert(fc.hash);
    lock.unlock();
    std::optional<ReducedFinding> reduced;
    CampaignProfile prof;
    std::map<std::string, std::string> stage_signatures;  // the ablation's, by path
    // A known root cause's time goes to new behaviour instead, unless asked.
    if (!known || o_.reduce_known) {
      // A new inductor value finding: do the knobs remove it?
      c.mitigations =
          Timed(sup, prof, &CampaignProfile::mitigations_s, [&] { return TryMitigations(sup, c); });
      // Which of torch.compile's stages diverges first.
      if (o_.ablation)
        c.ablation = Timed(sup, prof, &CampaignProfile::ablation_s,
                           [&] { return RunAblation(sup, c, &stage_signatures); });
      if (o_.reduce_budget > 0) {
        ReduceFindingOptions ro;
        ro.reduce.max_predicate_calls = o_.reduce_budget;
        ro.controls = o_.controls;
        double until = Elapsed() + o_.reduce_time_s;
        ro.keep_going = [this, until] {
          return !g_stop && Elapsed() < o_.time_s && Elapsed() < until;
        };
        reduced = Timed(sup, prof, &CampaignProfile::reduce_s,
                        [&] { return ReduceFinding(sup, c, paths, ro); });
        if (reduced->reduction.steps_kept > 0) {
          reduced->run.known = c.known;
          reduced->run.unclaimed = c.unclaimed;
          spdlog::info("bucket {}: {}", fc.hash, ReductionSummary(*reduced));
        } else if (reduced->stopped_early) {
          spdlog::info(
              "bucket {}: out of time before any smaller case kept the bucket; the report holds "
              "the case "
              "as found",
              fc.hash);
        }
      }
    }
    // Reduce first, then sign: the folder is the root cause's, which buckets that reduce alike
    // share.
    bool kept = reduced && reduced->reduction.steps_kept > 0;
    // A reduced case that emulate_precision_casts removes stands for no case as found that the
    // knob leaves diverging (seen on 2.15.0: a float16 linear whose knob run diverged at another
    // element reduced to an mm the knob fixes): the folder keeps the case as found.
    if (kept && FoldsOnlyReduced(fc.signature, c.mitigations, reduced->signature,
                                 reduced->run.mitigations)) {
      spdlog::info(
          "bucket {}: its reduced case is one that emulate_precision_casts removes and the case "
          "as found is not; the report keeps the case as found",
          fc.hash);
      reduced.reset();
      kept = false;
    }
    // A documented behaviour is one root cause whatever the op (oracles/root_cause_fold.h),
    // perhaps a catalogued one.
    const std::string folded = FoldedRootCause(kept ? reduced->signature : fc.signature,
                                               kept ? reduced->run.mitigations : c.mitigations);
    if (const KnownCause* now =
            !folded.empty() && !known && o_.known ? o_.known->Find(folded) : nullptr) {
      known = now;
      c.known = fc.known = now->Record(o_.known->torch());
      if (kept) reduced->run.known = c.known;
      spdlog::info("bucket {}: a known documented behaviour ({})", fc.hash, folded);
    }
    fc.root_cause = !folded.empty() ? folded : kept ? reduced->signature : fc.signature;
    // A knob variant's finding that a variant with fewer of its knobs shows alike is that one's.
    const std::string lowered = LowerToBaseVariant(fc.root_cause, fc.signature, stage_signatures);
    const bool to_base = lowered != fc.root_cause;
    if (to_base) {
      spdlog::info("bucket {}: the ablation shows it with fewer knobs: {}", fc.hash, lowered);
      fc.root_cause = lowered;
    }
    // A case that reduces (or a variant's finding that lowers) to a catalogued root cause is that
    // known behaviour, reached from incidental details the reduction removed (seen on 2.15.0: a
    // float16 inductor mv finding whose reduced case signs like the catalogued bfloat16 one).
    if (const KnownCause* now =
            (kept || to_base) && !known && o_.known ? o_.known->Find(fc.root_cause) : nullptr) {
      known = now;
      c.known = fc.known = now->Record(o_.known->torch());
      if (kept) reduced->run.known = c.known;
      spdlog::info("bucket {}: its {} is a known root cause", fc.hash,
                   kept ? "reduced case" : "base variant's finding");
    }
    // Known now, or matched by an entry only as the root cause it reduces to.
    if (known)
      c.unclaimed.reset();
    else if (!c.unclaimed && o_.known)
      c.unclaimed = o_.known->Unclaimed(fc.root_cause);
    fc.unclaimed = c.unclaimed;
    if (kept) reduced->run.unclaimed = c.unclaimed;
    // Reproduced before reported: a new root cause's case (the reduced one, where kept) is run
    // again on its own, and its repro.py; the record goes into both reports.
    if (!known && o_.standalone_check && !g_stop) {
      StandaloneRecord check = Timed(sup, prof, &CampaignProfile::standalone_s, [&] {
        return CheckStandalone(sup, kept ? reduced->run : c, paths, ctx_, o_.standalone);
      });
      // A stop that came meanwhile may have reached repro.py (a scheduler signals every process
      // of the job): what the check saw is not evidence either way.
      if (g_stop) check = {0, 0, 0, 0, -1, "the campaign stopped during the check"};
      spdlog::info("bucket {}: {}", fc.hash, StandaloneLine(check));
      c.standalone = check;
      if (kept) reduced->run.standalone = check;
    } else if (!known) {
      c.standalone = StandaloneRecord{};  // not checked
      c.standalone->detail = g_stop ? "the campaign was stopping" : "checks were turned off";
      if (kept) reduced->run.standalone = c.standalone;
    }
    fc.folder = HashHex(fc.root_cause);
    // Its headline as its report gives it: with the class the mitigation reruns decided.
    fc.headline = Headline(c);
    lock.lock();
    auto storing = std::chrono::steady_clock::now();
    Status w = StoreLocked(fc, c, reduced ? &*reduced : nullptr, lock);
    prof.store_s += SecondsSince(storing);
    sum_.profile += prof;
    writing_.erase(fc.hash);
    write_cv_.notify_all();
    if (!w.ok()) {
      error_ = w;
      return nullptr;
    }
    if (claims_[fc.hash] == index) claims_.erase(fc.hash);
    if (b.count == 0) {
      b.signature = fc.signature;
      b.headline = fc.headline;
    }
    b.known = fc.known;
    b.unclaimed = fc.unclaimed;
    b.first_index = index;
    b.first_seed = case_seed;
    std::string before = b.finding_dir;
    b.finding_dir = "findings/" + fc.folder;
    // The folder's root cause where it is not the bucket's own (a folded one is kept apart): the
    // reduced case's, perhaps lowered to a variant with fewer knobs.
    b.reduced_signature = kept ? reduced->signature : "";
    if (folded.empty() && fc.root_cause != fc.signature) b.reduced_signature = fc.root_cause;
    b.folded = folded;
    b.reduced_headline = kept ? Headline(reduced->run) : "";
    b.root_class = CaseClass(kept ? reduced->run : c);
    b.standalone = c.standalone;
    // A smaller case of the bucket that reduced to another root cause leaves the old folder to
    // the buckets that still lead there, if any.
    if (!before.empty() && before != b.finding_dir) DropIfUnused(before);
    // A new bucket is never only in memory. (Its count comes with the case's CountDone; a summary
    // saved before that leaves out a bucket whose count is still 0, and a resume adopts the
    // folder.)
    Refresh();
    if (Status s = SaveLocked(); !s.ok()) error_ = s;
    return &b;
  }

  // Writes the root cause's folder with this case unless a case with a smaller index (of any
  // bucket that reduced to it) is there already: a folder holds the smallest case of its root
  // cause, whatever order the jobs finish in. Called and returns with `lock` held.
  Status StoreLocked(const FindingCase& fc, const CaseRun& c, const ReducedFinding* reduced,
                     std::unique_lock<std::mutex>& lock) {
    write_cv_.wait(lock, [&] { return !storing_.count(fc.folder); });
    auto held = folder_index_.find(fc.folder);
    if (held != folder_index_.end() && held->second <= fc.index) return Status::Ok();
    storing_.insert(fc.folder);
    lock.unlock();
    Status w = StoreFinding(o_.out_dir, fc, c, ctx_, reduced);
    lock.lock();
    storing_.erase(fc.folder);
    write_cv_.notify_all();
    if (w.ok()) folder_index_[fc.folder] = fc.index;
    return w;
  }

  // Removes a finding folder no bucket leads to (and none is about to). With the lock held.
  void DropIfUnused(const std::string& dir) {
    for (const auto& [hash, b] : sum_.buckets)
      if (b.finding_dir == dir) return;
    std::string folder = fs::path(dir).filename().string();
    if (storing_.count(folder)) return;
    folder_index_.erase(folder);
    DropFinding(o_.out_dir, folder);
  }

  const FuzzOptions& o_;
  std::vector<Supervisor*> workers_;
  const RunContext& ctx_;
  FuzzSummary sum_;
  CaseSchedule schedule_;
  std::string summary_path_;
  double elapsed_before_;
  int restarts_before_ = sum_.restarts, recycles_before_ = sum_.recycles;
  int64_t cases_at_start_ = sum_.cases;
  std::chrono::steady_clock::time_point start_;
  std::mutex mu_;
  std::condition_variable done_cv_, write_cv_;
  std::condition_variable case_done_cv_;  // a case was marked done (steering's barrier)
  std::optional<Steering> steering_;
  std::set<std::string> writing_;                // buckets whose case is being reduced and written
  std::set<std::string> storing_;                // finding folders being written
  std::map<std::string, int64_t> folder_index_;  // finding folder -> the case index it holds
  std::map<std::string, int64_t> claims_;  // bucket -> the smallest case index about to write it
  size_t finished_threads_ = 0;
  Status error_ = Status::Ok();
};

}  // namespace

Result<FuzzSummary> RunFuzz(const FuzzOptions& o, const std::vector<Supervisor*>& workers,
                            const RunContext& ctx, FuzzSummary start) {
  Status s = MakeWritableDir(o.out_dir);
  if (!s.ok()) return s;
  start.interrupted = false;  // (a stop requested before this point still counts)
  Campaign campaign(o, workers, ctx, std::move(start));
  campaign.Adopt(RecoverFindings(o.out_dir));
  if (Status r = campaign.Run(); !r.ok()) return r;
  return campaign.summary();
}

}  // namespace mmdiff
