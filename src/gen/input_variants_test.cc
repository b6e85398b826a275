// Tests for input variants: variant 0 is the case, variants are deterministic and differ in values,
// the shape variant keeps the function and verifies, and sizes written into views never change.
#include "src/gen/input_variants.h"

#include <gtest/gtest.h>

#include <set>

#include "src/gen/generator.h"
#include "src/ir/python_emitter.h"
#include "src/ir/test_programs.h"
#include "src/ir/verifier.h"

namespace mmdiff {
namespace {

using test_programs::Mm;

TEST(InputVariants, VariantZeroIsTheCaseAndOthersAreDeterministicNewValues) {
  GenPolicy policy;
  Program p = Mm(3, 5, 7);
  InputRecipe r{"grid16", 42};
  InputVariant v0 = MakeInputVariant(p, r, 9, 0, policy);
  EXPECT_EQ(v0.program, p);
  EXPECT_EQ(v0.recipe, r);
  std::set<uint64_t> seeds;
  for (int v = 2; v < 12; ++v) {
    InputVariant a = MakeInputVariant(p, r, 9, v, policy), b = MakeInputVariant(p, r, 9, v, policy);
    EXPECT_EQ(a.recipe, b.recipe) << v;
    EXPECT_EQ(a.program, p) << v;
    EXPECT_FALSE(a.new_shapes);
    seeds.insert(a.recipe.seed);
  }
  EXPECT_EQ(seeds.size(), 10u);  // every variant gets new values
  EXPECT_NE(MakeInputVariant(p, r, 9, 3, policy).recipe,
            MakeInputVariant(p, r, 10, 3, policy).recipe);
}

TEST(InputVariants, TheShapeVariantResizesOneDimensionEverywhereAndKeepsTheFunction) {
  GenPolicy policy;
  Program p = Mm(3, 5, 7);
  InputVariant v = MakeInputVariant(p, {"grid16", 1}, 4, kShapeVariant, policy);
  ASSERT_TRUE(v.new_shapes);
  EXPECT_EQ(EmitFunction(v.program), EmitFunction(p));
  EXPECT_TRUE(Verify(v.program).ok());
  // Exactly one of m, k, n changed, and k changed in both inputs alike.
  int changed = (v.program.inputs[0].shape[0] != 3) + (v.program.inputs[0].shape[1] != 5) +
                (v.program.inputs[1].shape[1] != 7);
  EXPECT_EQ(changed, 1);
  EXPECT_EQ(v.program.inputs[0].shape[1], v.program.inputs[1].shape[0]);
}

TEST(InputVariants, TheCallersCheckCanRefuseNewSizesAndSizesOneNeverChange) {
  // The verifier leaves shape contracts to the oracles, so the campaign passes a check that keeps
  // the contract's verdict; when it refuses every candidate, no size changes.
  GenPolicy policy;
  int asked = 0;
  InputVariant refused =
      MakeInputVariant(Mm(3, 5, 7), {"grid16", 1}, 4, kShapeVariant, policy, [&](const Program&) {
        ++asked;
        return false;
      });
  EXPECT_FALSE(refused.new_shapes);
  EXPECT_EQ(refused.program, Mm(3, 5, 7));
  EXPECT_EQ(asked, 3);  // one candidate for each of m, k and n
  InputVariant ones = MakeInputVariant(Mm(1, 1, 1), {"grid16", 1}, 4, kShapeVariant, policy);
  EXPECT_FALSE(ones.new_shapes);  // only sizes >= 2 change: 0 and 1 are special to torch and dynamo
}

TEST(InputVariants, GeneratedProgramsOftenGetAShapeVariantAndItAlwaysVerifies) {
  GenPolicy policy;
  int with_shapes = 0;
  for (uint64_t seed = 0; seed < 300; ++seed) {
    GeneratedCase gc = GenerateCaseFromSeed(seed, policy);
    InputVariant v = MakeInputVariant(gc.program, gc.recipe, seed, kShapeVariant, policy);
    if (!v.new_shapes) continue;
    ++with_shapes;
    ASSERT_TRUE(Verify(v.program).ok()) << seed;
    ASSERT_EQ(EmitFunction(v.program), EmitFunction(gc.program)) << seed;
  }
  EXPECT_GT(with_shapes, 150);
}

// A deployed model's weights stay as they are while its inputs change: their values (the first
// call's recipe is every later call's weights recipe) and their sizes.
TEST(InputVariants, AModelKeepsItsWeightsValuesAndSizes) {
  GenPolicy policy;
  const Program p = test_programs::LinearModel();  // x[4, 8], w[16, 8], b[16]
  const InputRecipe r{"normal", 42};
  int resized = 0;
  for (int v = 1; v < 12; ++v) {
    InputVariant a = MakeInputVariant(p, r, 9, v, policy);
    EXPECT_EQ(InputValues(a.program, a.recipe, 1), InputValues(p, r, 1)) << v;
    EXPECT_EQ(InputValues(a.program, a.recipe, 2), InputValues(p, r, 2)) << v;
    EXPECT_NE(InputValues(a.program, a.recipe, 0), InputValues(p, r, 0)) << v;
    EXPECT_EQ(a.program.inputs[1].shape, p.inputs[1].shape) << v;
    EXPECT_EQ(a.program.inputs[2].shape, p.inputs[2].shape) << v;
    resized += a.new_shapes;
    if (a.new_shapes) {
      EXPECT_NE(a.program.inputs[0].shape[0], 4);  // the batch, not K
    }
  }
  EXPECT_EQ(resized, 1);
}

}  // namespace
}  // namespace mmdiff
