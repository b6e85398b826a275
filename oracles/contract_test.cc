// Tests for the contract: the seed bug's program must be rejected; legal programs get their types.
#include "oracles/contract.h"

#include <gtest/gtest.h>

#include <limits>
#include <utility>

#include "src/ir/test_programs.h"

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

TEST(Contract, GradientsTakeTheirInputsTypesAndOnlyFloatingInputsRequireGrad) {
  Program p = Matmul(DType::kFloat16, DType::kFloat16, {3, 4}, {4, 2});
  p.inputs[1].requires_grad = true;
  Expectation e = Expect(p);
  ASSERT_FALSE(e.rejects) << e.violation.message;
  ASSERT_EQ(e.outputs.size(), 2u);
  EXPECT_EQ(e.outputs[1], (ValueType{{4, 2}, DType::kFloat16, Device::kCpu}));
  EXPECT_EQ(e.result_names, (std::vector<std::string>{"v0", "grad(x1)"}));
  Program ints = Matmul(DType::kInt32, DType::kInt32, {3, 4}, {4, 2});
  ints.inputs[0].requires_grad = true;
  Expectation r = Expect(ints);
  ASSERT_TRUE(r.rejects);
  EXPECT_EQ(r.violation.rule, "grad_dtype");
  EXPECT_EQ(r.violation.node, "x0");
  EXPECT_EQ(r.violation.error_class, "RuntimeError");
}

TEST(Contract, TheBackwardOfAMoveToMetaMustRaise) {
  Program p = Matmul(DType::kFloat32, DType::kFloat32, {3, 4}, {4, 2});
  p.inputs[1].device = Device::kMeta;
  Node move{"m", OpKind::kToDevice, {"x0"}};
  move.device = Device::kMeta;
  p.nodes.insert(p.nodes.begin(), move);
  p.nodes[1].args = {"m", "x1"};
  EXPECT_FALSE(Expect(p).rejects);   // forward only: fine
  p.inputs[1].requires_grad = true;  // the gradient of x1 never leaves meta: fine
  EXPECT_FALSE(Expect(p).rejects);
  p.inputs[0].requires_grad = true;  // x0's would have to be copied out of meta
  Expectation e = Expect(p);
  ASSERT_TRUE(e.rejects);
  EXPECT_TRUE(e.violation.backward);
  EXPECT_EQ(e.violation.rule, "meta_copy_out");
  EXPECT_EQ(e.violation.node, "m");
  EXPECT_EQ(e.violation.error_class, "NotImplementedError");
}

TEST(Contract, UnderAutocastOpsAreJudgedInTheDtypesTheyRunIn) {
  // float32 @ float16 in a cpu bfloat16 region: both become bfloat16, and so does the result.
  Program p = Matmul(DType::kFloat32, DType::kFloat16, {3, 4}, {4, 2});
  p.nodes[0].autocast = 0;
  p.autocast = {{Device::kCpu, DType::kBFloat16, true, std::nullopt}};
  Expectation e = Expect(p);
  ASSERT_FALSE(e.rejects) << e.violation.message;
  EXPECT_EQ(e.outputs[0].dtype, DType::kBFloat16);
  // float64 is not cast: float64 @ bfloat16 is eager's mixed-dtype error.
  p.inputs[1].dtype = DType::kFloat64;
  e = Expect(p);
  ASSERT_TRUE(e.rejects);
  EXPECT_EQ(e.violation.rule, "same_dtype");
  EXPECT_EQ(e.violation.node, p.nodes[0].name);
  // A disabled region, or a cuda one, leaves the cpu mm alone: float32 @ float64 as written.
  p.autocast[0].device = Device::kCuda;
  EXPECT_EQ(Expect(p).violation.rule, "same_dtype");
  p.inputs[1].dtype = DType::kFloat32;
  EXPECT_EQ(Expect(p).outputs[0].dtype, DType::kFloat32);
}

