// Tests for metamorphic variants (shape- and verifier-clean rewrites) and their check.
#include "oracles/metamorphic.h"

#include <gtest/gtest.h>

#include <cmath>

#include "src/ir/static_types.h"
#include "src/ir/verifier.h"

namespace mmdiff {
namespace {

Program One(OpKind op, std::vector<InputSpec> inputs, double alpha = 1, double beta = 1) {
  Program p;
  p.inputs = std::move(inputs);
  Node n{"v0", op, {}};
  for (const auto& in : p.inputs) n.args.push_back(in.name);
  n.alpha = alpha;
  n.beta = beta;
  p.nodes = {n};
  p.outputs = {"v0"};
  return p;
}

int64_t OutputElements(const Program& p) {
  auto t = InferStaticTypes(p);
  int64_t n = 0;
  for (const auto& o : p.outputs) n += Numel(*t.at(o).shape);
  return n;
}

TEST(Metamorphic, VariantsVerifyAndCoverTheSameElements) {
  std::vector<Program> programs = {
      One(OpKind::kMm, {{"a", {3, 4}, DType::kFloat16}, {"b", {4, 5}, DType::kFloat16}}),
      One(OpKind::kAddmm,
          {{"c", {5}, DType::kFloat32},
           {"a", {3, 4}, DType::kFloat32},
           {"b", {4, 5}, DType::kFloat32}},
          0.0, -1.0),
      One(OpKind::kAddmv, {{"c", {3}, DType::kBFloat16},
                           {"a", {3, 4}, DType::kBFloat16},
                           {"v", {4}, DType::kBFloat16}}),
      One(OpKind::kBaddbmm, {{"c", {3, 5}, DType::kFloat64},
                             {"a", {2, 3, 4}, DType::kFloat64},
                             {"b", {2, 4, 5}, DType::kFloat64}}),
      One(OpKind::kBmm, {{"a", {3, 2, 4}, DType::kFloat32}, {"b", {3, 4, 6}, DType::kFloat32}}),
  };
  std::vector<std::string> relations;
  for (const Program& p : programs) {
    auto vs = MetamorphicVariants(p);
    ASSERT_EQ(vs.size(), 1u) << p.Summary();
    EXPECT_TRUE(Verify(vs[0].program).ok()) << Verify(vs[0].program).message();
    EXPECT_EQ(OutputElements(vs[0].program), OutputElements(p)) << vs[0].relation;
    relations.push_back(vs[0].relation);
  }
  EXPECT_EQ(relations, (std::vector<std::string>{"transpose", "split_scaling", "split_scaling",
                                                 "split_scaling", "stacked_mm"}));
  EXPECT_EQ(MetamorphicVariants(programs[4])[0].program.outputs.size(), 3u);  // one mm per batch
  // Nothing for mixed dtypes, integers, or several nodes.
  EXPECT_TRUE(MetamorphicVariants(One(OpKind::kMm, {{"a", {3, 4}, DType::kFloat16},
                                                    {"b", {4, 5}, DType::kFloat32}}))
                  .empty());
  EXPECT_TRUE(MetamorphicVariants(
                  One(OpKind::kMm, {{"a", {3, 4}, DType::kInt32}, {"b", {4, 5}, DType::kInt32}}))
                  .empty());
}

PathResult Values(std::vector<double> v, std::vector<double> bound = {}) {
  PathResult r{"x", OutcomeKind::kOk};
  Shape s{static_cast<int64_t>(v.size())};
  r.outputs.push_back({DType::kFloat32, s, Device::kCpu, std::move(v), std::move(bound)});
  return r;
}

TEST(Metamorphic, AProgramWithAnAutocastRegionHasNoVariants) {
  Program p = One(OpKind::kMm, {{"a", {3, 4}, DType::kFloat32}, {"b", {4, 5}, DType::kFloat32}});
  ASSERT_FALSE(MetamorphicVariants(p).empty());
  p.autocast = {{Device::kCpu, DType::kFloat16, true, std::nullopt}};
  p.nodes[0].autocast = 0;
  EXPECT_TRUE(MetamorphicVariants(p).empty());
}

TEST(Metamorphic, CheckAllowsBothBoundsAndNoMore) {
  PathResult ref = Values({1.0, 2.0}, {1e-3, 1e-3});
  EXPECT_TRUE(CheckMetamorphic("r", Values({1.0, 2.0}), Values({1.0015, 2.0}), ref, ref).holds);
  MetamorphicCheck bad = CheckMetamorphic("r", Values({1.0, 2.0}), Values({1.0, 2.1}), ref, ref);
  EXPECT_FALSE(bad.holds);
  EXPECT_NE(bad.detail.find("element 1"), std::string::npos) << bad.detail;
  EXPECT_FALSE(CheckMetamorphic("r", Values({1.0, NAN}), Values({1.0, 2.0}), ref, ref)
                   .holds);  // NaN meets a number
  PathResult err{"x", OutcomeKind::kError};
  err.error_class = "RuntimeError";
  EXPECT_FALSE(CheckMetamorphic("r", Values({1.0, 2.0}), err, ref, ref).holds);
  // A non-finite reference (beta = 0 ignoring a NaN bias on one side only) asks nothing.
  PathResult ref_nan = Values({1.0, NAN}, {1e-3, 0});
  EXPECT_TRUE(CheckMetamorphic("r", Values({1.0, 5.0}), Values({1.0, NAN}), ref, ref_nan).holds);
}

}  // namespace
}  // namespace mmdiff
