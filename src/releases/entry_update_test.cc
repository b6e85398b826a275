// Tests for rewriting an entry's expected ranges from what the releases did with it.
#include "src/releases/entry_update.h"

#include <gtest/gtest.h>

#include "src/replay/replay.h"

namespace mmdiff {
namespace {

std::string EntryText(const std::string& expected) {
  return R"({
  "format": "mmdiff.regression",
  "version": 1,
  "title": "t",
  "program": {"format": "mmdiff.program", "version": 1,
    "inputs": [{"name": "a", "shape": [2, 2], "dtype": "float16", "device": "cpu", "layout": "contiguous"},
               {"name": "b", "shape": [2, 2], "dtype": "float32", "device": "cpu", "layout": "contiguous"}],
    "nodes": [{"name": "v0", "op": "mm", "args": ["a", "b"]}], "outputs": ["v0"]},
  "inputs": {"kind": "grid16", "seed": 1},
  "paths": ["reference", "eager", "inductor"],
  "expected": )" +
         expected + "\n}\n";
}

const char* kDiverge = R"({"kind": "error_behaviour", "blamed": "inductor"})";

// A row of the releases (newest first, as the table has them): "d" diverges as kDiverge says,
// "a" agrees; each cell compared with the entry's expectation for its release.
ReleaseRow Row(const RegressionEntry& e, std::vector<std::pair<std::string, char>> cells) {
  ReleaseRow row;
  row.entry = true;
  for (auto& [release, what] : cells) {
    ReleaseCell c;
    c.release = release;
    c.torch = release + "+cpu";
    c.state = ReleaseState::kAgree;
    Verdict v;
    if (what == 'd') {
      c.diverges = true;
      c.divergences = {{"error_behaviour", "inductor"}};
      c.state = ReleaseState::kPresent;
      Divergence d;
      d.kind = DivergenceKind::kErrorBehaviour;
      d.blamed = "inductor";
      v.divergences.push_back(d);
    }
    std::optional<ExpectedInRelease> x;
    if (auto want = ExpectationFor(e, c.torch)) {
      x = ExpectedInRelease{DescribeExpectation(*want), want->torch, false, ""};
      x->difference = CompareWithExpectation(v, *want);
      x->matches = x->difference.empty();
    }
    row.cells.push_back(c);
    row.expected.push_back(x);
  }
  return row;
}

RegressionEntry Parse(const std::string& text) {
  auto e = ParseRegressionEntry(text);
  EXPECT_TRUE(e.ok()) << e.status().message();
  return e.value();
}

TEST(EntryUpdate, NothingChangesWhereEveryReleaseMatches) {
  std::string text =
      EntryText(std::string(R"([{"torch": ">=2.11.0", "verdict": "diverge", "divergences": [)") +
                kDiverge + "]}]");
  RegressionEntry e = Parse(text);
  EntryUpdate u =
      PlanEntryUpdate(text, e, Row(e, {{"2.15.0", 'd'}, {"2.11.0", 'd'}}), "2026-11-27");
  EXPECT_FALSE(u.changed);
  EXPECT_TRUE(u.refused.empty());
}

TEST(EntryUpdate, AFixedReleaseSplitsTheRangeAndKeepsTheOldNote) {
  std::string text = EntryText(
      std::string(
          R"([{"torch": ">=2.11.0", "verdict": "diverge", "note": "seen on 2.11.0", "divergences": [)") +
      kDiverge + "]}]");
  RegressionEntry e = Parse(text);
  EntryUpdate u =
      PlanEntryUpdate(text, e, Row(e, {{"2.15.0", 'a'}, {"2.11.0", 'd'}}), "2026-11-27");
  ASSERT_TRUE(u.changed) << u.refused;
  EXPECT_EQ(u.diff,
            "- >=2.11.0: diverge: error_behaviour [inductor]\n"
            "+ >=2.11.0,<2.15.0: diverge: error_behaviour [inductor]\n"
            "+ >=2.15.0: agree\n");
  auto after = ParseRegressionEntry(u.text);
  ASSERT_TRUE(after.ok()) << after.status().message() << u.text;
  ASSERT_EQ(after.value().expected.size(), 2u);
  EXPECT_EQ(after.value().expected[0].note, "seen on 2.11.0");
  EXPECT_EQ(after.value().expected[1].note,
            "measured by `mmdiff releases` on 2026-11-27 in torch 2.15.0+cpu");
  EXPECT_LT(u.text.find("\"format\""), u.text.find("\"expected\""));  // the file's key order
  // Run again on the updated entry: nothing more to change.
  EXPECT_FALSE(PlanEntryUpdate(u.text, after.value(),
                               Row(after.value(), {{"2.15.0", 'a'}, {"2.11.0", 'd'}}), "x")
                   .changed);
}

TEST(EntryUpdate, OldBoundsBetweenTheReleasesRunAreKept) {
  std::string text = EntryText(
      std::string(R"([{"torch": ">=2.11.0,<2.12", "verdict": "diverge", "divergences": [)") +
      kDiverge + R"(]}, {"torch": ">=2.12.0", "verdict": "agree"}])");
  RegressionEntry e = Parse(text);
  // 2.15.0 diverges again: a new range from 2.15.0 on; 2.12 (not run) keeps its expectation.
  EntryUpdate u = PlanEntryUpdate(text, e, Row(e, {{"2.15.0", 'd'}, {"2.11.0", 'd'}}), "d");
  ASSERT_TRUE(u.changed);
  EXPECT_NE(u.diff.find("+ >=2.11.0,<2.12: diverge: error_behaviour [inductor]\n"
                        "+ >=2.12,<2.15.0: agree\n"
                        "+ >=2.15.0: diverge: error_behaviour [inductor]\n"),
            std::string::npos)
      << u.diff;
}

TEST(EntryUpdate, AReleaseNoRangeCoversJoinsTheRangeThatSaysTheSame) {
  std::string text = EntryText(R"([{"torch": "==2.15.0", "verdict": "agree", "note": "n"}])");
  RegressionEntry e = Parse(text);
  EntryUpdate u = PlanEntryUpdate(text, e, Row(e, {{"2.15.0", 'a'}, {"2.11.0", 'a'}}), "d");
  ASSERT_TRUE(u.changed);
  EXPECT_EQ(u.diff, "- ==2.15.0: agree\n+ >=2.11.0: agree\n");
  auto after = ParseRegressionEntry(u.text);
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(after.value().expected[0].note,
            "n; measured by `mmdiff releases` on d in torch 2.11.0+cpu");
  // Another verdict there is a range of its own.
  EntryUpdate other = PlanEntryUpdate(text, e, Row(e, {{"2.15.0", 'a'}, {"2.11.0", 'd'}}), "d");
  EXPECT_EQ(
      other.diff,
      "- ==2.15.0: agree\n+ >=2.11.0,<2.15.0: diverge: error_behaviour [inductor]\n+ >=2.15.0: "
      "agree\n");
}

TEST(EntryUpdate, CpuSpecificEntriesAreLeftToAPerson) {
  std::string text = EntryText(
      R"([{"torch": ">=2.11.0", "verdict": "agree", "cpu_flags": ["amx_bf16"]}, {"torch": ">=2.11.0", "verdict": "agree"}])");
  RegressionEntry e = Parse(text);
  EntryUpdate u = PlanEntryUpdate(text, e, Row(e, {{"2.15.0", 'd'}}), "d");
  EXPECT_FALSE(u.changed);
  EXPECT_NE(u.refused.find("cpu_flags"), std::string::npos);
}

}  // namespace
}  // namespace mmdiff
