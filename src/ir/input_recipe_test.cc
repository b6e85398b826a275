// Tests for the input recipe: values are exact grid points, deterministic, and vary with
// seed/index.
#include "src/ir/input_recipe.h"

#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "src/ir/test_programs.h"

namespace mmdiff {
namespace {

TEST(InputRecipe, ValuesAreSixteenthsInRange) {
  auto v = RecipeValues({"grid16", 5}, 0, 4000, DType::kFloat32);
  std::set<double> distinct(v.begin(), v.end());
  EXPECT_EQ(distinct.size(), 65u);
  for (double x : v) {
    EXPECT_LE(std::fabs(x), 2.0);
    EXPECT_EQ(x * 16, std::floor(x * 16));
  }
}

TEST(InputRecipe, PureFunctionOfSeedAndIndex) {
  EXPECT_EQ(RecipeValues({"grid16", 1}, 0, 50, DType::kFloat32),
            RecipeValues({"grid16", 1}, 0, 50, DType::kFloat32));
  EXPECT_NE(RecipeValues({"grid16", 1}, 0, 50, DType::kFloat32),
            RecipeValues({"grid16", 2}, 0, 50, DType::kFloat32));
  EXPECT_NE(RecipeValues({"grid16", 1}, 0, 50, DType::kFloat32),
            RecipeValues({"grid16", 1}, 1, 50, DType::kFloat32));
  // A prefix does not depend on numel.
  auto longer = RecipeValues({"grid16", 1}, 3, 80, DType::kFloat32);
  auto shorter = RecipeValues({"grid16", 1}, 3, 20, DType::kFloat32);
  EXPECT_TRUE(std::equal(shorter.begin(), shorter.end(), longer.begin()));
}

TEST(InputRecipe, JsonRoundTripAndErrors) {
  InputRecipe r{"grid16", 0xFFFFFFFFFFFFFFF0ULL};
  auto back = RecipeFromJson(RecipeToJson(r));
  ASSERT_TRUE(back.ok()) << back.error();
  EXPECT_EQ(back.value(), r);
  EXPECT_FALSE(RecipeFromJson({{"kind", "grid16"}, {"seed", -1}}).ok());
  EXPECT_FALSE(RecipeFromJson({{"kind", "gaussian"}, {"seed", 1}}).ok());
  EXPECT_FALSE(RecipeFromJson({{"kind", "uniform"}, {"seed", 1}, {"lo", 2}, {"hi", 1}}).ok());
  EXPECT_FALSE(RecipeFromJson({{"kind", "normal"}, {"seed", 1}, {"special", 1.5}}).ok());
  InputRecipe u{"uniform", 7, -3, 5, 0, 1, 0.25};
  auto ub = RecipeFromJson(RecipeToJson(u));
  ASSERT_TRUE(ub.ok()) << ub.error();
  EXPECT_EQ(ub.value(), u);
}

TEST(InputRecipe, ZeroedInputsHoldZerosAndTheirListIsChecked) {
  InputRecipe r{"normal", 3, -1, 1, 0, 1, 0.0};  // finite values: vectors compare with ==
  r.zeroed = {1, 4};
  auto back = RecipeFromJson(RecipeToJson(r));
  ASSERT_TRUE(back.ok()) << back.error();
  EXPECT_EQ(back.value(), r);
  EXPECT_FALSE(RecipeToJson(InputRecipe{"normal", 3}).contains("zeroed"));  // absent when empty
  for (double v : RecipeValues(r, 1, 50, DType::kFloat32)) EXPECT_EQ(v, 0.0);
  InputRecipe plain = r;
  plain.zeroed.clear();
  EXPECT_EQ(RecipeValues(r, 0, 50, DType::kFloat32), RecipeValues(plain, 0, 50, DType::kFloat32));
  nlohmann::json j = RecipeToJson(r);
  for (const nlohmann::json& bad :
       {nlohmann::json(3), nlohmann::json({2, 1}), nlohmann::json({1, 1}), nlohmann::json({-1}),
        nlohmann::json({4096}), nlohmann::json({"0"})}) {
    j["zeroed"] = bad;
    auto e = RecipeFromJson(j);
    ASSERT_FALSE(e.ok()) << bad.dump();
    EXPECT_NE(e.error().find("\"zeroed\""), std::string::npos) << e.error();
  }
}

// A model's weights keep their values across a case's calls: the later calls' recipes carry the
// first's as their "weights", which the weights, and only they, take their values from.
TEST(InputRecipe, AModelsWeightsTakeTheirValuesFromTheWeightsRecipe) {
  const Program p = test_programs::LinearModel();  // x an input, w and b weights
  const InputRecipe first{"normal", 3, -1, 1, 0, 1, 0.0};
  InputRecipe later = KeepWeights(InputRecipe{"uniform", 9, -2, 2}, first);
  ASSERT_EQ(later.weights.size(), 1u);
  EXPECT_EQ(InputValues(p, later, 1), InputValues(p, first, 1));  // the weights as they were
  EXPECT_EQ(InputValues(p, later, 2), InputValues(p, first, 2));
  EXPECT_NE(InputValues(p, later, 0), InputValues(p, first, 0));  // the input anew
  EXPECT_EQ(InputValues(p, later, 0), RecipeValues(later, 0, 32, DType::kFloat32));
  // Kept again from a later call: still the first call's.
  EXPECT_EQ(KeepWeights(InputRecipe{"exact", 1}, later).weights, later.weights);
  // The recipe's own zeroed inputs hold zeros, weights too.
  later.zeroed = {2};
  for (double v : InputValues(p, later, 2)) EXPECT_EQ(v, 0.0);
  EXPECT_EQ(WeightRecipe(later).zeroed, (std::vector<int>{2}));
  auto back = RecipeFromJson(RecipeToJson(later));
  ASSERT_TRUE(back.ok()) << back.error();
  EXPECT_EQ(back.value(), later);
  EXPECT_FALSE(RecipeToJson(first).contains("weights"));  // absent when the weights are its own
  nlohmann::json j = RecipeToJson(later);
  for (const nlohmann::json& bad :
       {nlohmann::json(3), nlohmann::json({{"kind", "gaussian"}, {"seed", 1}}),
        nlohmann::json({{"kind", "exact"}, {"seed", 1}, {"zeroed", {0}}}),
        nlohmann::json({{"kind", "exact"}, {"seed", 1}, {"weights", {{"kind", "exact"}}}})}) {
    j["weights"] = bad;
    auto e = RecipeFromJson(j);
    ASSERT_FALSE(e.ok()) << bad.dump();
    EXPECT_NE(e.error().find("weights"), std::string::npos) << e.error();
  }
}

TEST(InputRecipe, ValueClassesStayInTheirRanges) {
  auto exact = RecipeValues({"exact", 3}, 0, 2000, DType::kFloat16);
  std::set<double> distinct(exact.begin(), exact.end());
  for (double x : exact) {
    bool small_integer = x == std::trunc(x) && std::fabs(x) <= 4;
    bool power_of_two = x != 0 && std::log2(std::fabs(x)) == std::trunc(std::log2(std::fabs(x))) &&
                        std::fabs(std::log2(std::fabs(x))) <= 4;
    EXPECT_TRUE(small_integer || power_of_two) << x;
  }
  EXPECT_GE(distinct.size(), 15u);
  for (double x : RecipeValues({"uniform", 3, -2, 6}, 1, 2000, DType::kFloat32)) {
    EXPECT_GE(x, -2);
    EXPECT_LT(x, 6);
  }
  auto normal = RecipeValues({"normal", 3, 0, 0, 10, 2}, 1, 20000, DType::kFloat64);
  double mean = 0, var = 0;
  for (double x : normal) mean += x / normal.size();
  for (double x : normal) var += (x - mean) * (x - mean) / normal.size();
  EXPECT_NEAR(mean, 10, 0.1);
  EXPECT_NEAR(std::sqrt(var), 2, 0.1);
  for (double x : RecipeValues({"normal", 3}, 0, 500, DType::kInt8))
    EXPECT_TRUE(x == std::trunc(x) && std::fabs(x) <= 8);
  for (double x : RecipeValues({"exact", 3}, 0, 500, DType::kUInt8)) EXPECT_TRUE(x >= 0 && x <= 16);
  for (double x : RecipeValues({"exact", 3}, 0, 500, DType::kBool)) EXPECT_TRUE(x == 0 || x == 1);
}

TEST(InputRecipe, SpecialValuesAppearAtTheirRateAndFitTheDType) {
  InputRecipe r{"uniform", 11};
  r.special = 0.3;
  auto v = RecipeValues(r, 0, 20000, DType::kFloat16);
  int nan = 0, inf = 0, neg_zero = 0, subnormal = 0, near_max = 0;
  for (double x : v) {
    nan += std::isnan(x);
    inf += std::isinf(x);
    neg_zero += x == 0 && std::signbit(x);
    subnormal += x != 0 && std::fabs(x) < 0x1p-14;
    near_max += std::isfinite(x) && std::fabs(x) >= 32752;
  }
  int specials = nan + inf + neg_zero + subnormal + near_max;
  EXPECT_NEAR(specials / 20000.0, 0.3, 0.02);
  EXPECT_GT(nan, 0);
  EXPECT_GT(inf, 0);
  EXPECT_GT(neg_zero, 0);
  EXPECT_GT(subnormal, 0);
  EXPECT_GT(near_max, 0);
  for (double x : v) EXPECT_FALSE(std::isfinite(x) && std::fabs(x) > 65504);
  r.special = 0;
  for (double x : RecipeValues(r, 0, 2000, DType::kFloat16)) EXPECT_TRUE(std::isfinite(x));
}

}  // namespace
}  // namespace mmdiff