TEST(Contract, AutocastsPromotionOverBothSixteenBitDtypesRaises) {
  Program p = Matmul(DType::kFloat16, DType::kBFloat16, {4}, {4});
  p.nodes[0].op = OpKind::kDot;
  for (auto& in : p.inputs) in.device = Device::kCuda;
  p.nodes[0].autocast = 0;
  p.autocast = {{Device::kCuda, DType::kFloat16, true, std::nullopt}};
  Expectation e = Expect(p);
  ASSERT_TRUE(e.rejects);
  EXPECT_EQ(e.violation.rule, "autocast_promote");
  EXPECT_EQ(e.violation.error_class, "RuntimeError");
  // With float32 instead of bfloat16 both run in float32.
  p.inputs[1].dtype = DType::kFloat32;
  e = Expect(p);
  ASSERT_FALSE(e.rejects) << e.violation.message;
  EXPECT_EQ(e.outputs[0].dtype, DType::kFloat32);
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

TEST(Contract, AttentionSoftmaxIntegerAndMoveRules) {
  Program p;
  p.inputs = {{"q", {1, 2, 3, 4}, DType::kFloat16},
              {"k", {1, 2, 5, 4}, DType::kFloat16},
              {"v", {1, 2, 5, 6}, DType::kFloat16},
              {"m", {3, 5}, DType::kFloat16}};
  p.nodes = {{"a", OpKind::kSdpa, {"q", "k", "v", "m"}}};
  p.outputs = {"a"};
  Expectation ok = Expect(p);
  ASSERT_FALSE(ok.rejects) << ok.violation.message;
  EXPECT_EQ(ok.outputs[0], (ValueType{{1, 2, 3, 6}, DType::kFloat16, Device::kCpu}));
  p.inputs[3].dtype = DType::kFloat64;  // neither bool, float32 nor q's dtype
  EXPECT_EQ(Expect(p).violation.rule, "sdpa_dtype");
  p.inputs[3].dtype = DType::kBool;
  p.nodes[0].is_causal = true;  // a mask and is_causal together
  EXPECT_EQ(Expect(p).violation.rule, "sdpa_args");

  Program s;
  s.inputs = {{"x", {2, 3}, DType::kInt32}};
  s.nodes = {{"p", OpKind::kSoftmax, {"x"}}};
  s.nodes[0].ints = {-1};
  s.outputs = {"p"};
  EXPECT_EQ(Expect(s).violation.error_class, "NotImplementedError");
  s.nodes[0].dtype = DType::kFloat32;  // softmax(x, dim=-1, dtype=torch.float32) is fine
  EXPECT_EQ(Expect(s).outputs.at(0).dtype, DType::kFloat32);
  s.nodes[0] = {"p", OpKind::kMulScalar, {"x"}};
  s.nodes[0].alpha = 0.5;  // int * 0.5 is float32
  EXPECT_EQ(Expect(s).outputs.at(0).dtype, DType::kFloat32);

  Program mv;
  mv.inputs = {{"x", {2, 3}, DType::kFloat32, Device::kMeta}};
  mv.nodes = {{"c", OpKind::kToDevice, {"x"}}};
  mv.nodes[0].device = Device::kCpu;
  mv.outputs = {"c"};
  EXPECT_EQ(Expect(mv).violation.rule, "meta_copy_out");
  mv.inputs[0].device = Device::kCpu;
  mv.nodes[0].device = Device::kMeta;
  EXPECT_EQ(Expect(mv).outputs.at(0).device, Device::kMeta);
}

TEST(Contract, IntegerAddmmScalarsAndEmptyProducts) {
  Program p;
  p.inputs = {
      {"b", {2, 5}, DType::kUInt8}, {"x", {2, 3}, DType::kUInt8}, {"y", {3, 5}, DType::kUInt8}};
  p.nodes = {{"v0", OpKind::kAddmm, {"b", "x", "y"}}};
  p.nodes[0].beta = -1.0;  // a negative float does not fit uint8
  p.outputs = {"v0"};
  EXPECT_EQ(Expect(p).violation.rule, "scalar_range");
  p.nodes[0].beta = 0.5;  // fits, and is truncated
  EXPECT_FALSE(Expect(p).rejects);
  p.inputs[1].shape = {2, 0};
  p.inputs[2].shape = {0, 5};  // K = 0 with a float beta other than 0
  EXPECT_EQ(Expect(p).violation.rule, "int_scalar_empty_k");
  p.inputs[1].device = p.inputs[2].device = p.inputs[0].device = Device::kCuda;
  p.inputs[1].shape = {2, 3};
  p.inputs[2].shape = {3, 5};
  EXPECT_EQ(Expect(p).violation.rule, "cuda_integer_matmul");

  // An empty bmm-path product of one dtype may have one eager does not implement (the dispatch is
  // skipped, as for mm with K = 0).
  Program e = Matmul(DType::kBool, DType::kBool, {2, 0, 3}, {2, 3, 4});
  Expectation ee = Expect(e);
  ASSERT_FALSE(ee.rejects) << ee.violation.message;
  EXPECT_EQ(ee.outputs[0].dtype, DType::kBool);
  EXPECT_EQ(Expect(Matmul(DType::kBool, DType::kBool, {2, 1, 3}, {2, 3, 4})).violation.rule,
            "supported_dtype");
}

// Where eager breaks a rule that a sibling op and the maintainers keep, the contract follows the
// rule and names eager's deviation (docs/judging.md, "Where eager breaks the rule").
TEST(Contract, AnEmptyMixedDtypeBatchedProductBreaksSameDtypeAsMmDoes) {
  const auto op = test_programs::OneOp;
  const DType f64 = DType::kFloat64, i64 = DType::kInt64;
  // Eager on cpu accepts these (float64 @ int64 -> int64); mm raises on the same operands.
  std::vector<Program> batched = {
      op(OpKind::kBmm, {{"a", {0, 2, 3}, f64}, {"b", {0, 3, 4}, i64}}),  // no batch
      op(OpKind::kBmm, {{"a", {2, 2, 0}, f64}, {"b", {2, 0, 4}, i64}}),  // K = 0
      op(OpKind::kBaddbmm, {{"c", {2, 0, 4}, f64}, {"a", {2, 0, 3}, f64}, {"b", {2, 3, 4}, i64}}),
      Matmul(f64, i64, {1, 1, 1, 0}, {1, 1, 0, 1}),  // 4-D
      Matmul(f64, i64, {0, 1}, {1, 1, 1}),           // 2-D @ 3-D: the bmm path
  };
  for (const Program& p : batched) {
    Expectation e = Expect(p);
    ASSERT_TRUE(e.rejects) << p.Summary();
    EXPECT_EQ(e.violation.rule, "same_dtype") << p.Summary();
    EXPECT_EQ(e.violation.error_class, "RuntimeError") << p.Summary();
    EXPECT_EQ(e.violation.eager_deviation, "empty_bmm_dtype") << p.Summary();
    EXPECT_EQ(Expect(p, {2, 11}).violation.eager_deviation, "empty_bmm_dtype") << p.Summary();
    const ContractRule* row = FindContractRule(e.violation.eager_deviation);
    ASSERT_NE(row, nullptr);
    EXPECT_NE(row->source.find("100274"), std::string::npos);
    EXPECT_EQ(row->where, "with an empty operand");
  }
  // A >= 3-D first operand with a 2-D second: folded into mm when contiguous (eager raises), the
  // bmm path when its strides forbid the fold (eager accepts); the contract sees no strides and
  // names the deviation for both, which only the second shows.
  Program lin = op(OpKind::kLinear, {{"x", {2, 2, 2}, DType::kFloat32}, {"w", {0, 2}, f64}});
  for (const Program& p : {lin, Matmul(DType::kFloat32, f64, {2, 2, 2}, {2, 0})}) {
    EXPECT_EQ(Expect(p).violation.rule, "same_dtype") << p.Summary();
    EXPECT_EQ(Expect(p).violation.eager_deviation, "empty_bmm_dtype") << p.Summary();
  }
  Program full = lin;
  full.inputs[1].shape = {3, 2};  // not empty: the rule, kept by eager
  EXPECT_EQ(Expect(full).violation.eager_deviation, "");
  // mm of the same empty operands: the rule, which eager keeps there (no deviation).
  Expectation mm = Expect(op(OpKind::kMm, {{"a", {0, 3}, f64}, {"b", {3, 4}, i64}}));
  EXPECT_EQ(mm.violation.rule, "same_dtype");
  EXPECT_EQ(mm.violation.eager_deviation, "");
  // Not empty, or on meta (torch's meta function checks): the rule, kept by eager.
  EXPECT_EQ(Expect(Matmul(f64, i64, {2, 1, 3}, {2, 3, 4})).violation.eager_deviation, "");
  Program on_meta = batched[0];
  for (auto& in : on_meta.inputs) in.device = Device::kMeta;
  EXPECT_EQ(Expect(on_meta).violation.rule, "same_dtype");
  EXPECT_EQ(Expect(on_meta).violation.eager_deviation, "");
  // baddbmm compares its bias with the first matrix before returning: eager raises there.
  Program bias = batched[2];
  bias.inputs[0].dtype = i64;
  EXPECT_EQ(Expect(bias).violation.rule, "same_dtype");
  EXPECT_EQ(Expect(bias).violation.eager_deviation, "");
}

TEST(Contract, ALinearBiasOfAnotherDtypeBreaksSameDtypeWhateverTheInputsRank) {
  Program p;
  p.inputs = {
      {"x", {4}, DType::kFloat32}, {"w", {5, 4}, DType::kFloat32}, {"b", {}, DType::kFloat64}};
  p.nodes = {{"v0", OpKind::kLinear, {"x", "w", "b"}}};
  p.outputs = {"v0"};
  // Eager adds the bias in place after a 1-D input's matmul and returns float32.
  Expectation e = Expect(p);
  ASSERT_TRUE(e.rejects);
  EXPECT_EQ(e.violation.rule, "same_dtype");
  EXPECT_EQ(e.violation.eager_deviation, "linear_bias_dtype");
  // A 2-D input goes through addmm, which raises: eager keeps the rule.
  p.inputs[0].shape = {3, 4};
  EXPECT_EQ(Expect(p).violation.rule, "same_dtype");
  EXPECT_EQ(Expect(p).violation.eager_deviation, "");
  // Input and weight of different dtypes: the matmul raises, whatever the input's rank.
  p.inputs[0].shape = {2, 3, 4};
  EXPECT_EQ(Expect(p).violation.eager_deviation, "linear_bias_dtype");
  p.inputs[1].dtype = DType::kFloat64;
  EXPECT_EQ(Expect(p).violation.eager_deviation, "");
}

TEST(Contract, AddmmBiasDtypeCountsAndCastsFixMismatches) {
  Program p;
  p.inputs = {
      {"b", {5}, DType::kFloat32}, {"x", {2, 3}, DType::kFloat16}, {"y", {3, 5}, DType::kFloat16}};
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
  // narrow: a start outside [-size, size] is an IndexError; a length past the end a RuntimeError.
  p.nodes[0] = {"v0", OpKind::kNarrow, {"x"}, std::nullopt, 1.0, 1.0, {1, 4, 1}};
  EXPECT_EQ(Expect(p).violation.error_class, "IndexError");
  EXPECT_EQ(Expect(p).violation.rule, "dim_range");
  p.nodes[0] = {"v0", OpKind::kNarrow, {"x"}, std::nullopt, 1.0, 1.0, {1, 2, 2}};
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
  p.nodes = {{"v0", OpKind::kAdd, {"a", "b"}},
             {"v1", OpKind::kMulScalar, {"v0"}, std::nullopt, 0.5}};
  p.outputs = {"v1"};
  Expectation e = Expect(p);
  ASSERT_FALSE(e.rejects) << e.violation.message;
  EXPECT_EQ(e.outputs[0], (ValueType{{2, 3}, DType::kFloat32, Device::kCpu}));
  p.inputs[1].shape = {4};
  EXPECT_EQ(Expect(p).violation.rule, "shape");
}

TEST(Contract, ReleasesParseAndTheAddmvRuleFollowsThem) {
  EXPECT_EQ(ParseTorchRelease("2.11.0+cu130"), (TorchRelease{2, 11}));
  EXPECT_EQ(ParseTorchRelease("2.15.0"), (TorchRelease{2, 15}));
  EXPECT_EQ(ParseTorchRelease(""), TorchRelease{});  // a build without torch: the newest
  EXPECT_EQ(ParseTorchRelease("nightly"), TorchRelease{});
  // addmv with a float64 bias and float32 operands: the rule rejects it in every release; eager
  // before 2.12 ignores the bias's dtype, which the violation names as eager's deviation, and
  // from 2.12 compares all three.
  Program p;
  p.inputs = {
      {"b", {3}, DType::kFloat64}, {"m", {3, 4}, DType::kFloat32}, {"v", {4}, DType::kFloat32}};
  p.nodes = {{"y", OpKind::kAddmv, {"b", "m", "v"}}};
  p.outputs = {"y"};
  Expectation old_rules = Expect(p, {2, 11});
  EXPECT_EQ(old_rules.violation.rule, "same_dtype");
  EXPECT_EQ(old_rules.violation.eager_deviation, "addmv_bias_dtype");
  EXPECT_EQ(Expect(p, {2, 12}).violation.rule, "same_dtype");
  EXPECT_EQ(Expect(p, {2, 12}).violation.eager_deviation, "");
  // On meta eager runs the meta function, which checks nothing either before 2.12: no deviation.
  Program on_meta = p;
  for (auto& in : on_meta.inputs) in.device = Device::kMeta;
  EXPECT_EQ(Expect(on_meta, {2, 11}).violation.eager_deviation, "");
  // The same dtypes everywhere: accepted.
  p.inputs[0].dtype = DType::kFloat32;
  EXPECT_FALSE(Expect(p, {2, 11}).rejects);
  p.inputs[0].dtype = DType::kFloat64;
  // On cuda before 2.12 an integer matrix is refused before the dtypes are compared.
  for (auto& in : p.inputs) in.device = Device::kCuda;
  p.inputs[1].dtype = DType::kInt64;
  EXPECT_EQ(Expect(p, {2, 11}).violation.error_class, "NotImplementedError");
  EXPECT_EQ(Expect(p, {2, 15}).violation.error_class, "RuntimeError");
}

}  // namespace
}  // namespace mmdiff

