// Tests for the input recipe: values are exact grid points, deterministic, and vary with seed/index.
#include "src/ir/input_recipe.h"

#include <gtest/gtest.h>

#include <cmath>
#include <set>

namespace mmdiff {
namespace {

TEST(InputRecipe, ValuesAreSixteenthsInRange) {
  auto v = RecipeValues({"grid16", 5}, 0, 4000);
  std::set<double> distinct(v.begin(), v.end());
  EXPECT_EQ(distinct.size(), 65u);
  for (double x : v) {
    EXPECT_LE(std::fabs(x), 2.0);
    EXPECT_EQ(x * 16, std::floor(x * 16));
  }
}

TEST(InputRecipe, PureFunctionOfSeedAndIndex) {
  EXPECT_EQ(RecipeValues({"grid16", 1}, 0, 50), RecipeValues({"grid16", 1}, 0, 50));
  EXPECT_NE(RecipeValues({"grid16", 1}, 0, 50), RecipeValues({"grid16", 2}, 0, 50));
  EXPECT_NE(RecipeValues({"grid16", 1}, 0, 50), RecipeValues({"grid16", 1}, 1, 50));
  // A prefix does not depend on numel.
  auto longer = RecipeValues({"grid16", 1}, 3, 80);
  auto shorter = RecipeValues({"grid16", 1}, 3, 20);
  EXPECT_TRUE(std::equal(shorter.begin(), shorter.end(), longer.begin()));
}

TEST(InputRecipe, JsonRoundTripAndErrors) {
  InputRecipe r{"grid16", 0xFFFFFFFFFFFFFFF0ULL};
  auto back = RecipeFromJson(RecipeToJson(r));
  ASSERT_TRUE(back.ok()) << back.error();
  EXPECT_EQ(back.value(), r);
  EXPECT_FALSE(RecipeFromJson({{"kind", "grid16"}, {"seed", -1}}).ok());
  EXPECT_FALSE(RecipeFromJson({{"kind", "normal"}, {"seed", 1}}).ok());
}

}  // namespace
}  // namespace mmdiff
