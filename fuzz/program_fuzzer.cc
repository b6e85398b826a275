// libFuzzer target: the program fuzzer. An input is a test case as JSON ({"program", "inputs"},
// what `mmdiff gen --case` prints and `mmdiff run` reads) or, failing that, choice bytes for the
// generator. Each case runs through the paths in a worker process (LibTorch never enters this
// binary) and is judged; a divergence in a bucket not seen before writes its finding and aborts,
// so libFuzzer keeps the input as a crash artifact. Mutation and crossover use mmdiff's IR
// mutator, so that mutated inputs stay meaningful programs, and what torch did (by default: per
// path its outcome and error class; the contract rule and, for a rejected program, its rejection
// site with operand dtypes and devices; divergence kinds and blame; the bucket; what a compiled
// path chose) is fed back to libFuzzer as extra counters, besides edge coverage of mmdiff's own
// code.
//
// Environment: MMDIFF_WORKER (the mmdiff-worker of a torch build; default: build/ of this
// checkout), MMDIFF_FUZZ_PATHS (default reference,eager,inductor), MMDIFF_FUZZ_TEST_PATHS=1 (offer
// the test-only paths), MMDIFF_FUZZ_KNOWN (a file of bucket hashes not to stop on, one per line),
// MMDIFF_FUZZ_OUT (where findings go; default fuzz-findings), MMDIFF_FUZZ_FEEDBACK=0 (edge coverage
// only; =fine, =coarse, =buckets, =sites: those behaviour feature sets, src/report/behaviour.h;
// default 1 = sites, which keeps more distinct behaviours than edges alone and as many buckets),
// MMDIFF_FUZZ_TIMEOUT (seconds per path stage, default 120), MMDIFF_FUZZ_STOP_ON=any (stop
// on every new bucket; by default only on buckets involving a path other than reference, eager and
// eager_meta: eager's own inconsistencies are written to MMDIFF_FUZZ_OUT and fuzzing goes on;
// =never: never stop, for measurements), MMDIFF_FUZZ_DUMP (a file to append each executed input's
// bucket and behaviour features to, for scripts/bench-feedback), MMDIFF_FUZZ_REDUCE (candidate runs
// to reduce each new bucket's case with before it is signed, default 50; 0: off) and
// MMDIFF_FUZZ_REDUCE_TIME (seconds for all the new buckets of one input; default 60, or half of
// libFuzzer's -timeout when that is shorter, since the reduction runs inside the input that found
// the bucket).
//
// A finding is written once per root cause, to MMDIFF_FUZZ_OUT/<root cause hash>/: its case, and in
// reduced/ the reduced case that signs it. A new bucket whose case reduces to a root cause already
// written (a multi-op program whose divergence is one op's, a behaviour reached through another op
// family) is not new: it is reported on stderr, not written, and does not stop the run.
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <string>

#include "mmdiff/build_info.h"
#include "oracles/judge.h"
#include "src/campaign/reduce_finding.h"
#include "src/exec/supervisor.h"
#include "src/gen/fuzz_input.h"
#include "src/gen/mutator.h"
#include "src/report/behaviour.h"
#include "src/report/bucket.h"
#include "src/report/known.h"
#include "src/report/report.h"
#include "src/report/run_case.h"
#include "src/support/hash.h"

extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size);

