// Fuzz loop.
#include "src/campaign/fuzz_campaign.h"

#include <atomic>
#include <chrono>
#include <filesystem>

#include <spdlog/spdlog.h>

#include "src/campaign/mitigations.h"
#include "src/gen/generator.h"
#include "src/report/bucket.h"
#include "src/support/files.h"
#include "src/support/hash.h"

namespace mmdiff {

namespace {
std::atomic<bool> g_stop{false};
}  // namespace

void RequestFuzzStop() { g_stop = true; }

nlohmann::json SummaryToJson(const FuzzSummary& s, const FuzzOptions& o) {
  nlohmann::json buckets = nlohmann::json::array();
  for (const auto& [hash, b] : s.buckets)
    buckets.push_back({{"hash", hash}, {"signature", b.signature}, {"headline", b.headline},
                       {"finding", b.finding_dir}, {"count", b.count}, {"first_seed", b.first_seed},
                       {"first_found_s", b.first_found_s}});
  return {{"format", "mmdiff.fuzz-summary"}, {"version", 1},   {"seed", o.seed},
          {"cases", s.cases},               {"diverging_cases", s.diverging_cases},
          {"skipped_paths", s.skipped_paths}, {"cuda_cases_without_gpu", s.cuda_cases_without_gpu},
          {"worker_restarts", s.restarts},
          {"elapsed_s", s.elapsed_s},       {"interrupted", s.interrupted},       {"paths", o.paths}, {"buckets", buckets}};
}

Result<FuzzSummary> RunFuzz(const FuzzOptions& o, Supervisor& sup, const RunContext& ctx) {
  namespace fs = std::filesystem;
  Status s = MakeWritableDir(o.out_dir);
  if (!s.ok()) return s;
  FuzzSummary sum;
  auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  std::string summary_path = (fs::path(o.out_dir) / "summary.json").string();
  double last_progress = 0;
  g_stop = false;
  for (int64_t i = 0; (o.max_cases < 0 || i < o.max_cases) && elapsed() < o.time_s; ++i) {
    if (g_stop) {
      sum.interrupted = true;
      spdlog::warn("interrupted: stopping after {} cases", sum.cases);
      break;
    }
    uint64_t case_seed = o.seed + static_cast<uint64_t>(i);
    GeneratedCase gc = GenerateCaseFromSeed(case_seed, o.policy);
    const Program& p = gc.program;
    const InputRecipe& recipe = gc.recipe;
    CaseRun c = MakeCaseRun(p, recipe, sup.Run(p, recipe, o.paths));
    ++sum.cases;
    if (elapsed() - last_progress >= 15) {
      last_progress = elapsed();
      spdlog::info("progress: {} cases in {:.0f} s ({:.2f}/s), {} diverging, {} buckets, {} worker restarts",
                   sum.cases, last_progress, sum.cases / std::max(last_progress, 1e-9), sum.diverging_cases,
                   sum.buckets.size(), sup.restarts());
    }
    for (const auto& r : c.results) {
      sum.skipped_paths += r.kind == OutcomeKind::kUnsupported;
      // Counted, never silent: a cuda program on a machine without a GPU checks nothing but the
      // reference's contract.
      if (r.path == "eager" && r.kind == OutcomeKind::kUnsupported && r.message.find("no GPU") != std::string::npos)
        ++sum.cuda_cases_without_gpu;
    }
    if (!c.verdict.diverges()) continue;
    ++sum.diverging_cases;
    std::string signature = BucketSignature(c.program, c.contract, c.results, c.verdict);
    std::string hash = HashHex(signature);
    BucketStats& b = sum.buckets[hash];
    if (b.count++ == 0) {
      b.signature = signature;
      b.headline = Headline(c);
      b.first_seed = case_seed;
      b.first_found_s = elapsed();
      b.finding_dir = "findings/" + hash;
      c.mitigations = TryMitigations(sup, c);  // a new inductor value finding: do the knobs remove it?
      Status w = WriteFinding((fs::path(o.out_dir) / b.finding_dir).string(), c, ctx);
      if (!w.ok()) return w;
      spdlog::info("new bucket {} after {:.1f} s (case seed {}): {}", hash, b.first_found_s, case_seed, b.headline);
    }
    sum.restarts = sup.restarts();
    sum.elapsed_s = elapsed();
    Status ws = WriteFileAtomic(summary_path, SummaryToJson(sum, o).dump(2) + "\n");
    if (!ws.ok()) return ws;
  }
  sum.restarts = sup.restarts();
  sum.elapsed_s = elapsed();
  Status ws = WriteFileAtomic(summary_path, SummaryToJson(sum, o).dump(2) + "\n");
  if (!ws.ok()) return ws;
  return sum;
}

}  // namespace mmdiff
