// Tests for what triage reads from a report: format checks, class, severity, ops and dtypes, and
// the reduction dimension K behind each value divergence.
#include "src/triage/report_facts.h"

#include <gtest/gtest.h>

#include "src/triage/reduction_k.h"
#include "src/triage/triage_test_util.h"

namespace mmdiff::triage {
namespace {

using testing::OneOp;
using testing::Report;
using testing::TestDivergence;

std::optional<int64_t> K(const Program& p) { return OutputReductionK(p, 0); }

TEST(TriageReductionK, IsTheSummedDimensionOfEachProduct) {
  EXPECT_EQ(K(OneOp(OpKind::kMm, {{{4, 33}, DType::kFloat32}, {{33, 2}, DType::kFloat32}})), 33);
  EXPECT_EQ(K(OneOp(OpKind::kBmm, {{{3, 4, 17}, DType::kFloat32}, {{3, 17, 2}, DType::kFloat32}})),
            17);
  EXPECT_EQ(K(OneOp(OpKind::kMatmul, {{{9}, DType::kFloat32}, {{9, 5}, DType::kFloat32}})), 9);
  EXPECT_EQ(K(OneOp(OpKind::kDot, {{{12}, DType::kFloat32}, {{12}, DType::kFloat32}})), 12);
  EXPECT_EQ(K(OneOp(OpKind::kMv, {{{3, 40}, DType::kFloat32}, {{40}, DType::kFloat32}})), 40);
  // addmm family: the bias comes first and is not the reduction.
  EXPECT_EQ(
      K(OneOp(OpKind::kAddmm,
              {{{4, 2}, DType::kFloat32}, {{4, 21}, DType::kFloat32}, {{21, 2}, DType::kFloat32}})),
      21);
  EXPECT_EQ(K(OneOp(OpKind::kBaddbmm, {{{2, 4, 2}, DType::kFloat32},
                                       {{2, 4, 6}, DType::kFloat32},
                                       {{2, 6, 2}, DType::kFloat32}})),
            6);
  // linear(x [n, in], w [out, in]): K = in.
  EXPECT_EQ(K(OneOp(OpKind::kLinear, {{{5, 64}, DType::kFloat32}, {{3, 64}, DType::kFloat32}})),
            64);
  // Attention: the larger of E (q @ k^T) and S (weights @ v).
  EXPECT_EQ(K(OneOp(OpKind::kSdpa, {{{1, 2, 8, 16}, DType::kFloat32},
                                    {{1, 2, 50, 16}, DType::kFloat32},
                                    {{1, 2, 50, 16}, DType::kFloat32}})),
            50);
  // Not a product.
  EXPECT_FALSE(
      K(OneOp(OpKind::kAdd, {{{4, 4}, DType::kFloat32}, {{4, 4}, DType::kFloat32}})).has_value());
}

TEST(TriageReductionK, FollowsViewsAndOnlyTheOutputsAncestors) {
  // v0 = a^T (a: [40, 3] -> [3, 40]); v1 = v0 @ b (K 40); v2 = c @ d (K 7); outputs v1, v2.
  Program p;
  p.inputs = {{"a", {40, 3}, DType::kFloat32},
              {"b", {40, 2}, DType::kFloat32},
              {"c", {2, 7}, DType::kFloat32},
              {"d", {7, 2}, DType::kFloat32}};
  Node t{"v0", OpKind::kTranspose, {"a"}};
  t.ints = {0, 1};
  p.nodes = {t, {"v1", OpKind::kMm, {"v0", "b"}}, {"v2", OpKind::kMm, {"c", "d"}}};
  p.outputs = {"v1", "v2"};
  EXPECT_EQ(OutputReductionK(p, 0), 40);
  EXPECT_EQ(OutputReductionK(p, 1), 7);
  EXPECT_EQ(OutputReductionK(p, 5), 40);  // out of range: every product
}

TEST(TriageReportFacts, ValueDivergencesBecomeErrorSamplesWithK) {
  Program p = OneOp(OpKind::kMm, {{{4, 96}, DType::kBFloat16}, {{96, 2}, DType::kBFloat16}});
  TestDivergence v{"value", "inductor", "precision-only", 992, 988, 2};
  TestDivergence zero{"value", "inductor", "precision-only", 0, 0, 1};
  auto f = ReadReportFacts(Report("abcd", {v, zero}, p));
  ASSERT_TRUE(f.ok()) << f.error();
  ASSERT_EQ(f.value().errors.size(),
            1u);  // the second has |got - expected| = 0: not drawable on a log scale
  EXPECT_EQ(f.value().errors[0].k, 96);
  EXPECT_DOUBLE_EQ(f.value().errors[0].error, 4);
  EXPECT_DOUBLE_EQ(f.value().errors[0].allowed, 2);
  EXPECT_EQ(f.value().unplotted_errors, 1);
  EXPECT_EQ(f.value().cls, BucketClass::kPrecisionOnly);
  EXPECT_EQ(f.value().program.ops, std::vector<std::string>{"mm"});
  EXPECT_EQ(f.value().program.dtypes, std::vector<std::string>{"bfloat16"});
  EXPECT_EQ(f.value().severity, 1);
}

TEST(TriageReportFacts, NonFiniteValuesAreNotPlotted) {
  nlohmann::json r = Report("abcd", {TestDivergence{"value", "inductor", "filable", 1, 0, 0.5}});
  r["verdict"]["divergences"][0]["worst"]["got"] = "nan";
  auto f = ReadReportFacts(r);
  ASSERT_TRUE(f.ok()) << f.error();
  EXPECT_TRUE(f.value().errors.empty());
  EXPECT_EQ(f.value().unplotted_errors, 1);
}

TEST(TriageReportFacts, ClassAndSeverityOverAllDivergences) {
  TestDivergence precision{"value", "inductor", "precision-only"},
      filable{"dtype", "inductor", "filable"}, eager_bug{"contract", "eager", ""},
      crash{"crash", "inductor", ""};
  EXPECT_EQ(ReadReportFacts(Report("h", {precision, filable})).value().cls, BucketClass::kFilable);
  EXPECT_EQ(ReadReportFacts(Report("h", {precision, precision})).value().cls,
            BucketClass::kPrecisionOnly);
  EXPECT_EQ(ReadReportFacts(Report("h", {precision, eager_bug})).value().cls,
            BucketClass::kUnclassified);
  auto f = ReadReportFacts(Report("h", {eager_bug, crash}));
  EXPECT_EQ(f.value().severity, 5);
  EXPECT_EQ(f.value().kind, "contract");  // the headline's divergence
  EXPECT_EQ(f.value().blamed, "eager");
}

TEST(TriageReportFacts, RejectsOtherFormatsAndVersionsNamingTheField) {
  nlohmann::json r = Report("h", {TestDivergence{}});
  r["version"] = 7;
  auto v = ReadReportFacts(r);
  ASSERT_FALSE(v.ok());
  EXPECT_NE(v.error().find("report format version 7 is not supported"), std::string::npos)
      << v.error();
  r["version"] = 1;
  r["format"] = "mmdiff.program";
  EXPECT_NE(ReadReportFacts(r).error().find("not an mmdiff report"), std::string::npos);
  r["format"] = "mmdiff.report";
  r.erase("bucket");
  EXPECT_NE(ReadReportFacts(r).error().find("\"bucket\""), std::string::npos);
  r = Report("h", {TestDivergence{}});
  r["verdict"]["divergences"] = "none";
  EXPECT_NE(ReadReportFacts(r).error().find("verdict.divergences"), std::string::npos);
  EXPECT_FALSE(ReadReportFacts(nlohmann::json::array()).ok());
}

}  // namespace
}  // namespace mmdiff::triage
