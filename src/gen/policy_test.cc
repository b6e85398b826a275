// Tests for policy JSON: round trip, defaults for missing keys, clear errors.
#include "src/gen/policy.h"

#include <gtest/gtest.h>

#include "src/ir/paths.h"

namespace mmdiff {
namespace {

TEST(Policy, RoundTrip) {
  GenPolicy p;
  p.p_mixed_dtype = 0.9;
  p.dims = {3, 65};
  auto back = PolicyFromJson(PolicyToJson(p));
  ASSERT_TRUE(back.ok()) << back.error();
  EXPECT_EQ(back.value(), p);
}

TEST(Policy, MissingKeysKeepDefaultsUnknownKeysAreErrors) {
  auto r = PolicyFromJson({{"p_cast", 0.0}});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.value().p_cast, 0.0);
  EXPECT_EQ(r.value().max_ops, GenPolicy().max_ops);
  auto bad = PolicyFromJson({{"p_cats", 0.1}});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().find("p_cats"), std::string::npos);
  EXPECT_FALSE(PolicyFromJson({{"p_cast", 1.5}}).ok());
  // Counts are compared whole: 2^32 + 5 is out of max_ops' range, not 5.
  EXPECT_TRUE(PolicyFromJson({{"max_ops", 5}}).ok());
  EXPECT_FALSE(PolicyFromJson({{"max_ops", (uint64_t{1} << 32) + 5}}).ok());
  EXPECT_FALSE(PolicyFromJson({{"max_ops", UINT64_MAX}}).ok());
  // format and version may be left out; given, they must be the policy's own.
  EXPECT_TRUE(PolicyFromJson({{"format", "mmdiff.policy"}, {"version", 1}}).ok());
  EXPECT_FALSE(PolicyFromJson({{"format", "mmdiff.report"}}).ok());
  EXPECT_FALSE(PolicyFromJson({{"format", nullptr}}).ok());
  EXPECT_FALSE(PolicyFromJson({{"version", 2}}).ok());
  EXPECT_FALSE(PolicyFromJson({{"version", (uint64_t{1} << 32) + 1}}).ok());
  EXPECT_FALSE(PolicyFromJson({{"dims", nlohmann::json::array()}}).ok());
  EXPECT_FALSE(PolicyFromJson({{"w_mm", 0},
                               {"w_bmm", 0},
                               {"w_matmul", 0},
                               {"w_addmm", 0},
                               {"w_mv", 0},
                               {"w_dot", 0},
                               {"w_addmv", 0},
                               {"w_baddbmm", 0},
                               {"w_addbmm", 0},
                               {"w_linear", 0},
                               {"w_sdpa", 0},
                               {"w_attention", 0}})
                   .ok());
  EXPECT_TRUE(PolicyFromJson({{"w_mm", 0}, {"w_bmm", 0}, {"w_matmul", 0}, {"w_addmm", 0}}).ok());
}

// Every probability key (p_*, and the rates) is validated as one: outside [0, 1] or not a number
// is an error naming the key; inside, it is read into its field and dumped back.
TEST(Policy, EveryProbabilityIsValidated) {
  nlohmann::json defaults = PolicyToJson(GenPolicy());
  int probabilities = 0;
  for (const auto& [key, value] : defaults.items()) {
    if (key.rfind("p_", 0) != 0 && key.find("rate") == std::string::npos) continue;
    ++probabilities;
    for (const nlohmann::json& bad : {nlohmann::json(1.5), nlohmann::json(-0.1),
                                      nlohmann::json("0.5"), nlohmann::json(nullptr)}) {
      auto r = PolicyFromJson({{key, bad}});
      ASSERT_FALSE(r.ok()) << key << " = " << bad.dump();
      EXPECT_NE(r.error().find(key), std::string::npos) << r.error();
    }
    double other = value.get<double>() == 0.25 ? 0.75 : 0.25;
    auto r = PolicyFromJson({{key, other}});
    ASSERT_TRUE(r.ok()) << key << ": " << r.error();
    EXPECT_NE(r.value(), GenPolicy()) << key << " is not read into a field";
    EXPECT_EQ(PolicyToJson(r.value())[key], other) << key;
  }
  EXPECT_GE(probabilities, 30);
}

// The odds that were fixed in the generator and the mutator are policy keys (a policy file may set
// them; the check above validates them).
TEST(Policy, TheFormerlyFixedOddsAreKeys) {
  nlohmann::json j = PolicyToJson(GenPolicy());
  for (const char* key : {"p_cast_method", "p_negative_dim", "p_size_minus_one", "p_glue_scale",
                          "p_glue_residual", "p_broadcast_batch", "p_attention_4d", "p_ev_equal_e",
                          "p_v_float32", "p_mask_bool", "p_sdpa_scale", "p_mutate_float"})
    EXPECT_TRUE(j.contains(key)) << key;
}

// Every knob variant of the catalogue has its weight, w_<path>, and only those have one.
TEST(Policy, EachKnobVariantHasAWeight) {
  nlohmann::json j = PolicyToJson(GenPolicy());
  int variants = 0;
  for (const PathRow& row : PathCatalogue()) {
    if (!row.traits.variant || row.traits.test_only) continue;
    ++variants;
    EXPECT_TRUE(j.contains("w_" + std::string(row.name))) << row.name;
    GenPolicy p;
    auto r = PolicyFromJson({{"w_" + std::string(row.name), 7}});
    ASSERT_TRUE(r.ok()) << r.error();
    EXPECT_EQ(VariantWeightOf(r.value(), row.name), 7) << row.name;
  }
  EXPECT_EQ(static_cast<int>(VariantWeights().size()), variants);
  EXPECT_EQ(VariantWeightOf(GenPolicy(), "inductor"), 0);
  // A path without a weight (a test variant) gets the caller's; a weighed one its own.
  EXPECT_EQ(VariantWeightOf(GenPolicy(), "planted_variant_drop_bias", 1), 1);
  GenPolicy off;
  off.w_inductor_freezing = 0;
  EXPECT_EQ(VariantWeightOf(off, "inductor_freezing", 1), 0);
  EXPECT_FALSE(PolicyFromJson({{"w_inductor_freezing", -1}}).ok());
}

}  // namespace
}  // namespace mmdiff
