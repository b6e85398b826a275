// Tests for behaviour features: what they name, and that sizes and values never enter them.
#include "src/report/behaviour.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "oracles/case_run_test_cases.h"
#include "src/report/bucket.h"

namespace mmdiff {
namespace {

using case_test::Seed;
using case_test::SeedResults;

bool Has(const std::vector<std::string>& v, const std::string& f) {
  return std::find(v.begin(), v.end(), f) != v.end();
}

TEST(BehaviourFeatures, NameOutcomesOpsContractAndDivergences) {
  auto f = BehaviourFeatures(JudgeCase(Seed(), {"grid16", 1}, SeedResults()));
  EXPECT_TRUE(std::is_sorted(f.begin(), f.end()));
  EXPECT_TRUE(Has(f, "outcome|eager|error|RuntimeError"));
  EXPECT_TRUE(Has(f, "outcome|inductor|ok|"));
  EXPECT_TRUE(Has(f, "op|matmul|float16,float32,|cpu,|inductor|ok|"));
  EXPECT_TRUE(Has(f, "contract|rejects|same_dtype"));
  EXPECT_TRUE(std::any_of(f.begin(), f.end(), [](const std::string& s) {
    return s.rfind("divergence|error_behaviour|inductor|", 0) == 0;
  })) << ::testing::PrintToString(f);
}

TEST(BehaviourFeatures, WhatACompiledPathChoseIsAFeatureInEverySet) {
  std::vector<PathResult> results = SeedResults();
  for (auto& r : results)
    if (r.path == "inductor") {
      r.compile.present = true;
      r.compile.compiled = true;
      r.compile.internals = {"extern:bmm", "pattern:decompose_bmm"};
    }
  for (FeatureSet set :
       {FeatureSet::kFine, FeatureSet::kCoarse, FeatureSet::kBuckets, FeatureSet::kSites}) {
    auto f = BehaviourFeatures(JudgeCase(Seed(), {"grid16", 1}, results), set);
    EXPECT_TRUE(Has(f, "compile|inductor|extern:bmm"));
    EXPECT_TRUE(Has(f, "compile|inductor|pattern:decompose_bmm"));
    EXPECT_TRUE(Has(f, "compile|inductor|compiled"));
    EXPECT_FALSE(std::any_of(
        f.begin(), f.end(), [](const std::string& s) { return s.rfind("compile|eager", 0) == 0; }));
  }
  auto without = BehaviourFeatures(JudgeCase(Seed(), {"grid16", 1}, SeedResults()));
  EXPECT_FALSE(std::any_of(without.begin(), without.end(),
                           [](const std::string& s) { return s.rfind("compile|", 0) == 0; }));
}

TEST(BehaviourFeatures, SizesAndValuesNeverEnter) {
  auto a = BehaviourFeatures(JudgeCase(Seed(), {"grid16", 1}, SeedResults()));
  auto b = BehaviourFeatures(JudgeCase(Seed({2, 4, 3, 8}), {"exact", 9}, SeedResults()));
  EXPECT_EQ(a, b);
}

TEST(BehaviourFeatures, CoarseNamesEachOpsOwnOperandsAndNoBands) {
  auto f = BehaviourFeatures(JudgeCase(Seed(), {"grid16", 1}, SeedResults()), FeatureSet::kCoarse);
  EXPECT_TRUE(Has(f, "op|matmul|float16,float32,|cpu,|eager|error|RuntimeError"));
  EXPECT_TRUE(Has(f, "divergence|error_behaviour|inductor"));
  EXPECT_TRUE(Has(f, "contract|rejects|same_dtype"));
  // An unused input of another dtype is a new dtype set for the fine features, not for the coarse.
  Program extra = Seed();
  extra.inputs.push_back({"x2", {3}, DType::kInt8});
  auto fine = BehaviourFeatures(JudgeCase(Seed(), {"grid16", 1}, SeedResults()));
  EXPECT_NE(BehaviourFeatures(JudgeCase(extra, {"grid16", 1}, SeedResults())), fine);
  EXPECT_EQ(BehaviourFeatures(JudgeCase(extra, {"grid16", 1}, SeedResults()), FeatureSet::kCoarse),
            f);
  // The operands' order is part of the tuple.
  Program swapped = Seed();
  std::swap(swapped.inputs[0].dtype, swapped.inputs[1].dtype);
  auto s = BehaviourFeatures(JudgeCase(swapped, {"grid16", 1}, SeedResults()), FeatureSet::kCoarse);
  EXPECT_TRUE(Has(s, "op|matmul|float32,float16,|cpu,|eager|error|RuntimeError"));
}

TEST(BehaviourFeatures, BucketsNameTheBucketOfADivergingCase) {
  CaseRun c = JudgeCase(Seed(), {"grid16", 1}, SeedResults());
  auto f = BehaviourFeatures(c, FeatureSet::kBuckets);
  std::string bucket = "bucket|" + CaseFinding(c).signature;
  EXPECT_TRUE(Has(f, bucket));
  EXPECT_TRUE(Has(BehaviourFeatures(c), bucket));  // the fine set too
  // Agreeing paths: no bucket.
  std::vector<PathResult> agree = SeedResults();
  agree.pop_back();
  CaseRun a = JudgeCase(Seed(), {"grid16", 1}, agree);
  ASSERT_FALSE(a.verdict.diverges());
  auto fa = BehaviourFeatures(a);
  EXPECT_FALSE(std::any_of(fa.begin(), fa.end(),
                           [](const std::string& s) { return s.rfind("bucket|", 0) == 0; }));
  EXPECT_TRUE(Has(f, "outcome|inductor|ok|"));
  EXPECT_FALSE(
      std::any_of(f.begin(), f.end(), [](const std::string& s) { return s.rfind("op|", 0) == 0; }));
}

TEST(BehaviourFeatures, SitesNameWhereAProgramBreaksItsContractEvenWhenThePathsAgree) {
  // Reference and eager both reject the seed's float16 @ float32: no divergence, still a site.
  std::vector<PathResult> agree = SeedResults();
  agree.pop_back();
  CaseRun a = JudgeCase(Seed(), {"grid16", 1}, agree);
  ASSERT_FALSE(a.verdict.diverges());
  auto f = BehaviourFeatures(a, FeatureSet::kSites);
  EXPECT_TRUE(
      Has(f, "site|rule=same_dtype|op=matmul(batched)|operands=float16,float32|devices=cpu,cpu"))
      << ::testing::PrintToString(f);
  EXPECT_FALSE(std::any_of(f.begin(), f.end(),
                           [](const std::string& s) { return s.rfind("bucket|", 0) == 0; }));
  EXPECT_FALSE(
      std::any_of(f.begin(), f.end(), [](const std::string& s) { return s.rfind("op|", 0) == 0; }));
  // Other operand dtypes: another site. A program the contract accepts: none.
  Program other = Seed();
  other.inputs[0].dtype = DType::kBFloat16;
  auto g = BehaviourFeatures(JudgeCase(other, {"grid16", 1}, agree), FeatureSet::kSites);
  EXPECT_TRUE(
      Has(g, "site|rule=same_dtype|op=matmul(batched)|operands=bfloat16,float32|devices=cpu,cpu"));
  Program fine = Seed();
  fine.inputs[0].dtype = DType::kFloat32;
  auto h = BehaviourFeatures(JudgeCase(fine, {"grid16", 1}, agree), FeatureSet::kSites);
  EXPECT_FALSE(std::any_of(h.begin(), h.end(),
                           [](const std::string& s) { return s.rfind("site|", 0) == 0; }));
  // A diverging case has its site and its bucket.
  CaseRun d = JudgeCase(Seed(), {"grid16", 1}, SeedResults());
  auto fd = BehaviourFeatures(d, FeatureSet::kSites);
  EXPECT_TRUE(Has(fd, "bucket|" + CaseFinding(d).signature));
  EXPECT_TRUE(Has(fd, "site|" + RejectionSite(d.program, d.contract)));
}

}  // namespace
}  // namespace mmdiff