namespace {

using namespace mmdiff;

// libFuzzer's extra counters: one byte per behaviour feature (hashed into the array).
constexpr size_t kFeatureSlots = 1 << 16;
__attribute__((used, section("__libfuzzer_extra_counters"))) uint8_t g_features[kFeatureSlots];

struct State {
  std::unique_ptr<Supervisor> sup;
  std::vector<std::string> paths;
  std::set<std::string> known;  // bucket hashes already written (MMDIFF_FUZZ_KNOWN, then found)
  std::set<std::string> roots;  // root-cause hashes written (each a folder of MMDIFF_FUZZ_OUT)
  int reduce_budget = 50;       // MMDIFF_FUZZ_REDUCE
  double reduce_time_s = 60;    // MMDIFF_FUZZ_REDUCE_TIME
  // Known behaviours (MMDIFF_FUZZ_CATALOGUE: comma-separated files or folders, default the source
  // tree's corpus/regression, "none" for none): their findings are written and marked known, and
  // never stop the run.
  std::unique_ptr<KnownCatalogue> catalogue;
  std::string out_dir = "fuzz-findings";
  std::optional<FeatureSet> feedback = FeatureSet::kSites;  // none: edge coverage only
  std::string stop_on = "compiled";                         // compiled | any | never
  FILE* dump = nullptr;  // MMDIFF_FUZZ_DUMP: each input's bucket and features
  GenPolicy policy;
  RunContext ctx;
};
State* g = nullptr;

std::string Env(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v && *v ? v : fallback;
}

[[noreturn]] void Fatal(const std::string& message) {
  std::fprintf(stderr, "program_fuzzer: %s\n", message.c_str());
  std::exit(2);
}

// A whole number in [0, max] from the environment, or `fallback` when unset.
int NonNegative(const char* name, int fallback, int max) {
  std::string v = Env(name, "");
  if (v.empty()) return fallback;
  char* end = nullptr;
  errno = 0;
  long n = std::strtol(v.c_str(), &end, 10);
  if (errno != 0 || *end != '\0' || n < 0 || n > max)
    Fatal(std::string(name) + " must be a whole number from 0 to " + std::to_string(max) +
          ", not \"" + v + "\"");
  return static_cast<int>(n);
}

// A new bucket's case reduced (src/campaign/reduce_finding.h) within MMDIFF_FUZZ_REDUCE runs and
// until `until`; none when reduction is off or the finding is a catalogued one.
std::optional<ReducedFinding> Reduce(const CaseRun& f,
                                     std::chrono::steady_clock::time_point until) {
  if (g->reduce_budget == 0 || f.known) return std::nullopt;
  ReduceFindingOptions ro;
  ro.reduce.max_predicate_calls = g->reduce_budget;
  ro.keep_going = [until] { return std::chrono::steady_clock::now() < until; };
  return ReduceFinding(*g->sup, f, g->paths, ro);
}

// The case an input stands for (src/gen/fuzz_input.h, shared with `mmdiff replay`).
GeneratedCase Decode(const uint8_t* data, size_t size) {
  return DecodeFuzzInput({reinterpret_cast<const char*>(data), size}, g->policy).gc;
}

// What torch did (src/report/behaviour.h) as extra counters, and into the dump file when one is
// set: a line "input <bucket hash, or - when the paths agree>", then "feature <f>" for each fine
// feature and "coarse <f>" for each coarse one, whichever set the feedback uses, and "site <s>"
// where the contract rejects the program (its rejection site, src/report/bucket.h).
void RecordBehaviour(const CaseRun& c, const std::string& bucket) {
  if (g->feedback)
    for (const auto& f : BehaviourFeatures(c, *g->feedback))
      g_features[std::hash<std::string>{}(f) % kFeatureSlots] = 1;
  if (!g->dump) return;
  std::fprintf(g->dump, "input %s\n", bucket.empty() ? "-" : bucket.c_str());
  for (const auto& f : BehaviourFeatures(c, FeatureSet::kFine))
    std::fprintf(g->dump, "feature %s\n", f.c_str());
  for (const auto& f : BehaviourFeatures(c, FeatureSet::kCoarse))
    std::fprintf(g->dump, "coarse %s\n", f.c_str());
  if (c.contract.rejects)
    std::fprintf(g->dump, "site %s\n", RejectionSite(c.program, c.contract).c_str());
  std::fflush(g->dump);  // libFuzzer may leave with _Exit
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  g = new State;  // never freed: workers must outlive every input
  int reduce_time = 60;
  for (int i = 1; i < *argc; ++i)
    if (std::strncmp((*argv)[i], "-timeout=", 9) == 0) {
      int timeout = std::atoi((*argv)[i] + 9);
      if (timeout > 0) reduce_time = std::min(reduce_time, std::max(1, timeout / 2));
    }
  std::string feedback = Env("MMDIFF_FUZZ_FEEDBACK", "1");
  if (feedback == "0")
    g->feedback.reset();
  else if (feedback == "fine")
    g->feedback = FeatureSet::kFine;
  else if (feedback == "coarse")
    g->feedback = FeatureSet::kCoarse;
  else if (feedback == "buckets")
    g->feedback = FeatureSet::kBuckets;
  else if (feedback != "1" && feedback != "sites")
    Fatal("MMDIFF_FUZZ_FEEDBACK must be 0, 1 (= sites), fine, coarse, buckets or sites, not \"" +
          feedback + "\"");
  g->out_dir = Env("MMDIFF_FUZZ_OUT", g->out_dir);
  g->reduce_budget = NonNegative("MMDIFF_FUZZ_REDUCE", 50, 100000);
  g->reduce_time_s = NonNegative("MMDIFF_FUZZ_REDUCE_TIME", reduce_time, 86400);
  g->stop_on = Env("MMDIFF_FUZZ_STOP_ON", g->stop_on);
  if (g->stop_on != "compiled" && g->stop_on != "any" && g->stop_on != "never")
    Fatal("MMDIFF_FUZZ_STOP_ON must be compiled, any or never, not \"" + g->stop_on + "\"");
  if (std::string dump = Env("MMDIFF_FUZZ_DUMP", ""); !dump.empty()) {
    g->dump = std::fopen(dump.c_str(), "a");
    if (!g->dump) Fatal("cannot open MMDIFF_FUZZ_DUMP file " + dump + ": " + std::strerror(errno));
  }
  SupervisorOptions so;
  so.worker_binary = Env("MMDIFF_WORKER", MMDIFF_DEFAULT_WORKER);
  if (access(so.worker_binary.c_str(), X_OK) != 0)
    Fatal("no worker at " + so.worker_binary +
          " (build the main build with scripts/setup, or set MMDIFF_WORKER)");
  if (Env("MMDIFF_FUZZ_TEST_PATHS", "0") == "1") so.worker_args.push_back("--test-paths");
  so.stage_timeout_s = std::atof(Env("MMDIFF_FUZZ_TIMEOUT", "120").c_str());
  so.log_path = Env("MMDIFF_FUZZ_WORKER_LOG", "");
  g->sup = std::make_unique<Supervisor>(so);
  if (Status s = g->sup->Hello(); !s.ok()) Fatal(s.message());
  std::stringstream list(Env("MMDIFF_FUZZ_PATHS", kFuzzDefaultPaths));
  for (std::string p; std::getline(list, p, ',');) {
    bool offered = false;
    for (const auto& info : g->sup->paths()) offered |= info.name == p && info.available;
    if (!offered)
      Fatal("path \"" + p +
            "\" is not available from this worker (test paths need MMDIFF_FUZZ_TEST_PATHS=1)");
    g->paths.push_back(p);
  }
  if (std::string cat = Env("MMDIFF_FUZZ_CATALOGUE", MMDIFF_SOURCE_DIR "/corpus/regression");
      cat != "none") {
    std::vector<std::string> paths;
    std::stringstream items(cat);
    for (std::string p; std::getline(items, p, ',');)
      if (!p.empty()) paths.push_back(p);
    auto loaded = LoadKnownCatalogue(paths, build_info::kTorchVersion);
    if (!loaded.ok()) Fatal("MMDIFF_FUZZ_CATALOGUE: " + loaded.error());
    g->catalogue = std::make_unique<KnownCatalogue>(std::move(loaded.value()));
  }
  std::ifstream known(Env("MMDIFF_FUZZ_KNOWN", "/dev/null"));
  for (std::string h; known >> h;) g->known.insert(h);
  g->ctx.versions = g->sup->versions();
  g->ctx.knobs = {{"TORCHINDUCTOR_COMPILE_THREADS", "1"},
                  {"driver", "fuzz/program_fuzzer (libFuzzer)"}};
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  GeneratedCase gc = Decode(data, size);
  CaseRun c = RunAndJudge(*g->sup, gc.program, gc.recipe, g->paths);
  auto findings = CaseFindings(c);
  RecordBehaviour(c, findings.empty() ? "" : HashHex(findings[0].signature));
  bool any_new = false, beyond_eager = false;
  // MMDIFF_FUZZ_REDUCE_TIME is the input's, shared by its new buckets: an input with several
  // stays within libFuzzer's -timeout as one with a single bucket does.
  const std::chrono::steady_clock::time_point until =
      std::chrono::steady_clock::now() +
      std::chrono::duration_cast<std::chrono::steady_clock::duration>(
          std::chrono::duration<double>(g->reduce_time_s));
  for (const auto& k : findings) {  // one finding per root cause, each in its own bucket
    std::string hash = HashHex(k.signature);
    if (!g->known.insert(hash).second) continue;
    CaseRun f = WithFinding(c, k);
    if (g->catalogue) {
      if (const KnownCause* known = g->catalogue->Find(k.signature))
        f.known = known->Record(g->catalogue->torch());
      else
        f.unclaimed = g->catalogue->Unclaimed(k.signature);
    }
    // Reduce first, then sign: the root cause is the reduced case's (the op that diverges, not the
    // program around it), and it may be a catalogued one reached from elsewhere.
    std::optional<ReducedFinding> reduced = Reduce(f, until);
    bool kept = reduced && reduced->reduction.steps_kept > 0;
    std::string root = kept ? reduced->signature : k.signature;
    if (kept && g->catalogue)
      if (const KnownCause* known = g->catalogue->Find(root)) {
        f.known = reduced->run.known = known->Record(g->catalogue->torch());
        f.unclaimed = reduced->run.unclaimed = std::nullopt;
      }
    std::string root_hash = HashHex(root);
    if (!g->roots.insert(root_hash).second) {
      std::fprintf(stderr,
                   "program_fuzzer: bucket %s reduces to root cause %s, already written: %s\n",
                   hash.c_str(), root_hash.c_str(), Headline(kept ? reduced->run : f).c_str());
      continue;
    }
    std::string dir = g->out_dir + "/" + root_hash;
    Status w = WriteFinding(dir, f, g->ctx);
    if (w.ok() && kept) w = WriteReducedFinding(dir + "/reduced", *reduced, g->ctx);
    std::fprintf(
        stderr, "program_fuzzer: %s bucket %s: %s\n  finding: %s (%s)\n",
        f.known ? "known"
        : f.unclaimed && f.unclaimed->standing == "back"
            ? "back (a catalogued bug, or a fix's miss)"
            : "new",
        hash.c_str(), Headline(kept ? reduced->run : f).c_str(), dir.c_str(),
        w.ok() ? (kept ? ReductionSummary(*reduced).c_str() : "written") : w.message().c_str());
    any_new = true;
    if (!f.known)
      for (const auto& p : c.verdict.divergences[k.divergence].paths)
        beyond_eager |= p != kReferencePath && p != kEagerPath && p != kEagerMetaPath;
  }
  if (!any_new) return 0;
  if (g->stop_on == "any" || (g->stop_on == "compiled" && beyond_eager))
    std::abort();  // libFuzzer saves this input as a crash artifact
  return 0;
}

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size,
                                          unsigned int seed) {
  GeneratedCase c = Decode(data, size);
  SeededChoices choices(seed);
  Mutation m = Mutate(c.program, choices, g->policy);
  if (choices.Int(0, 7) == 0) c.recipe.seed = choices.Next();  // now and then other values too
  std::string out = EncodeFuzzCase(m.program, c.recipe);
  if (out.size() > max_size) return LLVMFuzzerMutate(data, size, max_size);
  std::memcpy(data, out.data(), out.size());
  return out.size();
}

extern "C" size_t LLVMFuzzerCustomCrossOver(const uint8_t* data1, size_t size1,
                                            const uint8_t* data2, size_t size2, uint8_t* out,
                                            size_t max_out_size, unsigned int seed) {
  GeneratedCase a = Decode(data1, size1), b = Decode(data2, size2);
  SeededChoices choices(seed);
  std::string text = EncodeFuzzCase(CrossOver(a.program, b.program, choices), a.recipe);
  if (text.size() > max_out_size) return 0;
  std::memcpy(out, text.data(), text.size());
  return text.size();
}
