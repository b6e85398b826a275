// Tests for the ranking: filable before unclassified before precision-only, then count, severity,
// hash.
#include "src/triage/triage_rank.h"

#include <gtest/gtest.h>

namespace mmdiff::triage {
namespace {

TriageBucket B(const std::string& hash, BucketClass cls, int64_t count, const std::string& kind) {
  TriageBucket b;
  b.hash = hash;
  b.cls = cls;
  b.count = count;
  b.kind = kind;
  b.severity = Severity(kind);
  return b;
}

std::vector<std::string> Order(const std::vector<TriageBucket>& buckets) {
  TriageData d;
  for (const auto& b : buckets) d.buckets[b.hash] = b;
  std::vector<std::string> out;
  for (const TriageBucket* b : RankBuckets(d)) out.push_back(b->hash);
  return out;
}

TEST(TriageRank, SeverityFollowsTheDocumentedTable) {
  EXPECT_GT(Severity("crash"), Severity("error_behaviour"));
  EXPECT_EQ(Severity("crash"), Severity("timeout"));
  EXPECT_GT(Severity("error_behaviour"), Severity("error_class"));
  EXPECT_GT(Severity("error_class"), Severity("dtype"));
  EXPECT_EQ(Severity("dtype"), Severity("shape"));
  EXPECT_EQ(Severity("dtype"), Severity("meta"));
  EXPECT_GT(Severity("device"), Severity("value"));
  EXPECT_GT(Severity("value"), Severity("contract"));
  EXPECT_EQ(Severity("something new"), 0);
}

TEST(TriageRank, FilableFirstPrecisionOnlyLastThenCountSeverityHash) {
  auto order = Order({
      B("p1", BucketClass::kPrecisionOnly, 1000, "value"),  // most cases, but precision-only
      B("u1", BucketClass::kUnclassified, 50, "contract"),
      B("f1", BucketClass::kFilable, 3, "value"), B("f2", BucketClass::kFilable, 9, "value"),
      B("f3", BucketClass::kFilable, 3, "error_behaviour"),  // same count as f1, more severe
      B("u3", BucketClass::kUnclassified, 50, "crash"),      // same count as u1, more severe
      B("u2", BucketClass::kUnclassified, 50, "crash"),      // ties with u3: by hash
  });
  EXPECT_EQ(order, (std::vector<std::string>{"f2", "f3", "f1", "u2", "u3", "u1", "p1"}));
}

TEST(TriageRank, ARegressionRanksAboveLongStandingBehavioursOfItsClassOnly) {
  auto with = [](TriageBucket b, ReleaseLabel label) {
    b.releases = ReleaseHistory{label, std::string(ReleaseLabelName(label))};
    return b;
  };
  auto order = Order({
      with(B("old", BucketClass::kFilable, 90, "error_behaviour"), ReleaseLabel::kLongStanding),
      B("unknown", BucketClass::kFilable, 50, "error_behaviour"),  // not run across releases
      with(B("new", BucketClass::kFilable, 2, "error_behaviour"), ReleaseLabel::kRegression),
      with(B("fixed", BucketClass::kFilable, 70, "error_behaviour"), ReleaseLabel::kFixed),
      // A regression of a lower class stays below every filable bucket.
      with(B("meta", BucketClass::kUnclassified, 500, "meta"), ReleaseLabel::kRegression),
  });
  EXPECT_EQ(order, (std::vector<std::string>{"new", "old", "fixed", "unknown", "meta"}));
}

}  // namespace
}  // namespace mmdiff::triage
