// Tests for the contract: the seed bug's program must be rejected; legal programs get their types.
#include "oracles/contract.h"

#include <gtest/gtest.h>

namespace mmdiff {
namespace {

Program Matmul(DType a, DType b, Shape sa, Shape sb) {
  Program p;
  p.inputs = {{"x0", sa, a}, {"x1", sb, b}};
  p.nodes = {{"v0", OpKind::kMatmul, {"x0", "x1"}}};
  p.outputs = {"v0"};
  return p;
}

TEST(Contract, SeedBugProgramMustRaiseRuntimeError) {
  Expectation e = Expect(Matmul(DType::kFloat16, DType::kFloat32, {2, 4, 8, 8}, {2, 4, 8, 64}));
  ASSERT_TRUE(e.rejects);
  EXPECT_EQ(e.violation.rule, "same_dtype");
  EXPECT_EQ(e.violation.error_class, "RuntimeError");
  EXPECT_EQ(e.violation.node, "v0");
  EXPECT_FALSE(e.violation.source.empty());
}

TEST(Contract, LegalProgramGetsResultTypes) {
  Program p = Matmul(DType::kBFloat16, DType::kBFloat16, {3, 1, 5, 7}, {4, 7, 2});
  p.nodes.push_back({"v1", OpKind::kCast, {"v0"}, DType::kFloat64});
  p.outputs = {"v1"};
  Expectation e = Expect(p);
  ASSERT_FALSE(e.rejects) << e.violation.message;
  ASSERT_EQ(e.outputs.size(), 1u);
  EXPECT_EQ(e.outputs[0], (ValueType{{3, 4, 5, 2}, DType::kFloat64, Device::kCpu}));
  EXPECT_EQ(e.types.at("v0").dtype, DType::kBFloat16);
}

TEST(Contract, ShapeDeviceAndBoolRules) {
  Expectation shape = Expect(Matmul(DType::kFloat32, DType::kFloat32, {2, 3}, {4, 5}));
  ASSERT_TRUE(shape.rejects);
  EXPECT_EQ(shape.violation.rule, "shape");
  Program dev = Matmul(DType::kFloat32, DType::kFloat32, {2, 3}, {3, 5});
  dev.inputs[1].device = Device::kMeta;
  EXPECT_EQ(Expect(dev).violation.rule, "same_device");
  Expectation b = Expect(Matmul(DType::kBool, DType::kBool, {2, 3}, {3, 5}));
  EXPECT_EQ(b.violation.error_class, "NotImplementedError");
}

TEST(Contract, AddmmBiasDtypeCountsAndCastsFixMismatches) {
  Program p;
  p.inputs = {{"b", {5}, DType::kFloat32}, {"x", {2, 3}, DType::kFloat16}, {"y", {3, 5}, DType::kFloat16}};
  p.nodes = {{"v0", OpKind::kAddmm, {"b", "x", "y"}}};
  p.outputs = {"v0"};
  EXPECT_EQ(Expect(p).violation.rule, "same_dtype");
  p.nodes.insert(p.nodes.begin(), Node{"c", OpKind::kCast, {"b"}, DType::kFloat16});
  p.nodes[1].args[0] = "c";
  EXPECT_FALSE(Expect(p).rejects);
}

}  // namespace
}  // namespace mmdiff

namespace mmdiff {
namespace {

TEST(Contract, EveryOpOfTheFamilyRejectsMixedDtypes) {
  struct Case {
    OpKind op;
    std::vector<Shape> shapes;
  };
  std::vector<Case> cases = {{OpKind::kMv, {{4, 3}, {3}}},
                             {OpKind::kDot, {{3}, {3}}},
                             {OpKind::kAddmv, {{4}, {4, 3}, {3}}},
                             {OpKind::kBaddbmm, {{2, 4, 5}, {2, 4, 3}, {2, 3, 5}}},
                             {OpKind::kAddbmm, {{4, 5}, {2, 4, 3}, {2, 3, 5}}},
                             {OpKind::kLinear, {{2, 3}, {4, 3}, {4}}}};
  for (const auto& c : cases) {
    Program p;
    Node n{"v0", c.op};
    for (size_t i = 0; i < c.shapes.size(); ++i) {
      std::string name = "x" + std::to_string(i);
      p.inputs.push_back({name, c.shapes[i], DType::kFloat32});
      n.args.push_back(name);
    }
    p.nodes = {n};
    p.outputs = {"v0"};
    EXPECT_FALSE(Expect(p).rejects) << GetOpSpec(c.op).name << ": " << Expect(p).violation.message;
    p.inputs.back().dtype = DType::kFloat16;  // the bias (or second operand) alone differs
    Expectation e = Expect(p);
    EXPECT_TRUE(e.rejects) << GetOpSpec(c.op).name;
    EXPECT_EQ(e.violation.rule, "same_dtype") << GetOpSpec(c.op).name;
  }
}

}  // namespace
}  // namespace mmdiff

namespace mmdiff {
namespace {

TEST(Contract, ViewErrorsHaveTorchsClasses) {
  Program p;
  p.inputs = {{"x", {2, 3}, DType::kFloat32}};
  p.nodes = {{"v0", OpKind::kTranspose, {"x"}, std::nullopt, 1.0, 1.0, {0, 2}}};
  p.outputs = {"v0"};
  EXPECT_EQ(Expect(p).violation.error_class, "IndexError");
  p.nodes[0] = {"v0", OpKind::kReshape, {"x"}, std::nullopt, 1.0, 1.0, {4, 2}};
  EXPECT_EQ(Expect(p).violation.error_class, "RuntimeError");
  EXPECT_EQ(Expect(p).violation.rule, "view");
  p.nodes[0] = {"v0", OpKind::kExpand, {"x"}, std::nullopt, 1.0, 1.0, {5, 2, 3}};
  Expectation ok = Expect(p);
  ASSERT_FALSE(ok.rejects);
  EXPECT_EQ(ok.outputs[0].shape, (Shape{5, 2, 3}));
}

}  // namespace
}  // namespace mmdiff

namespace mmdiff {
namespace {

TEST(Contract, AddPromotesInsteadOfRejecting) {
  Program p;
  p.inputs = {{"a", {2, 3}, DType::kFloat16}, {"b", {3}, DType::kBFloat16}};
  p.nodes = {{"v0", OpKind::kAdd, {"a", "b"}}, {"v1", OpKind::kMulScalar, {"v0"}, std::nullopt, 0.5}};
  p.outputs = {"v1"};
  Expectation e = Expect(p);
  ASSERT_FALSE(e.rejects) << e.violation.message;
  EXPECT_EQ(e.outputs[0], (ValueType{{2, 3}, DType::kFloat32, Device::kCpu}));
  p.inputs[1].shape = {4};
  EXPECT_EQ(Expect(p).violation.rule, "shape");
}

}  // namespace
}  // namespace mmdiff