namespace mmdiff {
namespace {

// Dropout that trains with p > 0 scales by a float: eager rejects a non-floating input unless it is
// empty; p = 0 or eval returns the input, whatever its dtype.
TEST(Contract, DropoutThatZeroesNeedsAFloatingInputUnlessEmpty) {
  auto dropout = [](DType d, Shape s, double p, bool train) {
    Program prog = test_programs::OneOp(OpKind::kDropout, {{"x", s, d}});
    prog.nodes[0].dropout_p = p;
    prog.nodes[0].train = train;
    return prog;
  };
  Expectation e = Expect(dropout(DType::kInt32, {3, 4}, 0.5, true));
  ASSERT_TRUE(e.rejects);
  EXPECT_EQ(e.violation.rule, "dropout_dtype");
  EXPECT_EQ(e.violation.error_class, "RuntimeError");
  for (const Program& ok :
       {dropout(DType::kInt32, {0, 4}, 0.5, true), dropout(DType::kBool, {3, 4}, 0.0, true),
        dropout(DType::kUInt8, {3, 4}, 0.5, false), dropout(DType::kFloat16, {3, 4}, 0.5, true)}) {
    Expectation x = Expect(ok);
    EXPECT_FALSE(x.rejects) << ok.Summary() << ": " << x.violation.message;
    EXPECT_EQ(x.outputs[0].dtype, ok.inputs[0].dtype) << ok.Summary();
  }
}

// Probed on torch 2.15.0 cpu (oracles/contract.cc's mask_dtype and fill_value rules).
TEST(Contract, MasksNeedBoolAndFillValuesMustFit) {
  const double inf = std::numeric_limits<double>::infinity();
  auto fill = [](DType x, DType mask, double value, Device d = Device::kCpu) {
    Program p;
    p.inputs = {{"x", {2, 3}, x, d}, {"m", {3}, mask, d}};
    p.nodes = {{"v0", OpKind::kMaskedFill, {"x", "m"}, std::nullopt, value}};
    p.outputs = {"v0"};
    return Expect(p);
  };
  EXPECT_EQ(fill(DType::kFloat32, DType::kUInt8, 1.0).violation.rule, "mask_dtype");
  EXPECT_EQ(fill(DType::kFloat32, DType::kFloat32, 1.0).violation.rule, "mask_dtype");
  EXPECT_EQ(fill(DType::kInt32, DType::kBool, -inf).violation.rule, "fill_value");
  EXPECT_EQ(fill(DType::kFloat16, DType::kBool, 65505.0).violation.rule, "fill_value");
  EXPECT_EQ(fill(DType::kInt8, DType::kBool, 128.0).violation.rule, "fill_value");
  EXPECT_EQ(fill(DType::kInt8, DType::kBool, -128.01).violation.rule, "fill_value");
  EXPECT_EQ(fill(DType::kUInt8, DType::kBool, -0.5).violation.rule, "fill_value");
  EXPECT_FALSE(fill(DType::kFloat16, DType::kBool, 1e6, Device::kMeta).rejects);  // unchecked
  for (auto [x, v] : {std::pair{DType::kInt8, 127.99},
                      {DType::kUInt8, 255.5},
                      {DType::kFloat16, -inf},
                      {DType::kFloat16, 65504.0},
                      {DType::kBool, -1e4}}) {
    Expectation e = fill(x, DType::kBool, v);
    EXPECT_FALSE(e.rejects) << DTypeName(x) << " " << v << ": " << e.violation.message;
    EXPECT_EQ(e.outputs[0], (ValueType{{2, 3}, x, Device::kCpu}));
  }

  Program w;
  w.inputs = {{"c", {3}, DType::kUInt8}, {"x", {2, 3}, DType::kInt32}, {"y", {}, DType::kFloat16}};
  w.nodes = {{"v0", OpKind::kWhere, {"c", "x", "y"}}};
  w.outputs = {"v0"};
  Expectation e = Expect(w);  // a uint8 condition is still accepted (deprecated)
  ASSERT_FALSE(e.rejects) << e.violation.message;
  EXPECT_EQ(e.outputs[0], (ValueType{{2, 3}, DType::kFloat16, Device::kCpu}));
  w.inputs[0].dtype = DType::kFloat32;
  EXPECT_EQ(Expect(w).violation.rule, "mask_dtype");

  Program f = test_programs::OneOp(OpKind::kFull, {{"x", {2}, DType::kFloat16}});
  f.nodes[0].dtype = DType::kFloat32;
  f.nodes[0].alpha = 1e39;  // float32 overflows; float16 and bfloat16 round to inf
  EXPECT_EQ(Expect(f).violation.rule, "fill_value");
  f.nodes[0].dtype = DType::kFloat16;
  EXPECT_FALSE(Expect(f).rejects);
  // Without a dtype, full takes its argument's: an integer one checks the value's range too.
  f.nodes[0].dtype.reset();
  f.inputs[0].dtype = DType::kInt32;
  f.nodes[0].alpha = -inf;
  EXPECT_EQ(Expect(f).violation.rule, "fill_value");
  f.nodes[0].alpha = 2.5;  // truncated
  EXPECT_EQ(Expect(f).outputs[0].dtype, DType::kInt32);
  Program t = test_programs::OneOp(OpKind::kTril, {{"x", {3}, DType::kFloat32}});
  t.nodes[0].ints = {0};
  EXPECT_EQ(Expect(t).violation.rule, "shape");
  t.inputs[0].shape = {2, 3, 3};
  EXPECT_FALSE(Expect(t).rejects);
}

}  // namespace
}  // namespace mmdiff

