// Tests of Reduce with synthetic predicates: node dropping, consistent size shrinking, dtype,
// device, layout and value simplification, the budget, and that every candidate verifies.
#include "src/reduce/reduce.h"

#include <gtest/gtest.h>

#include "src/gen/generator.h"
#include "src/ir/program_json.h"
#include "src/ir/static_types.h"
#include "src/ir/verifier.h"
#include "src/reduce/reduce_session.h"
#include "src/reduce/reduce_test_programs.h"
#include "src/support/hash.h"

namespace mmdiff {
namespace {

// Interesting iff some bmm multiplies a float16 operand with a float32 one, both of rank 3.
bool HasMixedBmm(const Program& p, const InputRecipe&) {
  auto types = InferStaticTypes(p);
  for (const auto& n : p.nodes) {
    if (n.op != OpKind::kBmm || n.args.size() != 2) continue;
    const StaticType& a = types.at(n.args[0]);
    const StaticType& b = types.at(n.args[1]);
    bool ranks = a.shape && b.shape && a.shape->size() == 3 && b.shape->size() == 3;
    bool mixed = (a.dtype == DType::kFloat16 && b.dtype == DType::kFloat32) ||
                 (a.dtype == DType::kFloat32 && b.dtype == DType::kFloat16);
    if (ranks && mixed) return true;
  }
  return false;
}

TEST(Reduce, ShrinksABuriedMixedBmmToAtMostThreeOpsWithUnitDims) {
  Program p = reduce_test::BuriedMixedBmm();
  ASSERT_TRUE(Verify(p).ok()) << Verify(p).message();
  ASSERT_EQ(p.nodes.size(), 10u);
  ASSERT_TRUE(HasMixedBmm(p, {}));
  ReduceResult r = Reduce(p, {"normal", 7, -1, 1, 0, 2, 0.25}, HasMixedBmm);
  EXPECT_TRUE(Verify(r.program).ok()) << ProgramToJson(r.program).dump();
  EXPECT_TRUE(HasMixedBmm(r.program, r.recipe));
  EXPECT_LE(r.program.nodes.size(), 3u) << ProgramToJson(r.program).dump();
  for (const auto& in : r.program.inputs) {
    EXPECT_EQ(in.shape.size(), 3u) << in.name;
    for (int64_t d : in.shape)
      EXPECT_EQ(d, 1) << in.name << " in " << ProgramToJson(r.program).dump();
    EXPECT_EQ(in.layout, Layout::kContiguous);
  }
  // Values: the simplest class, no special values, seed 0.
  EXPECT_EQ(r.recipe.kind, "exact");
  EXPECT_EQ(r.recipe.special, 0);
  EXPECT_EQ(r.recipe.seed, 0u);
  EXPECT_GT(r.steps_kept, 0);
  EXPECT_EQ(static_cast<int64_t>(r.steps.size()), r.steps_kept);
  EXPECT_LE(r.predicate_calls, ReduceOptions{}.max_predicate_calls);
  EXPECT_FALSE(r.budget_exhausted);
}

TEST(Reduce, IsDeterministic) {
  InputRecipe recipe{"uniform", 3, -2, 2, 0, 1, 0.1};
  ReduceResult a = Reduce(reduce_test::BuriedMixedBmm(), recipe, HasMixedBmm);
  ReduceResult b = Reduce(reduce_test::BuriedMixedBmm(), recipe, HasMixedBmm);
  EXPECT_EQ(a.program, b.program);
  EXPECT_EQ(a.recipe, b.recipe);
  EXPECT_EQ(a.steps, b.steps);
  EXPECT_EQ(a.predicate_calls, b.predicate_calls);
}

TEST(Reduce, RespectsTheBudget) {
  int64_t calls = 0;
  ReduceOptions o;
  o.max_predicate_calls = 4;
  ReduceResult r = Reduce(
      reduce_test::BuriedMixedBmm(), {},
      [&](const Program& p, const InputRecipe& ri) {
        ++calls;
        return HasMixedBmm(p, ri);
      },
      o);
  EXPECT_EQ(calls, 4);
  EXPECT_EQ(r.predicate_calls, 4);
  EXPECT_TRUE(r.budget_exhausted);
  EXPECT_TRUE(Verify(r.program).ok());
  EXPECT_TRUE(HasMixedBmm(r.program, r.recipe));
}

TEST(Reduce, ReturnsTheOriginalWhenNoCandidateIsInteresting) {
  Program p = reduce_test::BuriedMixedBmm();
  InputRecipe recipe{"normal", 9, -1, 1, 0.5, 3, 0.05};
  int64_t calls = 0;
  ReduceResult r = Reduce(p, recipe, [&](const Program&, const InputRecipe&) {
    ++calls;
    return false;
  });
  EXPECT_EQ(r.program, p);
  EXPECT_EQ(r.recipe, recipe);
  EXPECT_EQ(r.steps_kept, 0);
  EXPECT_TRUE(r.steps.empty());
  EXPECT_GT(calls, 0);
  EXPECT_EQ(calls, r.predicate_calls);
  EXPECT_FALSE(r.budget_exhausted);  // every candidate was tried: a fixed point
}

TEST(Reduce, ShrinksASharedSizeConsistentlyByHalvingThenDecrementing) {
  Program p;
  p.inputs = {{"a", {5, 7}, DType::kFloat32}, {"b", {7, 6}, DType::kFloat32}};
  p.nodes = {reduce_test::MakeNode("v0", OpKind::kMm, {"a", "b"})};
  p.outputs = {"v0"};
  // Interesting while K > 2 and the product is shape-valid: K goes 7 -> 3 (1 fails, 7/2 = 3 holds),
  // then 3 -> 1 and 3 -> 2 fail, so K stays 3, the same in both operands.
  auto k_above_two = [](const Program& c, const InputRecipe&) {
    auto types = InferStaticTypes(c);
    return c.nodes.size() == 1 && types.at(c.nodes[0].name).shape && c.inputs.size() == 2 &&
           c.inputs[0].shape.size() == 2 && c.inputs[0].shape[1] > 2;
  };
  ReduceResult r = Reduce(p, {}, k_above_two);
  ASSERT_EQ(r.program.inputs.size(), 2u);
  EXPECT_EQ(r.program.inputs[0].shape, (Shape{1, 3}));
  EXPECT_EQ(r.program.inputs[1].shape, (Shape{3, 1}));
}

TEST(Reduce, SimplifiesDTypesDevicesLayoutsAndAttributes) {
  Program p;
  p.inputs = {{"c", {3, 2}, DType::kBFloat16, Device::kMeta},
              {"a", {3, 4}, DType::kInt64, Device::kMeta, Layout::kTransposed},
              {"b", {4, 2}, DType::kFloat16, Device::kMeta}};
  p.nodes = {reduce_test::MakeNode("v0", OpKind::kAddmm, {"c", "a", "b"})};
  p.nodes[0].alpha = 2;
  p.nodes[0].beta = 0.5;
  p.outputs = {"v0"};
  ASSERT_TRUE(Verify(p).ok());
  // Interesting while it is an addmm whose operands' dtypes differ.
  auto mixed_addmm = [](const Program& c, const InputRecipe&) {
    return c.nodes.size() == 1 && c.nodes[0].op == OpKind::kAddmm && c.inputs.size() == 3 &&
           c.inputs[1].dtype != c.inputs[2].dtype;
  };
  ReduceResult r = Reduce(p, {}, mixed_addmm);
  ASSERT_EQ(r.program.inputs.size(), 3u);
  // float32 first, then float64 for the operand that must differ.
  EXPECT_EQ(r.program.inputs[0].dtype, DType::kFloat32);
  EXPECT_EQ(r.program.inputs[1].dtype, DType::kFloat32);
  EXPECT_EQ(r.program.inputs[2].dtype, DType::kFloat64);
  for (const auto& in : r.program.inputs) {
    EXPECT_EQ(in.device, Device::kCpu) << in.name;
    EXPECT_EQ(in.layout, Layout::kContiguous) << in.name;
  }
  EXPECT_EQ(r.program.nodes[0].alpha, 1);
  EXPECT_EQ(r.program.nodes[0].beta, 1);
}

TEST(Reduce, DropsTheRequiresGradThePredicateDoesNotNeed) {
  Program p;
  p.inputs = {{"c", {3, 2}, DType::kFloat32},
              {"a", {3, 4}, DType::kFloat32},
              {"b", {4, 2}, DType::kFloat32}};
  for (auto& in : p.inputs) in.requires_grad = true;
  p.nodes = {reduce_test::MakeNode("v0", OpKind::kAddmm, {"c", "a", "b"})};
  p.outputs = {"v0"};
  ASSERT_TRUE(Verify(p).ok());
  // Interesting while b's gradient is computed (a backward finding about dB).
  auto b_trains = [](const Program& c, const InputRecipe&) {
    const InputSpec* b = c.FindInput("b");
    return b && b->requires_grad && !c.nodes.empty();
  };
  ReduceResult r = Reduce(p, {}, b_trains);
  ASSERT_NE(r.program.FindInput("b"), nullptr);
  EXPECT_EQ(GradientInputs(r.program).size(), 1u) << ProgramToJson(r.program).dump();
  EXPECT_TRUE(r.program.FindInput("b")->requires_grad);
}

// A model's weights become its forward's inputs where the finding does not need them held by the
// module, and the weights' own recipe goes too; the one the predicate needs stays a weight.
TEST(Reduce, TurnsTheWeightsThePredicateDoesNotNeedIntoInputs) {
  Program p;
  p.inputs = {{"c", {3, 2}, DType::kFloat32},
              {"a", {3, 4}, DType::kFloat32},
              {"b", {4, 2}, DType::kFloat32}};
  p.inputs[0].role = InputRole::kBuffer;
  p.inputs[2].role = InputRole::kParameter;
  p.nodes = {reduce_test::MakeNode("v0", OpKind::kAddmm, {"c", "a", "b"})};
  p.outputs = {"v0"};
  ASSERT_TRUE(Verify(p).ok());
  auto b_weight = [](const Program& c, const InputRecipe&) {
    const InputSpec* b = c.FindInput("b");
    return b && IsWeight(*b) && !c.nodes.empty();
  };
  InputRecipe r{"grid16", 3};
  r.weights = {InputRecipe{"grid16", 4}};
  ReduceResult out = Reduce(p, r, b_weight);
  ASSERT_NE(out.program.FindInput("b"), nullptr);
  EXPECT_EQ(out.program.FindInput("b")->role, InputRole::kParameter);
  if (const InputSpec* c = out.program.FindInput("c")) {
    EXPECT_FALSE(IsWeight(*c));
  }
  EXPECT_TRUE(out.recipe.weights.empty());
  // Where nothing needs them, no weight is left: a function, not a model.
  ReduceResult none = Reduce(p, r, [](const Program& c, const InputRecipe&) {
    return !c.nodes.empty() && c.nodes[0].op == OpKind::kAddmm;
  });
  EXPECT_FALSE(HasWeights(none.program));
}

TEST(Reduce, DropsTheAutocastRegionsThePredicateDoesNotNeed) {
  Program p;
  p.inputs = {{"a", {3, 4}, DType::kFloat32}, {"b", {4, 4}, DType::kFloat32}};
  p.nodes = {reduce_test::MakeNode("v0", OpKind::kMm, {"a", "b"}),
             reduce_test::MakeNode("v1", OpKind::kMm, {"v0", "b"})};
  p.nodes[0].autocast = 1;
  p.nodes[1].autocast = 0;
  p.outputs = {"v1"};
  p.autocast = {{Device::kCpu, DType::kBFloat16, true, std::nullopt},
                {Device::kCpu, DType::kFloat16, true, 0}};
  ASSERT_TRUE(Verify(p).ok());
  // Interesting while v0 runs in some autocast region: the nested one is not needed, nor v1's.
  auto v0_autocast = [](const Program& c, const InputRecipe&) {
    const Node* v0 = c.FindNode("v0");
    return v0 && v0->autocast.has_value();
  };
  ReduceResult r = Reduce(p, {}, v0_autocast);
  ASSERT_TRUE(Verify(r.program).ok()) << Verify(r.program).message();
  ASSERT_EQ(r.program.autocast.size(), 1u) << ProgramToJson(r.program).dump();
  EXPECT_EQ(r.program.autocast[0].dtype, DType::kBFloat16);
  EXPECT_EQ(r.program.FindNode("v0")->autocast, 0u);
  for (const auto& n : r.program.nodes) {
    if (n.name == "v0") continue;
    EXPECT_FALSE(n.autocast) << n.name;
  }
  // Not needed at all: no regions left.
  ReduceResult none = Reduce(
      p, {}, [](const Program& c, const InputRecipe&) { return c.FindNode("v0") != nullptr; });
  EXPECT_TRUE(none.program.autocast.empty());
}

TEST(Reduce, KeepsWhatThePredicateNeedsInTheValues) {
  Program p;
  p.inputs = {{"a", {2, 2}, DType::kFloat32}, {"b", {2, 2}, DType::kFloat32}};
  p.nodes = {reduce_test::MakeNode("v0", OpKind::kMm, {"a", "b"})};
  p.outputs = {"v0"};
  // Interesting only with special values in a class other than exact: ends in grid16? No: grid16
  // has none, so the class stays uniform while the seed still goes to 0.
  auto specials = [](const Program&, const InputRecipe& r) {
    return r.kind != "exact" && r.special > 0;
  };
  ReduceResult r = Reduce(p, {"uniform", 5, -3, 3, 0, 1, 0.5}, specials);
  EXPECT_EQ(r.recipe.kind, "uniform");
  EXPECT_GT(r.recipe.special, 0);
  EXPECT_EQ(r.recipe.seed, 0u);
  EXPECT_EQ(r.program.nodes, p.nodes);
}

TEST(Reduce, EveryCandidateAndResultVerifiesOnGeneratedPrograms) {
  // A pseudo-random but pure predicate: half of all candidates are "interesting".
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    GeneratedCase gc = GenerateCaseFromSeed(seed, GenPolicy{});
    int64_t calls = 0;
    auto coin = [&](const Program& c, const InputRecipe& r) {
      ++calls;
      EXPECT_TRUE(Verify(c).ok()) << "seed " << seed << ": " << Verify(c).message();
      EXPECT_FALSE(c.nodes.empty());
      return Fnv1a64(ProgramToJson(c).dump() + RecipeToJson(r).dump()) % 2 == 0;
    };
    ReduceOptions o;
    o.max_predicate_calls = 60;
    ReduceResult r = Reduce(gc.program, gc.recipe, coin, o);
    EXPECT_TRUE(Verify(r.program).ok()) << "seed " << seed;
    EXPECT_LE(calls, 60);
    EXPECT_EQ(calls, r.predicate_calls);
    Complexity before = MeasureComplexity(gc.program, gc.recipe),
               after = MeasureComplexity(r.program, r.recipe);
    if (r.steps_kept > 0)
      EXPECT_TRUE(SimplerThan(after, before)) << "seed " << seed;
    else
      EXPECT_EQ(r.program, gc.program);
  }
}

}  // namespace
}  // namespace mmdiff
