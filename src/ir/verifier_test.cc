// Tests for the verifier: legal programs pass, each kind of structural error is named.
#include "src/ir/verifier.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "src/ir/test_programs.h"

namespace mmdiff {
namespace {

Program Valid() {
  Program p;
  p.inputs = {{"a", {2, 3}, DType::kFloat16}, {"b", {3, 4}, DType::kFloat32}};
  p.nodes = {{"v0", OpKind::kMm, {"a", "b"}}};
  p.outputs = {"v0"};
  return p;
}

void ExpectError(const Program& p, const std::string& fragment) {
  Status s = Verify(p);
  ASSERT_FALSE(s.ok()) << "expected an error containing " << fragment;
  EXPECT_NE(s.message().find(fragment), std::string::npos) << s.message();
}

TEST(Verifier, MaskAndFillNodesKeepTheirAttributesInRange) {
  Program p = test_programs::MaskedFill(-std::numeric_limits<double>::infinity());
  EXPECT_TRUE(Verify(p).ok());  // an infinite fill value is what masks use
  p.nodes[0].alpha = std::nan("");
  ExpectError(p, "alpha must not be NaN");
  p.nodes[0] = {
      "v0", OpKind::kEqScalar, {"x"}, std::nullopt, std::numeric_limits<double>::infinity()};
  ExpectError(p, "alpha must be finite");
  p.nodes[0] = {"v0", OpKind::kFull, {"x"}, DType::kInt32, 1.0, 1.0, {2}};
  ExpectError(p, "full makes floating or bool tensors only");
  p.nodes[0].dtype = DType::kBool;
  EXPECT_TRUE(Verify(p).ok());
  p.nodes[0] = {"v0", OpKind::kTril, {"x"}, std::nullopt, 1.0, 1.0, {0, 1}};
  ExpectError(p, "ints must be {diagonal}");
  p.inputs = {{"c", {3}, DType::kBool}, {"a", {3}, DType::kInt8}, {"b", {3}, DType::kUInt8}};
  p.nodes = {{"v0", OpKind::kWhere, {"c", "a", "b"}}};
  ExpectError(p, "int8 with uint8 gives int16");
  p.inputs[2].shape = {};  // a 0-d uint8 does not promote an int8 tensor
  EXPECT_TRUE(Verify(p).ok());
}

TEST(Verifier, ContractViolationsAreLegalPrograms) {
  // Mixed dtypes are exactly what mmdiff tests: the verifier accepts them.
  EXPECT_TRUE(Verify(Valid()).ok());
  Program p = Valid();
  p.inputs[1].shape = {7, 4};  // shape mismatch is a contract matter too
  EXPECT_TRUE(Verify(p).ok());
}

TEST(Verifier, StructuralErrorsNameTheNode) {
  Program p = Valid();
  p.nodes[0].args = {"a", "zz"};
  ExpectError(p, "node \"v0\" (mm): argument \"zz\"");
  p = Valid();
  p.nodes[0].args = {"a"};
  ExpectError(p, "takes 2 arguments");
  p = Valid();
  p.nodes.push_back({"v0", OpKind::kCast, {"v0"}, DType::kFloat32});
  ExpectError(p, "defined twice");
  p = Valid();
  p.nodes.push_back({"v1", OpKind::kCast, {"v0"}});
  ExpectError(p, "needs a \"dtype\"");
  p = Valid();
  p.inputs[0].shape = {2, -3};
  ExpectError(p, "input \"a\": negative dimension");
  p = Valid();
  p.inputs[0].name = "import";
  ExpectError(p, "identifier");
  p = Valid();
  p.outputs = {"nope"};
  ExpectError(p, "output \"nope\"");
  p = Valid();
  p.inputs[0].shape = {1 << 13, 1 << 13};
  ExpectError(p, "more than");
  p = Valid();
  p.nodes[0].alpha = 2.0;
  ExpectError(p, "takes no alpha/beta");
  p = Valid();
  p.nodes.push_back({"v1", OpKind::kDivScalar, {"v0"}, std::nullopt, 0.0});
  p.outputs = {"v1"};
  ExpectError(p, "cannot divide by 0");
  p.nodes.back().alpha = std::numeric_limits<double>::infinity();
  ExpectError(p, "alpha must be finite");
  p.nodes.back().alpha = -2.0;
  EXPECT_TRUE(Verify(p).ok());
  p = Valid();
  p.nodes.push_back({"v1", OpKind::kDropout, {"v0"}});
  p.outputs = {"v1"};
  p.nodes.back().dropout_p = 1.0;
  ExpectError(p, "dropout's p must lie in [0, 1)");
  p.nodes.back().dropout_p = 0.5;
  p.nodes.back().train = true;
  EXPECT_TRUE(Verify(p).ok());
  p.nodes[0].train = true;  // on the mm
  ExpectError(p, "p and train belong to dropout");
}

// Names become variables of generated Python (repro.py) and TorchScript: a keyword made repro.py
// fail to parse, a builtin's name would shadow what the generated code calls.
TEST(Verifier, PythonKeywordsBuiltinsAndDunderNamesAreNotNames) {
  for (const char* bad : {"yield", "pass", "async", "await", "match", "case", "type", "_",
                          "__debug__", "__x", "print", "float", "RuntimeError", "torch", "sys"}) {
    Program p = Valid();
    p.inputs[0].name = bad;
    p.nodes[0].args[0] = bad;
    ExpectError(p, "input \"" + std::string(bad) + "\": name is not a usable identifier");
    p = Valid();
    p.nodes[0].name = bad;
    p.outputs = {bad};
    ExpectError(p, "name is not a usable identifier");
  }
  // A name from a file may be huge: the message quotes it clipped.
  Program p = Valid();
  p.inputs[0].name = std::string(100000, 'x');
  Status s = Verify(p);
  ASSERT_FALSE(s.ok());
  EXPECT_LT(s.message().size(), 200u);
  EXPECT_NE(s.message().find("(100000 characters)"), std::string::npos) << s.message();
  for (const char* good : {"x0", "bias", "_x", "query", "printer", "a__b"}) {
    Program p = Valid();
    p.inputs[0].name = good;
    p.nodes[0].args[0] = good;
    EXPECT_TRUE(Verify(p).ok()) << good;
  }
}

// A weight is an attribute of the model repro.py and the compiled paths build (self.<name>).
TEST(Verifier, ABufferDoesNotTrainAndAWeightIsNotNamedLikeAModulesAttribute) {
  Program p = test_programs::LinearModel();
  EXPECT_TRUE(Verify(p).ok());
  p.inputs[2].requires_grad = true;
  ExpectError(p, "input \"b\": a buffer cannot require grad (a trained weight is a parameter)");
  p.inputs[2].role = InputRole::kParameter;
  EXPECT_TRUE(Verify(p).ok());
  for (const char* bad : {"forward", "training", "to", "_x", "parameters"}) {
    Program q = test_programs::LinearModel();
    q.inputs[1].name = bad;
    q.nodes[0].args[1] = bad;
    ExpectError(q, "a weight cannot be named like torch.nn.Module's attribute");
    q.inputs[1].role = InputRole::kInput;  // an argument of forward may be
    EXPECT_TRUE(Verify(q).ok()) << bad;
  }
  // Nor may any input be named like repro.py's model or its forward's first argument.
  for (const char* bad : {"self", "Model"}) {
    Program q = test_programs::LinearModel();
    q.inputs[0].name = bad;
    q.nodes[0].args[0] = bad;
    ExpectError(q, "name is not a usable identifier");
  }
}

TEST(Verifier, CountsAndTotalInputSizeHaveLimits) {
  Program p = Valid();
  for (size_t i = p.inputs.size(); i <= kMaxInputs; ++i)
    p.inputs.push_back({"i" + std::to_string(i), {1}, DType::kFloat32});
  ExpectError(p, "inputs; the limit is 256");
  p = Valid();
  p.outputs.assign(kMaxOutputs + 1, "v0");
  ExpectError(p, "outputs; the limit is 256");
  p = Valid();
  for (int i = 0; i < 5; ++i)
    p.inputs.push_back({"big" + std::to_string(i), {1 << 12, 1 << 12}, DType::kFloat32});
  ExpectError(p, "elements together");
}

TEST(Verifier, UseBeforeDefinitionIsRejected) {
  Program p = Valid();
  p.nodes.insert(p.nodes.begin(), Node{"v1", OpKind::kCast, {"v0"}, DType::kFloat32});
  ExpectError(p, "not defined before");
}

}  // namespace
}  // namespace mmdiff

