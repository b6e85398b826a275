// A root cause's class is decided once and written the same in every artifact a campaign leaves:
// summary.json, report.json, repro.py's first line, triage.md and issue.md (one test per class).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "oracles/case_run_test_cases.h"
#include "oracles/root_cause_fold.h"
#include "src/campaign/finding_store.h"
#include "src/campaign/fuzz_campaign.h"
#include "src/report/report.h"
#include "src/support/files.h"
#include "src/support/hash.h"
#include "src/triage/triage.h"

namespace mmdiff {
namespace {

namespace fs = std::filesystem;
using case_test::BiasAdd;
using case_test::Classify;
using case_test::kAddmmFused;

std::string Text(const fs::path& p) {
  auto t = ReadFile(p.string());
  EXPECT_TRUE(t.ok()) << p;
  return t.ok() ? t.value() : "";
}

bool EndsWith(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// Writes `c` as a campaign's one new root cause, triages the campaign, and checks that each
// artifact states `tag` (and summary.json and report.json the filing `filing`).
void ExpectOneClassEverywhere(const CaseRun& c, const std::string& tag, const std::string& filing) {
  const fs::path out =
      fs::temp_directory_path() / ("mmdiff-class-" + std::to_string(getpid()) + "-" + filing);
  fs::remove_all(out);
  const std::string sig = CaseFinding(c).signature;
  const std::string folded = FoldedRootCause(sig, c.mitigations);
  const std::string root = folded.empty() ? sig : folded;
  FindingCase fc{HashHex(sig), sig, HashHex(root), root, Headline(c), 0, 1, 1.0, std::nullopt};
  RunContext ctx{{{"mmdiff", "0.1.0"}, {"torch", "2.15.0+cu132"}, {"python", "3.11.2"}}, {}};
  ASSERT_TRUE(StoreFinding(out.string(), fc, c, ctx, nullptr).ok());
  FuzzSummary s;
  BucketStats& b = s.buckets[fc.hash];
  b.signature = sig;
  b.headline = Headline(c);
  b.finding_dir = "findings/" + fc.folder;
  b.count = 1;
  b.first_index = 0;
  b.folded = folded;
  b.root_class = CaseClass(c);
  FuzzOptions o;
  o.ablation = false;
  ASSERT_TRUE(WriteFileAtomic((out / "summary.json").string(), SummaryToJson(s, o).dump(2)).ok());
  triage::TriageOptions t;
  t.inputs = {out.string()};
  t.out_dir = (out / "triage").string();
  triage::TriageOutcome r = triage::RunTriage(t);
  ASSERT_EQ(r.failure, triage::TriageFailure::kNone) << r.message;

  const fs::path folder = out / b.finding_dir;
  auto summary = nlohmann::json::parse(Text(out / "summary.json"));
  auto report = nlohmann::json::parse(Text(folder / "report.json"));
  EXPECT_EQ(summary["buckets"][0]["filing"], filing);
  EXPECT_TRUE(EndsWith(summary["buckets"][0]["headline"], tag))
      << summary["buckets"][0]["headline"];
  EXPECT_EQ(report["filing"], filing);
  EXPECT_EQ(report["class"], summary["buckets"][0]["class"]);
  EXPECT_TRUE(EndsWith(report["headline"], tag)) << report["headline"];
  const std::string repro = Text(folder / "repro.py");
  const std::string first = repro.substr(0, repro.find('\n', repro.find("\"\"\"")));
  EXPECT_TRUE(EndsWith(first, tag)) << first;
  EXPECT_NE(Text(out / "triage" / "triage.md").find("- class: " + tag), std::string::npos);
  EXPECT_NE(Text(folder / "issue.md").find("mmdiff class: " + tag), std::string::npos)
      << Text(folder / "issue.md");
  fs::remove_all(out);
}

TEST(ClassInEveryArtifact, Filable) {
  ExpectOneClassEverywhere(JudgeCase(case_test::Seed(), {"grid16", 3}, case_test::SeedResults()),
                           "[filable]", "filable");
}

TEST(ClassInEveryArtifact, PrecisionOnly) {
  CaseRun c = BiasAdd(0.144531, {"extern:mm"});
  Classify(c, 0.1444);
  ExpectOneClassEverywhere(c, "[precision-only]", "precision-only");
}

TEST(ClassInEveryArtifact, ByDesignWithItsReason) {
  CaseRun fused = BiasAdd(0.144531, kAddmmFused);
  Classify(fused, 0.1444);
  ExpectOneClassEverywhere(
      fused, "[by design: addmm adds the bias before rounding the product, no less accurate]",
      "by-design");
}

TEST(ClassInEveryArtifact, ByDesignWhereTheKnobRemovesAFindingTheRuleCallsFilable) {
  // Seen on 2.15.0: the summary said by design, repro.py's first line "[filable]".
  CaseRun c = BiasAdd(0.15625, {"extern:mm"});
  Classify(c, 0.1444);
  ASSERT_EQ(c.verdict.divergences[0].classification, "filable");
  c.mitigations = case_test::Knobs(/*emulate_removes=*/true);
  ExpectOneClassEverywhere(c,
                           "[by design: Inductor keeps float16/bfloat16 intermediates in float32 "
                           "and does not round them (torch._inductor.config.emulate_precision_"
                           "casts = True rounds them)]",
                           "by-design");
}

TEST(ClassInEveryArtifact, ErrorClassOrMeta) {
  Program p;
  p.inputs = {{"a", {2, 3}, DType::kFloat16}, {"b", {3, 4}, DType::kFloat32}};
  p.nodes = {{"v0", OpKind::kMm, {"a", "b"}}};
  p.outputs = {"v0"};
  CaseRun c = JudgeCase(
      p, {"grid16", 1},
      {case_test::Raises("reference", "RuntimeError"), case_test::Raises("eager", "RuntimeError"),
       case_test::Ok("eager_meta", DType::kFloat16, {2, 4}, Device::kMeta)});
  ExpectOneClassEverywhere(c, "[error class or meta]", "error-class-or-meta");
}

}  // namespace
}  // namespace mmdiff
