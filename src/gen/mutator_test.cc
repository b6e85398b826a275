// Tests for the mutator: mutate-then-fix always verifies, mutations are deterministic, every kind
// happens, crossover connects programs, and Legalize repairs broken programs.
#include "src/gen/mutator.h"

#include <gtest/gtest.h>

#include <set>

#include "src/gen/generator.h"
#include "src/ir/program_json.h"
#include "src/ir/test_programs.h"
#include "src/ir/verifier.h"

namespace mmdiff {
namespace {

TEST(Mutator, MutateThenFixAlwaysVerifiesAndEveryKindHappens) {
  GenPolicy policy;
  std::set<MutationKind> kinds;
  for (uint64_t seed = 0; seed < 1500; ++seed) {
    Program p = GenerateFromSeed(seed, policy);
    SeededChoices c(seed * 31 + 7);
    for (int step = 0; step < 6; ++step) {
      Mutation m = Mutate(p, c, policy);
      Status s = Verify(m.program);
      ASSERT_TRUE(s.ok()) << "seed " << seed << " step " << step << " (" << MutationName(m.kind)
                          << ": " << m.detail << "): " << s.message() << "\n"
                          << ProgramToJson(m.program).dump();
      ASSERT_FALSE(m.program.nodes.empty());
      kinds.insert(m.kind);
      p = m.program;
    }
  }
  for (int k = 0; k <= static_cast<int>(MutationKind::kWeight); ++k)
    EXPECT_TRUE(kinds.count(static_cast<MutationKind>(k)))
        << MutationName(static_cast<MutationKind>(k));
}

TEST(Mutator, SameSeedSameMutation) {
  GenPolicy policy;
  Program p = GenerateFromSeed(42, policy);
  SeededChoices a(9), b(9);
  Mutation ma = Mutate(p, a, policy), mb = Mutate(p, b, policy);
  EXPECT_EQ(ma.program, mb.program);
  EXPECT_EQ(ma.detail, mb.detail);
}

TEST(Mutator, SwapOpTurnsMmIntoMatmulOrLinearAndBack) {
  Program p;
  p.inputs = {{"a", {2, 3}, DType::kFloat32}, {"b", {3, 4}, DType::kFloat32}};
  p.nodes = {{"v0", OpKind::kMm, {"a", "b"}}};
  p.outputs = {"v0"};
  GenPolicy policy;
  bool to_matmul = false, to_linear = false, back_to_mm = false;
  for (uint64_t seed = 0; seed < 400; ++seed) {
    SeededChoices c(seed);
    Mutation m = Mutate(p, c, policy);
    if (m.kind != MutationKind::kSwapOp) continue;
    const Node& last = m.program.nodes.back();
    if (last.op == OpKind::kMatmul) to_matmul = true;
    if (last.op == OpKind::kLinear) {
      // linear(a, b.T): the weight is a transpose node of b
      ASSERT_EQ(m.program.nodes.size(), 2u);
      EXPECT_EQ(m.program.nodes[0].op, OpKind::kTranspose);
      EXPECT_EQ(m.program.nodes[0].args[0], "b");
      EXPECT_EQ(last.args[1], m.program.nodes[0].name);
      to_linear = true;
      for (uint64_t s2 = 0; s2 < 200 && !back_to_mm; ++s2) {
        SeededChoices c2(s2);
        Mutation back = Mutate(m.program, c2, policy);
        back_to_mm |=
            back.kind == MutationKind::kSwapOp && back.program.nodes.back().op == OpKind::kMm;
      }
    }
  }
  EXPECT_TRUE(to_matmul);
  EXPECT_TRUE(to_linear);
  EXPECT_TRUE(back_to_mm);
}

TEST(Mutator, MoveDeviceInsertsAToDeviceNode) {
  Program p;
  p.inputs = {{"a", {2, 3}, DType::kFloat32}, {"b", {3, 4}, DType::kFloat32}};
  p.nodes = {{"v0", OpKind::kMm, {"a", "b"}}};
  p.outputs = {"v0"};
  std::set<Device> targets;
  for (uint64_t seed = 0; seed < 300; ++seed) {
    SeededChoices c(seed);
    Mutation m = Mutate(p, c, GenPolicy{});
    if (m.kind != MutationKind::kMoveDevice) continue;
    ASSERT_EQ(m.program.nodes.front().op, OpKind::kToDevice);
    targets.insert(*m.program.nodes.front().device);
  }
  EXPECT_EQ(targets.size(), 3u);  // cpu, meta and cuda
}

TEST(Mutator, AutocastPutsANodeIntoARegionAndTakesItOut) {
  Program p;
  p.inputs = {{"a", {2, 2}, DType::kFloat32}};
  p.nodes = {{"v0", OpKind::kMm, {"a", "a"}}};
  p.outputs = {"v0"};
  bool in = false, out = false;
  for (uint64_t seed = 0; seed < 300 && !(in && out); ++seed) {
    SeededChoices c(seed);
    Mutation m = Mutate(p, c, GenPolicy{});
    if (m.kind != MutationKind::kAutocast) continue;
    ASSERT_TRUE(Verify(m.program).ok()) << m.detail;
    ASSERT_EQ(m.program.nodes[0].autocast, 0u) << m.detail;
    EXPECT_EQ(m.program.autocast[0].device, Device::kCpu);
    in = true;
    SeededChoices again(seed);
    Mutation back = Mutate(m.program, again, GenPolicy{});
    if (back.kind != MutationKind::kAutocast) continue;
    EXPECT_FALSE(back.program.nodes[0].autocast) << back.detail;
    out = true;
  }
  EXPECT_TRUE(in);
  EXPECT_TRUE(out);
}

// Respell turns each spelling Inductor's rewrites tell apart into another, and back.
TEST(Mutator, RespellSwitchesScalesMasksAndKeyTransposes) {
  Program p;
  p.inputs = {{"q", {2, 3, 4}, DType::kFloat16}, {"m", {3, 3}, DType::kBool}};
  p.nodes = {{"v_kt", OpKind::kTranspose, {"q"}, std::nullopt, 1.0, 1.0, {-2, -1}},
             {"v_s", OpKind::kMatmul, {"q", "v_kt"}},
             {"v_d", OpKind::kDivScalar, {"v_s"}, std::nullopt, 2.0},
             {"v_f", OpKind::kMaskedFill, {"v_d", "m"}, std::nullopt, -1e4}};
  p.outputs = {"v_f"};
  std::set<std::string> seen;
  for (uint64_t seed = 0; seed < 400; ++seed) {
    SeededChoices c(seed);
    Mutation m = Mutate(p, c, GenPolicy{});
    if (m.kind != MutationKind::kRespell) continue;
    ASSERT_TRUE(Verify(m.program).ok()) << m.detail;
    const Node* d = m.program.FindNode("v_d");
    const Node* kt = m.program.FindNode("v_kt");
    if (d->op == OpKind::kMulScalar && d->alpha == 0.5) seen.insert("divide -> multiply");
    if (d->op == OpKind::kDiv) {
      const Node* full = m.program.FindNode(d->args[1]);
      ASSERT_TRUE(full && full->op == OpKind::kFull && full->alpha == 2.0) << m.detail;
      seen.insert("0-d tensor");
    }
    if (m.program.FindNode("v_f")->alpha != -1e4) seen.insert("fill value");
    if (kt->op == OpKind::kPermute && kt->ints == std::vector<int64_t>{0, 2, 1})
      seen.insert("permute");
  }
  EXPECT_EQ(seen,
            (std::set<std::string>{"divide -> multiply", "0-d tensor", "fill value", "permute"}));
  // And back: a 0-d tensor scale to a Python float, a permute of the last two dims to a transpose.
  Program t = p;
  t.nodes[0] = {"v_kt", OpKind::kPermute, {"q"}, std::nullopt, 1.0, 1.0, {0, 2, 1}};
  t.nodes[2] = {"v_d", OpKind::kDiv, {"v_s", "v_two"}};
  t.nodes.insert(t.nodes.begin() + 2, Node{"v_two", OpKind::kFull, {"v_s"}, std::nullopt, 2.0});
  std::set<std::string> back;
  for (uint64_t seed = 0; seed < 400; ++seed) {
    SeededChoices c(seed);
    Mutation m = Mutate(t, c, GenPolicy{});
    if (m.kind != MutationKind::kRespell) continue;
    if (m.program.FindNode("v_d")->op == OpKind::kDivScalar) back.insert("python float");
    if (m.program.FindNode("v_kt")->op == OpKind::kTranspose) back.insert("transpose");
  }
  EXPECT_EQ(back, (std::set<std::string>{"python float", "transpose"}));
}

TEST(Mutator, CrossOverKeepsBothOutputsAndVerifies) {
  GenPolicy policy;
  for (uint64_t seed = 0; seed < 300; ++seed) {
    Program a = GenerateFromSeed(seed, policy), b = GenerateFromSeed(seed + 1000, policy);
    SeededChoices c(seed);
    Program x = CrossOver(a, b, c);
    ASSERT_TRUE(Verify(x).ok()) << seed;
    EXPECT_EQ(x.outputs.size(), a.outputs.size() + b.outputs.size()) << seed;
    EXPECT_EQ(x.nodes.size(), std::min(a.nodes.size() + b.nodes.size(), kMaxNodes));
  }
}

TEST(Mutator, CrossOverConnectsMatchingValues) {
  Program a;
  a.inputs = {{"a", {2, 3}, DType::kFloat32}, {"b", {3, 4}, DType::kFloat32}};
  a.nodes = {{"v0", OpKind::kMm, {"a", "b"}}};
  a.outputs = {"v0"};
  Program b;
  b.inputs = {{"p", {2, 4}, DType::kFloat32}, {"q", {4, 5}, DType::kFloat32}};
  b.nodes = {{"v0", OpKind::kMm, {"p", "q"}}};
  b.outputs = {"v0"};
  bool connected = false;
  for (uint64_t seed = 0; seed < 50 && !connected; ++seed) {
    SeededChoices c(seed);
    Program x = CrossOver(a, b, c);
    connected = x.nodes.back().args[0] == "v0";  // b's p (2x4 float32) now reads a's result
  }
  EXPECT_TRUE(connected);
}

TEST(Mutator, LegalizeDropsDanglingNodesAndFixesOutputs) {
  Program p;
  p.inputs = {{"a", {2}, DType::kFloat32, Device::kCpu, Layout::kTransposed},
              {"unused", {3}, DType::kFloat32}};
  p.nodes = {{"v0", OpKind::kDot, {"a", "a"}},
             {"v1", OpKind::kMm, {"v0", "ghost"}},
             {"v2", OpKind::kMm, {"v1", "a"}}};
  p.outputs = {"v2"};
  Program fixed = Legalize(p);
  ASSERT_TRUE(Verify(fixed).ok()) << Verify(fixed).message();
  ASSERT_EQ(fixed.nodes.size(), 1u);
  EXPECT_EQ(fixed.outputs, std::vector<std::string>{"v0"});
  ASSERT_EQ(fixed.inputs.size(), 1u);
  EXPECT_EQ(fixed.inputs[0].layout, Layout::kContiguous);
}

// policy.p_mutate_float: at 1 a changed input or an inserted cast always gets a floating dtype; at
// its default, sometimes an integer one or bool.
TEST(Mutator, NewDTypesAreFloatingWithThePolicysShare) {
  GenPolicy policy;  // programs of floating dtypes only (no integer weights, no sdpa bool masks)
  for (double* w : {&policy.w_int8, &policy.w_uint8, &policy.w_int32, &policy.w_int64,
                    &policy.w_bool, &policy.w_sdpa})
    *w = 0;
  policy.p_mask = 0;  // attention's masks are bool
  auto not_floating = [&](const GenPolicy& mutation_policy) {
    int hits = 0;
    for (uint64_t seed = 0; seed < 400; ++seed) {
      SeededChoices c(seed);
      Program m = Mutate(GenerateFromSeed(seed, policy), c, mutation_policy).program;
      bool any = false;
      for (const auto& in : m.inputs) any |= !IsFloating(in.dtype);
      for (const auto& n : m.nodes) any |= n.op == OpKind::kCast && !IsFloating(*n.dtype);
      hits += any;
    }
    return hits;
  };
  EXPECT_GT(not_floating(policy), 0);
  GenPolicy floats = policy;
  floats.p_mutate_float = 1;
  EXPECT_EQ(not_floating(floats), 0);
}

TEST(Mutator, AWeightMutationTurnsAWeightOperandIntoAWeightAndBack) {
  GenPolicy policy;
  std::set<std::string> details;
  for (uint64_t seed = 0; seed < 200 && details.size() < 3; ++seed) {
    Program p = test_programs::LinearModel();  // w a parameter, b a buffer, x an input
    SeededChoices c(seed);
    Mutation m = Mutate(p, c, policy);
    if (m.kind != MutationKind::kWeight) continue;
    ASSERT_TRUE(Verify(m.program).ok());
    details.insert(m.detail);
    EXPECT_EQ(m.program.inputs[0].role, InputRole::kInput) << m.detail;  // x is no weight operand
  }
  EXPECT_TRUE(details.count("w: parameter -> input")) << details.size();
  EXPECT_TRUE(details.count("b: buffer -> input")) << details.size();
  Program function = test_programs::LinearModel();
  for (auto& in : function.inputs) in.role = InputRole::kInput;
  std::set<InputRole> made;
  for (uint64_t seed = 0; seed < 400; ++seed) {
    SeededChoices c(seed);
    Mutation m = Mutate(function, c, policy);
    if (m.kind == MutationKind::kWeight)
      for (const auto& in : m.program.inputs) made.insert(in.role);
  }
  EXPECT_TRUE(made.count(InputRole::kParameter));
  EXPECT_TRUE(made.count(InputRole::kBuffer));
}

}  // namespace
}  // namespace mmdiff