namespace mmdiff {
namespace {

TEST(Verifier, LinearTakesTwoOrThreeArguments) {
  Program p;
  p.inputs = {
      {"x", {2, 3}, DType::kFloat32}, {"w", {4, 3}, DType::kFloat32}, {"b", {4}, DType::kFloat32}};
  p.nodes = {{"v0", OpKind::kLinear, {"x", "w"}}, {"v1", OpKind::kLinear, {"x", "w", "b"}}};
  p.outputs = {"v0", "v1"};
  EXPECT_TRUE(Verify(p).ok());
  p.nodes[0].args = {"x"};
  Status s = Verify(p);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("takes 2 or 3 arguments"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace mmdiff

namespace mmdiff {
namespace {

TEST(Verifier, ResultsLargerThanTheLimitAreRejected) {
  Program p;
  p.inputs = {{"a", {1 << 13, 1}, DType::kFloat32}, {"b", {1, 1 << 13}, DType::kFloat32}};
  p.nodes = {{"v0", OpKind::kMm, {"a", "b"}}};
  p.outputs = {"v0"};
  Status s = Verify(p);  // 2^26 elements: a worker would need 256 MB for one float32 result
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("node \"v0\" (mm): result [8192, 8192] is larger"), std::string::npos)
      << s.message();
  Program e;
  e.inputs = {{"a", {1}, DType::kFloat32}};
  e.nodes = {{"v0", OpKind::kExpand, {"a"}, std::nullopt, 1.0, 1.0, {1 << 20, 1 << 20, 1 << 20}}};
  e.outputs = {"v0"};
  EXPECT_FALSE(Verify(e).ok());  // saturating size arithmetic, no overflow
}

TEST(Verifier, IntsOnlyOnViews) {
  Program p;
  p.inputs = {{"a", {2, 3}, DType::kFloat32}};
  p.nodes = {{"v0", OpKind::kTranspose, {"a"}, std::nullopt, 1.0, 1.0, {0, 1}}};
  p.outputs = {"v0"};
  EXPECT_TRUE(Verify(p).ok());
  p.nodes[0].op = OpKind::kCast;
  p.nodes[0].dtype = DType::kFloat16;
  Status s = Verify(p);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("takes no \"ints\""), std::string::npos) << s.message();
}

}  // namespace
}  // namespace mmdiff

namespace mmdiff {
namespace {

TEST(Verifier, ClampsBoundsAreOrderedIntegersAndOnlyGeluIsApproximated) {
  Program p = test_programs::OneOp(OpKind::kClamp, {{"x", {3}, DType::kFloat32}});
  p.nodes[0].alpha = -1;
  p.nodes[0].beta = 6;
  EXPECT_TRUE(Verify(p).ok());
  for (auto [lo, hi] : {std::pair{0.5, 6.0}, std::pair{2.0, 1.0}, std::pair{0.0, 1e9}}) {
    p.nodes[0].alpha = lo;
    p.nodes[0].beta = hi;
    EXPECT_FALSE(Verify(p).ok()) << lo << " " << hi;
  }
  Program r = test_programs::OneOp(OpKind::kRelu, {{"x", {3}, DType::kFloat32}});
  r.nodes[0].gelu_tanh = true;
  EXPECT_FALSE(Verify(r).ok());
  r.nodes[0].op = OpKind::kGelu;
  EXPECT_TRUE(Verify(r).ok());
  r.nodes[0].alpha = 2;  // no scalar on gelu
  EXPECT_FALSE(Verify(r).ok());
}

}  // namespace
}  // namespace mmdiff
