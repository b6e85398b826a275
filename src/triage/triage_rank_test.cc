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

namespace mmdiff::triage {
namespace {

// New root causes rank by what a maintainer acts on before anything else; those their campaign did
// not reproduce standalone are grouped apart, after them, whatever their class or count.
TEST(TriageRank, NewRootCausesRankByClassAndTheUnreproducedAreListedApart) {
  auto with = [](TriageBucket b, const std::string& root_cause, const std::string& standalone) {
    b.root_causes = {root_cause};
    b.standalone = standalone;
    return b;
  };
  TriageData d;
  for (const auto& b : {
           with(B("meta", BucketClass::kUnclassified, 900, "meta"),
                "meta|path=eager_meta|skips_check|rule=same_dtype", "reproduced"),
           with(B("eager", BucketClass::kUnclassified, 500, "contract"),
                "contract|path=eager|accepts|rule=same_dtype|op=bmm|devices=cpu,cpu", ""),
           with(B("accepts", BucketClass::kFilable, 300, "error_behaviour"),
                "error_behaviour|path=inductor|accepts|rule=same_dtype|op=mm|devices=cpu,cpu",
                "reproduced"),
           with(B("raises", BucketClass::kUnclassified, 200, "error_behaviour"),
                "error_behaviour|path=inductor|raises:NameError|ops=addmm|devices=cpu", "flaky"),
           with(B("wrong", BucketClass::kPrecisionOnly, 1, "value"),
                "value|path=inductor|values|op=mm|devices=cpu", "reproduced"),
           with(B("design", BucketClass::kPrecisionOnly, 999, "value"),
                "value|path=inductor|by_design=emulate_precision_casts", "reproduced"),
           with(B("gone", BucketClass::kFilable, 1000, "value"),
                "value|path=inductor|values|op=dot|devices=cpu", "not_reproduced"),
           with(B("unchecked", BucketClass::kFilable, 1000, "value"),
                "value|path=inductor|values|op=mv|devices=cpu", "not_checked"),
       })
    d.buckets[b.hash] = b;
  d.buckets["known"] = with(B("known", BucketClass::kFilable, 5000, "value"),
                            "value|path=inductor|values|op=bmm|devices=cpu", "reproduced");
  d.buckets["known"].known = KnownRecord{"t", "", ""};
  auto ranked = RankBuckets(d);
  BucketGroups g = GroupBuckets(ranked);
  auto hashes = [](const std::vector<const TriageBucket*>& bs) {
    std::vector<std::string> out;
    for (const auto* b : bs) out.push_back(b->hash);
    return out;
  };
  // Not checked (checks turned off) is no evidence against it: listed, by its class.
  EXPECT_EQ(hashes(g.fresh), (std::vector<std::string>{"unchecked", "wrong", "raises", "accepts",
                                                       "eager", "meta", "design"}));
  EXPECT_EQ(hashes(g.unreproduced), (std::vector<std::string>{"gone"}));
  EXPECT_EQ(hashes(g.known), (std::vector<std::string>{"known"}));
  EXPECT_EQ(GroupCounts(g), "7 new root causes, 1 not reproduced standalone, 1 known");
  // In the ranking itself the unreproduced come after every new one and before the known.
  EXPECT_EQ(hashes(ranked).at(7), "gone");
  EXPECT_EQ(hashes(ranked).back(), "known");
}

}  // namespace
}  // namespace mmdiff::triage