namespace mmdiff {
namespace {

// The pointwise epilogues, as probed on torch 2.15.0 cpu for every dtype: gelu and silu take a
// floating input, relu any but bool (also empty); sigmoid and tanh of an integer or bool are
// float32; clamp by integer bounds keeps an integer dtype and makes bool int64.
TEST(Contract, EpiloguesTakeTheDtypesTheirKernelsHave) {
  auto unary = [](OpKind k, DType d, Shape s = {3, 4}) {
    Program p = test_programs::OneOp(k, {{"x", s, d}});
    if (k == OpKind::kClamp) std::tie(p.nodes[0].alpha, p.nodes[0].beta) = std::pair{-1.0, 1.0};
    return p;
  };
  for (auto [k, d] :
       {std::pair{OpKind::kGelu, DType::kInt32}, std::pair{OpKind::kSilu, DType::kBool},
        std::pair{OpKind::kRelu, DType::kBool}, std::pair{OpKind::kGelu, DType::kUInt8}}) {
    for (Shape s : {Shape{3, 4}, Shape{0}}) {
      Expectation e = Expect(unary(k, d, s));
      ASSERT_TRUE(e.rejects) << GetOpSpec(k).name << " " << DTypeName(d);
      EXPECT_EQ(e.violation.rule, "epilogue_dtype");
      EXPECT_EQ(e.violation.error_class, "NotImplementedError");
    }
  }
  struct Typed {
    OpKind k;
    DType in, out;
  };
  for (const Typed& t : {Typed{OpKind::kRelu, DType::kInt8, DType::kInt8},
                         Typed{OpKind::kGelu, DType::kBFloat16, DType::kBFloat16},
                         Typed{OpKind::kSilu, DType::kFloat16, DType::kFloat16},
                         Typed{OpKind::kSigmoid, DType::kInt64, DType::kFloat32},
                         Typed{OpKind::kTanh, DType::kBool, DType::kFloat32},
                         Typed{OpKind::kClamp, DType::kUInt8, DType::kUInt8},
                         Typed{OpKind::kClamp, DType::kBool, DType::kInt64}}) {
    Expectation e = Expect(unary(t.k, t.in));
    EXPECT_FALSE(e.rejects) << GetOpSpec(t.k).name << ": " << e.violation.message;
    ASSERT_EQ(e.outputs.size(), 1u);
    EXPECT_EQ(e.outputs[0].dtype, t.out) << GetOpSpec(t.k).name << " of " << DTypeName(t.in);
  }
}

}  // namespace
}  // namespace mmdiff
