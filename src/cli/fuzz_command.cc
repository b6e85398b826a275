// `mmdiff fuzz`: a campaign on parallel workers, resumable, shardable.
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <limits>
#include <map>
#include <memory>
#include <set>
#include <thread>

#include "oracles/root_cause_fold.h"
#include "src/campaign/campaign_start.h"
#include "src/campaign/fuzz_campaign.h"
#include "src/campaign/steering.h"
#include "src/cli/cli_support.h"
#include "src/cli/command_registry.h"
#include "src/cli/subcommand_help.h"
#include "src/gen/focus.h"
#include "src/report/finding_class.h"

namespace mmdiff::cli {

namespace {

struct FuzzArgs {
  CommonOptions common;
  double time_s = 60;
  int64_t cases = -1;
  uint64_t seed = 1;
  std::string out_dir = "mmdiff-out";
  int jobs = 0;  // 0: the number of cores
  std::string shard = "0/1";
  std::string resume;
  int64_t recycle_after = 1000;
  int64_t recycle_growth_mb = 1024;
  int64_t memory_mb = -1;  // -1: a share of the machine's memory
  int64_t reduce_budget = 50;
  double reduce_time_s = 300;
  bool no_reduce = false;
  int inputs_per_program = 0;  // 0: the policy's
  bool time_given = false, cases_given = false, shard_given = false;
  std::string inductor_cache;  // "": in the campaign's folder
  std::vector<std::string> known;
  bool no_known = false, reduce_known = false;
  std::string controls = "divergence";
  bool profile = false;
  bool no_standalone_check = false;
  bool no_ablation = false;
  std::string steer = "auto";
  int64_t steer_epoch = 0;  // 0: the scheduler's own (Steering::kYieldEpochCases or 64)
  std::string variants;     // --variants, when variants_given
  bool variants_given = false;
};

// The cases of a root cause, over its buckets.
int64_t CauseCount(const std::vector<std::pair<std::string, const BucketStats*>>& ordered,
                   const std::string& cause) {
  int64_t count = 0;
  for (const auto& [h, b] : ordered)
    if (b->RootCause() == cause) count += b->count;
  return count;
}

// `text` cut to at most `n` bytes at a space, with "..." where it was cut (a summary line stays one
// screen line or two, and says that it goes on in summary.json).
std::string Clip(const std::string& text, size_t n) {
  if (text.size() <= n) return text;
  size_t at = text.rfind(' ', n - 3);
  return text.substr(0, at == std::string::npos || at < n / 2 ? n - 3 : at) + "...";
}

// "mm, bmm, dot": the ops a root cause's buckets were seen at.
std::string OpsSeen(const std::vector<std::pair<std::string, const BucketStats*>>& ordered,
                    const std::string& cause) {
  std::set<std::string> ops;
  for (const auto& [h, b] : ordered)
    if (b->RootCause() == cause) ops.insert(b->ops_seen.begin(), b->ops_seen.end());
  std::string out;
  for (const auto& op : ops) out += (out.empty() ? "" : ", ") + op;
  return out.empty() ? "?" : out;
}

enum class Section { kBack, kNew, kUnreproduced };

// The new root causes, one line each (with their count, first case and folder): those a
// catalogue entry expects only on other releases (kBack), the other new ones (kNew), or those not
// reproduced standalone (kUnreproduced), with what was tried.
void PrintNewCauses(const std::vector<std::pair<std::string, const BucketStats*>>& ordered,
                    const std::map<std::string, std::vector<std::string>>& by_cause,
                    const std::set<std::string>& unreproduced, Section section,
                    const FuzzOptions& o) {
  std::set<std::string> shown;
  const bool listed = section != Section::kUnreproduced;
  for (const auto& [hash, b] : ordered) {
    if (b->known || unreproduced.count(b->RootCause()) == listed ||
        (listed && IsBack(*b) != (section == Section::kBack)) ||
        !shown.insert(b->RootCause()).second)
      continue;
    const auto& hashes = by_cause.at(b->RootCause());
    int64_t count = CauseCount(ordered, b->RootCause());
    // The root cause's folder holds the smallest case of its buckets, reduced: its headline. A
    // folded root cause is its documented behaviour, with the ops seen.
    // Cut before its class, which stays whole: the class is what a reader decides by.
    std::string headline = b->reduced_headline.empty() ? b->headline : b->reduced_headline;
    const std::string tag = " " + ClassTag(b->Class());
    if (headline.size() > tag.size() &&
        headline.compare(headline.size() - tag.size(), tag.size(), tag) == 0)
      headline = Clip(headline.substr(0, headline.size() - tag.size()), 200) + tag;
    else
      headline = Clip(headline, 200);
    if (IsFoldedRootCause(b->RootCause()))  // the ops before the class: not cut
      headline = FoldedHeadline(b->RootCause()) +
                 "; ops seen: " + OpsSeen(ordered, b->RootCause()) + " " + ClassTag(b->Class());
    std::printf("  [%lld x] [%s] %s\n      first at %.1f s (seed %llu): %s/%s/repro.py\n",
                static_cast<long long>(count),
                std::string(FindingClassTitle(ClassOfRootCause(b->RootCause()))).c_str(),
                headline.c_str(), b->first_found_s, static_cast<unsigned long long>(b->first_seed),
                o.out_dir.c_str(), b->finding_dir.c_str());
    if (hashes.size() > 1) {
      std::string others;
      for (size_t i = 1; i < hashes.size(); ++i) others += (i > 1 ? ", " : "") + hashes[i];
      std::printf(
          "      and %zu more buckets that reduce to the same root cause (one folder): %s\n",
          hashes.size() - 1, others.c_str());
    }
    if (b->unclaimed)
      std::printf("      catalogue: %s (%s) %s\n", b->unclaimed->source.c_str(),
                  Clip(b->unclaimed->title, 120).c_str(), b->unclaimed->why.c_str());
    if (b->standalone &&
        (!listed || StandaloneStatusOf(*b->standalone) != StandaloneStatus::kReproduced))
      std::printf("      %s\n", StandaloneLine(*b->standalone).substr(0, 400).c_str());
  }
}

void PrintSummary(const FuzzSummary& s, const FuzzOptions& o) {
  std::printf("\n=== mmdiff fuzz summary ===\n");
  int64_t runs = s.inputs.compiles + s.inputs.reuses,
          lookups = s.inputs.fx_cache_hits + s.inputs.fx_cache_misses;
  std::printf(
      "inputs checked: %lld (%.1f per program; %lld with new sizes); compiled-path runs: %lld "
      "compiled, %lld "
      "reused a compiled graph (%.0f%%); Inductor FX cache: %lld hits, %lld misses (hit rate %s)\n",
      static_cast<long long>(s.inputs.checked_inputs),
      static_cast<double>(s.inputs.checked_inputs) / std::max<int64_t>(s.cases, 1),
      static_cast<long long>(s.inputs.shape_variants), static_cast<long long>(s.inputs.compiles),
      static_cast<long long>(s.inputs.reuses), runs ? 100.0 * s.inputs.reuses / runs : 0.0,
      static_cast<long long>(s.inputs.fx_cache_hits),
      static_cast<long long>(s.inputs.fx_cache_misses),
      lookups ? (std::to_string(100 * s.inputs.fx_cache_hits / lookups) + "%").c_str() : "n/a");
  if (s.inputs.special_inputs > 0)
    std::printf(
        "inputs with special values: %lld; their %lld reference elements: %lld unjudged (%.2f%%); "
        "rerun with an ignored input zeroed: %lld\n",
        static_cast<long long>(s.inputs.special_inputs),
        static_cast<long long>(s.inputs.special_elements),
        static_cast<long long>(s.inputs.special_unjudged),
        s.inputs.special_elements ? 100.0 * static_cast<double>(s.inputs.special_unjudged) /
                                        static_cast<double>(s.inputs.special_elements)
                                  : 0.0,
        static_cast<long long>(s.inputs.ignored_input_reruns));
  std::printf(
      "cases: %lld in %.1f s (%.2f cases/s over all runs; shard %s, %d jobs); diverging: %lld; "
      "unique "
      "buckets: %zu; worker restarts: %d; recycled: %d; skipped path runs: %lld; cuda programs "
      "skipped for "
      "want of a GPU: %lld\n",
      static_cast<long long>(s.cases), s.elapsed_s, s.cases / std::max(s.elapsed_s, 1e-9),
      ShardText(o.shard).c_str(), o.jobs, static_cast<long long>(s.diverging_cases),
      s.buckets.size(), s.restarts, s.recycles, static_cast<long long>(s.skipped_paths),
      static_cast<long long>(s.cuda_cases_without_gpu));
  auto ordered = OrderedBuckets(s);
  size_t known = std::count_if(ordered.begin(), ordered.end(),
                               [](const auto& x) { return x.second->known.has_value(); });
  // New buckets one line each; buckets whose reduced cases share a root cause under the first.
  // Those not reproduced standalone are listed apart, after them.
  std::map<std::string, std::vector<std::string>> by_cause;
  std::set<std::string> unreproduced = NotReproducedCauses(s);
  for (const auto& [hash, b] : ordered)
    if (!b->known) by_cause[b->RootCause()].push_back(hash);
  std::set<std::string> back;
  size_t back_buckets = 0;
  for (const auto& [hash, b] : ordered)
    if (IsBack(*b) && !unreproduced.count(b->RootCause())) {
      back.insert(b->RootCause());
      ++back_buckets;
    }
  if (!back.empty()) {
    std::printf(
        "known bugs back, or fixes that miss this form: %zu (a catalogue entry expects them on "
        "other torch releases only: reduced and checked as new)\n",
        back.size());
    PrintNewCauses(ordered, by_cause, unreproduced, Section::kBack, o);
  }
  std::printf("new root causes: %zu (in %zu buckets)\n",
              by_cause.size() - unreproduced.size() - back.size(),
              ordered.size() - known - back_buckets);
  PrintNewCauses(ordered, by_cause, unreproduced, Section::kNew, o);
  if (!unreproduced.empty()) {
    std::printf(
        "not reproduced standalone: %zu (their case alone, or their repro.py, did not show the "
        "finding again: not filable as they are)\n",
        unreproduced.size());
    PrintNewCauses(ordered, by_cause, unreproduced, Section::kUnreproduced, o);
  }
  std::set<std::string> known_causes;
  for (const auto& [hash, b] : ordered)
    if (b->known) known_causes.insert(b->RootCause());
  if (known > 0)
    std::printf("known root causes: %zu (in the catalogue: not reduced)\n", known_causes.size());
  // One line per known root cause (a catalogued documented behaviour folds many ops).
  std::set<std::string> known_shown;
  for (const auto& [hash, b] : ordered) {
    if (!b->known || !known_shown.insert(b->RootCause()).second) continue;
    const std::string& upstream = b->known->upstream;
    std::printf("  [%lld x] %s%s%s\n", static_cast<long long>(CauseCount(ordered, b->RootCause())),
                Clip(b->known->title, 200).c_str(),
                upstream.empty() ? "" : (" (" + upstream + ")").c_str(),
                IsFoldedRootCause(b->RootCause())
                    ? ("; ops seen: " + OpsSeen(ordered, b->RootCause())).c_str()
                    : "");
  }
  if (s.interrupted)
    std::printf("(interrupted before the budget was spent: `mmdiff fuzz --resume %s` continues)\n",
                o.out_dir.c_str());
  std::printf("summary: %s/summary.json\n", o.out_dir.c_str());
}

// --shard: "i/N", or "auto" for the task's place in a Slurm job array or Kubernetes Indexed Job.
Result<Shard> ShardOption(const std::string& text) {
  if (text != "auto") return ParseShard(text);
  return ShardFromEnvironment([](const char* name) { return std::getenv(name); });
}

int Fuzz(FuzzArgs a) {
  auto shard = ShardOption(a.shard);
  if (!shard.ok()) {
    std::cerr << "mmdiff fuzz: " << shard.error() << "\n";
    return kExitUsage;
  }
  CampaignStart cs;
  if (!a.resume.empty()) {
    // Everything comes from the campaign's summary; --time/--cases/--jobs replace its own.
    cs.resume = a.resume;
    if (a.shard_given) cs.resume_shard = shard.value();
    if (a.time_given) cs.resume_time_s = a.time_s;
    if (a.cases_given) cs.resume_cases = a.cases;
    cs.resume_jobs = a.jobs;
  } else {
    auto policy = LoadPolicy(a.common.policy_file);
    if (!policy.ok()) {
      std::cerr << "mmdiff fuzz: " << policy.error() << "\n";
      return kExitUsage;
    }
    FuzzOptions& fo = cs.options;
    fo.policy = policy.value();
    if (a.inputs_per_program > 0) fo.policy.inputs_per_program = a.inputs_per_program;
    fo.shard = shard.value();
    fo.seed = a.seed;
    fo.out_dir = a.out_dir;
    fo.max_cases = a.cases;
    // A case budget alone runs until it is spent.
    fo.time_s = a.cases_given && !a.time_given ? std::numeric_limits<double>::infinity() : a.time_s;
    fo.jobs = a.jobs > 0 ? a.jobs
                         : static_cast<int>(std::clamp(std::thread::hardware_concurrency(), 1u,
                                                       static_cast<unsigned>(kMaxJobs)));
    fo.test_paths = a.common.test_paths;
    fo.stage_timeout_s = a.common.timeout_s;
    fo.reduce_budget = a.no_reduce ? 0 : a.reduce_budget;
    fo.reduce_time_s = a.reduce_time_s;
    fo.known_paths = KnownCataloguePaths(a.known, a.no_known);
    fo.reduce_known = a.reduce_known;
    fo.controls = *ParseControlsMode(a.controls);  // CLI11 checked it
    fo.standalone_check = !a.no_standalone_check;
    fo.ablation = !a.no_ablation;
    fo.steer_yield = a.steer != "coverage" && a.steer != "off";
    fo.steer_epoch_cases = a.steer_epoch > 0 ? a.steer_epoch
                           : fo.steer_yield  ? Steering::kYieldEpochCases
                                             : Steering::kDefaultEpochCases;
    cs.path_list = a.common.paths;
    if (a.variants_given) cs.variant_list = a.variants;
    cs.steer = a.steer == "auto"  ? SteerChoice::kAuto
               : a.steer == "off" ? SteerChoice::kOff
                                  : SteerChoice::kOn;
    cs.policy_given = !a.common.policy_file.empty();
  }
  cs.worker_binary = WorkerBinary();
  cs.recycle_after = a.recycle_after;
  cs.recycle_growth_mb = a.recycle_growth_mb;
  cs.memory_mb = a.memory_mb;
  cs.inductor_cache = a.inductor_cache;
  // repro.py of a new finding runs with the interpreter the workers embed (the campaign's venv).
  cs.python = VenvPython();
  cs.progress_line = isatty(STDERR_FILENO);
  CampaignEnd end = StartCampaign(std::move(cs));
  if (end.exit_code != kExitOk) {
    std::cerr << "mmdiff fuzz: " << end.error << "\n";
    return end.exit_code;
  }
  const FuzzOptions& fo = end.options;
  const FuzzSummary& sum = end.summary;
  PrintSummary(sum, fo);
  if (a.profile)
    std::printf(
        "\nwhere the time went (summed over %d jobs; workers started before the "
        "campaign not included):\n%s",
        fo.jobs, ProfileTable(sum.profile, sum.cases, sum.elapsed_s * fo.jobs).c_str());
  if (a.profile)
    std::printf(
        "\nInductor's rewrites the programs reached (summary.json \"rewrites\"; mmdiff "
        "rewrites lists those never reached):\n%s",
        RewriteTable(SummaryRewriteRows(sum), sum.cases).c_str());
  if (const std::string arms = ArmsTableText(sum.steering); a.profile && !arms.empty())
    std::printf(
        "\nthe yield scheduler's arms (summary.json \"steering.arms\"; the filed bugs and "
        "rewrites each found first):\n%s",
        arms.c_str());
  return kExitOk;
}

const CommandRegistrar kFuzz{
    "fuzz", [](CLI::App& app) {
      auto args = std::make_shared<FuzzArgs>();
      auto* c = app.add_subcommand("fuzz",
                                   "Run a fuzz campaign and report each root cause it finds\n"
                                   "Generate and run programs on parallel workers until the time "
                                   "or case budget is spent; one report per root "
                                   "cause (its smallest case; a case with two root causes is the "
                                   "example of two), new root causes listed before "
                                   "those in the known-behaviour catalogue, summary.json kept up "
                                   "to date. Case i of a campaign uses seed + i, so a campaign is "
                                   "reproducible, resumable after a kill (--resume) and splittable "
                                   "into shards (--shard i/N) whose outputs "
                                   "merge (mmdiff triage) into exactly what one machine would find "
                                   "with the same --seed and --cases.");
      c->footer(WithExample("", "fuzz --time 600 --jobs 2 --out camp; mmdiff fuzz --resume camp"));
      // The last of a repeated option wins: scripts/fuzz passes defaults that a user's own may
      // override.
      c->option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
      auto* time_opt =
          c->add_option(
               "--time", args->time_s,
               "Time budget in seconds, in total across resumes (cases already running finish); "
               "default 60, or no limit when only --cases is given")
              ->check(CLI::NonNegativeNumber);
      auto* cases_opt = c->add_option("--cases", args->cases,
                                      "Case budget: case indices 0..N-1 (a shard runs its share of "
                                      "them); default: unlimited")
                            ->check(CLI::NonNegativeNumber);
      c->add_option(
           "--seed", args->seed,
           "Campaign seed: case i uses program and input seed seed + i, so seeds 1 and 2 share all "
           "but one case: campaigns meant to differ need seeds far apart (e.g. 1, 100001, 200001)")
          ->capture_default_str();
      AddOutFolderOption(c, args->out_dir,
                         "the campaign: findings/<root cause>/ (one folder per root cause: buckets "
                         "whose cases reduce to one share it), summary.json, worker logs; it must "
                         "not hold another campaign")
          ->capture_default_str();
      c->add_option("--inputs-per-program", args->inputs_per_program,
                    "Compile once, run many: check each program on up to N inputs in a row (new "
                    "values, and new sizes "
                    "for one dimension through dynamic shapes), each compiled path reusing what it "
                    "compiled for the "
                    "first; stops at the first diverging input, and after the first when no "
                    "compiled path ran (nothing "
                    "to reuse). Default: the policy's inputs_per_program (128)")
          ->check(CLI::Range(1, 1024));
      c->add_option("-j,--jobs", args->jobs,
                    "Parallel workers, at most 256 (default: the number of cores)")
          ->check(CLI::Range(1, kMaxJobs));
      auto* shard_opt =
          c->add_option("--shard", args->shard,
                        "Run shard i of N: the case indices i, i+N, i+2N, ...; `auto`: the "
                        "shard of this task of a Slurm job array (SLURM_ARRAY_TASK_ID among "
                        "SLURM_ARRAY_TASK_COUNT, from the array's first index) or of a Kubernetes "
                        "Indexed Job (JOB_COMPLETION_INDEX of MMDIFF_SHARD_COUNT). With --resume: "
                        "the shard the folder must hold")
              ->capture_default_str();
      c->add_option("--inductor-cache", args->inductor_cache,
                    "Inductor's cache folder (TORCHINDUCTOR_CACHE_DIR of the workers); default: "
                    "inductor-cache/ in the campaign's folder, shared by its jobs and kept across "
                    "--resume. On a cluster, node-local disk (`mmdiff cluster submit` does that); "
                    "also with --resume");
      c->add_option("--resume", args->resume,
                    "Continue the campaign in this folder after an interruption or kill -9, with "
                    "its own options; "
                    "--time, --cases and --jobs given here replace its budget and job count");
      c->add_option("--recycle-after", args->recycle_after,
                    "Replace each worker after this many programs that ran a compiled path (what "
                    "the compilers cache stays in the worker), to contain leaks (0: never)")
          ->capture_default_str();
      c->add_option(
           "--recycle-growth-mb", args->recycle_growth_mb,
           "Also replace a worker once its resident memory has grown by this many MB since it "
           "started "
           "(at most a quarter of --worker-memory-mb; 0: never): programs on the other "
           "paths alone leave little behind, and a worker start (importing torch) costs "
           "seconds")
          ->check(CLI::Range(int64_t{0}, int64_t{1} << 30))
          ->capture_default_str();
      c->add_option(
          "--worker-memory-mb", args->memory_mb,
          "Memory limit of each worker (RLIMIT_DATA); a worker that runs out is recorded as a "
          "crash finding. "
          "Default: 3/4 of the machine's memory shared by the jobs, at least 2048; 0: no limit");
      c->add_option(
           "--reduce-budget", args->reduce_budget,
           "Reduce each new bucket's case with at most this many candidate runs (each "
           "runs the paths its finding is about) "
           "before writing it; the reduced case goes to findings/<root cause>/reduced/, and its "
           "signature names the folder (0: no reduction, folders named by the unreduced case)")
          ->check(CLI::NonNegativeNumber)
          ->capture_default_str();
      c->add_option("--reduce-time", args->reduce_time_s,
                    "Stop reducing a new bucket's case after this many seconds and keep the "
                    "smallest case so far: "
                    "each run of a crash or timeout candidate restarts a worker, and a timeout "
                    "candidate takes --timeout")
          ->check(CLI::PositiveNumber)
          ->capture_default_str();
      c->add_flag("--no-reduce", args->no_reduce,
                  "Do not reduce new buckets (same as --reduce-budget 0)");
      c->add_flag("--profile", args->profile,
                  "At the end, print where the campaign's time went: generation, each path (the "
                  "compiled ones by stage: Dynamo, AOTAutograd, Inductor, the C++ compiler, "
                  "running), judging, worker starts, and the work on new buckets; and the table of "
                  "Inductor's rewrites the programs reached. summary.json always holds both "
                  "(\"profile\", \"rewrites\")");
      auto* known_opt = c->add_option("--known", args->known,
                                      "Catalogue of known behaviours: a regression entry or "
                                      "report, or a folder searched for "
                                      "them (repeatable). A finding whose root cause is in it is "
                                      "counted, written and listed "
                                      "after the new ones with the entry's title, but not reduced "
                                      "or ablated. Default: the "
                                      "source tree's corpus/regression")
                            ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
      c->add_flag("--no-known", args->no_known, "Read no catalogue: every root cause is new")
          ->excludes(known_opt);
      c->add_flag("--no-standalone-check", args->no_standalone_check,
                  "Do not run new root causes again on their own: by default each one's repro.py "
                  "runs in a fresh Python before it is listed as new and, unless that shows the "
                  "finding at once, its case (with the calls before it) runs again in a fresh "
                  "worker; one that does not show the finding there is listed apart, as not "
                  "reproduced standalone. Unchecked ones are listed there too");
      c->add_flag("--no-ablation", args->no_ablation,
                  "Do not run new root causes through torch.compile's stages (compile_eager, "
                  "aot_eager, inductor and its knob variants) to name the first that disagrees "
                  "with eager; each ablation costs a few compiles");
      c->add_flag("--reduce-known", args->reduce_known,
                  "Reduce and ablate known root causes too (they are skipped by default so that "
                  "the time goes to new ones)");
      c->add_option("--controls", args->controls,
                    "When torch.compile's lower stages (compile_eager: Dynamo alone; aot_eager: + "
                    "AOTAutograd) run beside inductor: `divergence` runs them only on an input "
                    "where inductor diverges, to say which stage it starts in (two compiles of "
                    "each program saved; a divergence of the lower stages alone, with inductor "
                    "right, is not looked for); `always` runs them on every input. Without "
                    "inductor among the paths they always run")
          ->check(CLI::IsMember({"divergence", "always"}))
          ->capture_default_str();
      c->add_option(
           "--steer", args->steer,
           "Spend the campaign where it finds: each case generates with a focus, a broad "
           "one (" +
               BroadFocusNames() +
               ") or a target focus (the form of one attention "
               "fusion variant, lowering or freezing pass that the installed torch has, this "
               "CPU can reach and no program has reached yet, tried up to 3 times). `on` "
               "(= `yield`): the yield scheduler, a bandit whose arms are the broad foci and "
               "the target foci's two families (rewrite_targets, deployment_targets), each given a "
               "share of the core-seconds by the "
               "buckets filed as bugs (and, at a fifth of the weight, the rewrites) it found "
               "first per core-second it took, recent epochs counting more, no arm below 2 %; its "
               "choices follow measured seconds, so a rerun of the seed may choose other "
               "foci. `coverage`: the older steering, odds that follow which rewrites each "
               "focus reached, up to 40 % of an epoch to the open targets; reproducible from "
               "the seed whatever the jobs. `off`: the policy as given. `auto`: `on` for a "
               "default campaign: no --policy (the foci would override it), one shard (a "
               "steered shard follows its own finds, so steered shards do not merge into the "
               "one-machine campaign), inductor among the paths. A case's focus comes from the "
               "epochs (--steer-epoch cases each) two or more back, which it waits for; "
               "summary.json \"steering\" holds each arm's spend and finds; `mmdiff gen "
               "--focus` regenerates a case; Inductor's FX graph cache is off. Kept by "
               "--resume")
          ->check(CLI::IsMember({"auto", "on", "yield", "coverage", "off"}))
          ->capture_default_str();
      c->add_option("--steer-epoch", args->steer_epoch,
                    "Cases per steering epoch: shorter reacts sooner, longer waits less. Default: "
                    "16 for the yield scheduler, 64 for coverage steering")
          ->check(CLI::Range(int64_t{1}, int64_t{1000000}));
      auto* variants_opt =
          c->add_option("--variants", args->variants,
                        "Inductor's knob variants a share of the programs also run "
                        "(the policy's variant_rate, each drawn by its w_<variant> weight; a test "
                        "path with no weight, by 1), comma-separated, or `none`. Default: every "
                        "variant the worker offers (`mmdiff paths`) when --paths is not given, "
                        "else none. A variant named in --paths runs on every program instead. "
                        "Kept by --resume");
      AddCommonOptions(c, args->common);
      return std::make_pair(
          c, std::function<int()>([args, time_opt, cases_opt, shard_opt, variants_opt] {
            args->time_given = time_opt->count() > 0;
            args->variants_given = variants_opt->count() > 0;
            args->cases_given = cases_opt->count() > 0;
            args->shard_given = shard_opt->count() > 0;
            return Fuzz(*args);
          }));
    }};

}  // namespace

}  // namespace mmdiff::cli
