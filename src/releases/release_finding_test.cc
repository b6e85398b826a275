// Tests for relating a release's run to a finding: an entry's finding is the divergence it expects
// in the newest release run.
#include "src/releases/release_finding.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "src/report/report.h"

namespace mmdiff {
namespace {

Program LegalMm() {
  Program p;
  p.inputs = {{"a", {2, 3}, DType::kFloat32}, {"b", {3, 2}, DType::kFloat32}};
  p.nodes = {{"v0", OpKind::kMm, {"a", "b"}}};
  p.outputs = {"v0"};
  return p;
}

// A legal mm that eager rejects: an error_behaviour divergence blamed on eager.
CaseRun EagerRaises() {
  PathResult ref{"reference", OutcomeKind::kOk};
  ref.outputs = {{DType::kFloat32, {2, 2}, Device::kCpu, {1, 2, 3, 4}, {0, 0, 0, 0}}};
  PathResult eager{"eager", OutcomeKind::kError, "RuntimeError", "c10::Error", "boom"};
  PathResult inductor = ref;
  inductor.path = "inductor";
  return JudgeCase(LegalMm(), {"exact", 7}, {ref, eager, inductor});
}

ReleaseFinding Entry(std::vector<VersionExpectation> expected) {
  ReleaseFinding f;
  f.program = LegalMm();
  f.regression = RegressionEntry{};
  f.regression->expected = std::move(expected);
  return f;
}

VersionExpectation Diverges(const std::string& range, const std::string& kind,
                            const std::string& blamed) {
  VersionExpectation x;
  x.torch = range;
  x.diverges = true;
  x.divergences = {{kind, blamed}};
  return x;
}

TEST(ReleaseFinding, AnEntrysFindingIsWhatItExpectsInTheNewestReleaseRun) {
  ReleaseFinding f = Entry({Diverges(">=2.11.0,<2.12.0", "dtype", "inductor"),
                            Diverges(">=2.12.0", "error_behaviour", "eager")});
  PickEntryFinding(f, {"2.15.0", "2.11.0"});
  ASSERT_TRUE(f.finding);
  EXPECT_EQ(f.finding->torch, ">=2.12.0");
  ReleaseCell cell;
  ClassifyReleaseRun(f, EagerRaises(), cell);
  EXPECT_EQ(cell.state, ReleaseState::kPresent) << cell.observed;
  EXPECT_TRUE(cell.diverges);
  EXPECT_TRUE(std::any_of(cell.divergences.begin(), cell.divergences.end(),
                          [](const ExpectedDivergence& d) {
                            return d.kind == "error_behaviour" && d.blamed == "eager";
                          }))
      << cell.observed;
  // Run in 2.11.0 alone, its finding is the dtype divergence: this run is another one.
  PickEntryFinding(f, {"2.11.0"});
  EXPECT_EQ(f.finding->torch, ">=2.11.0,<2.12.0");
  ClassifyReleaseRun(f, EagerRaises(), cell);
  EXPECT_EQ(cell.state, ReleaseState::kOther);
  EXPECT_FALSE(cell.detail.empty());  // the other divergence's headline
}

TEST(ReleaseFinding, AnEntryThatExpectsOnlyAgreementHasNoFinding) {
  VersionExpectation agree;
  agree.torch = ">=2.11.0";
  ReleaseFinding f = Entry({agree});
  PickEntryFinding(f, {"2.15.0"});
  EXPECT_FALSE(f.finding);
  ReleaseCell cell;
  ClassifyReleaseRun(f, EagerRaises(), cell);
  EXPECT_EQ(cell.state, ReleaseState::kOther);
}

TEST(ReleaseFinding, AReportIsPresentWhereItsBucketIs) {
  CaseRun run = EagerRaises();
  ReleaseFinding f;
  f.bucket = "0000000000000000";
  ReleaseCell cell;
  ClassifyReleaseRun(f, run, cell);
  EXPECT_EQ(cell.state, ReleaseState::kOther);
  f.bucket = cell.buckets.substr(0, cell.buckets.find(','));
  ClassifyReleaseRun(f, run, cell);
  EXPECT_EQ(cell.state, ReleaseState::kPresent);
}

TEST(ReleaseFinding, AReportNotReproducedInTheReleaseItWasFoundInSaysSo) {
  ReleaseFinding f;
  f.found_in = "2.15.0+cu132";
  std::vector<ReleaseCell> cells(2);
  cells[0].release = "2.15.0";
  cells[0].state = ReleaseState::kAgree;
  cells[1].release = "2.11.0";
  cells[1].state = ReleaseState::kPresent;
  EXPECT_EQ(NotReproducedWhereFound(f, cells), "2.15.0");
  cells[0].state = ReleaseState::kPresent;
  EXPECT_EQ(NotReproducedWhereFound(f, cells), "");
  cells[0].state = ReleaseState::kCannotRun;  // nothing was compared there
  EXPECT_EQ(NotReproducedWhereFound(f, cells), "");
  f.found_in = "";
  cells[0].state = ReleaseState::kAgree;
  EXPECT_EQ(NotReproducedWhereFound(f, cells), "");
}

}  // namespace
}  // namespace mmdiff
