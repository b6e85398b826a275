// Tests for the paths of one case: the slow ones on their share of the programs, and one knob
// variant on its share, by the policy's weights, among those that can run the program.
#include "src/campaign/case_paths.h"

#include <gtest/gtest.h>

#include <map>

#include "src/ir/paths.h"
#include "src/ir/test_programs.h"

namespace mmdiff {
namespace {

const PathTraits* Traits(const std::string& path) {
  const PathRow* row = FindPath(path);
  return row ? &row->traits : nullptr;
}

const std::vector<std::string> kPaths = {"reference", "eager", "inductor", "aoti"};
const std::vector<std::string> kVariants = {"inductor_freezing", "inductor_max_autotune",
                                            "inductor_cpp_wrapper", "inductor_dynamic",
                                            "inductor_emulate_precision_casts"};

// How often each path runs over `cases` cases.
std::map<std::string, int> Counts(const GenPolicy& policy, const Program& p, int cases,
                                  const std::vector<std::string>& variants = kVariants) {
  std::map<std::string, int> n;
  for (int c = 0; c < cases; ++c)
    for (const auto& path : CasePaths(kPaths, variants, policy, p, 1000 + c, Traits)) ++n[path];
  return n;
}

TEST(CasePaths, AVariantJoinsItsShareOfTheCasesDrawnByItsWeight) {
  GenPolicy policy;
  policy.variant_rate = 0.5;
  policy.aoti_rate = 0.1;
  policy.w_inductor_freezing = 3;
  policy.w_inductor_max_autotune = 1;
  policy.w_inductor_cpp_wrapper = policy.w_inductor_dynamic = 0;
  policy.w_inductor_emulate_precision_casts = 0;
  const Program p = test_programs::LinearModel();
  std::map<std::string, int> n = Counts(policy, p, 4000);
  EXPECT_EQ(n["inductor"], 4000);
  EXPECT_NEAR(n["aoti"], 400, 80);  // the slow path on its share
  EXPECT_NEAR(n["inductor_freezing"] + n["inductor_max_autotune"], 2000, 150);
  EXPECT_NEAR(n["inductor_freezing"], 1500, 120);                                // 3 : 1
  EXPECT_EQ(n.count("inductor_cpp_wrapper") + n.count("inductor_dynamic"), 0u);  // weight 0
  // Never more than one variant a case, and the same case always gets the same paths.
  for (int c = 0; c < 200; ++c) {
    auto paths = CasePaths(kPaths, kVariants, policy, p, 7 + c, Traits);
    int variants = 0;
    for (const auto& path : paths) variants += Traits(path)->variant;
    EXPECT_LE(variants, 1);
    EXPECT_EQ(paths, CasePaths(kPaths, kVariants, policy, p, 7 + c, Traits));
  }
  policy.variant_rate = 0;
  EXPECT_EQ(Counts(policy, p, 500).size(), 4u);
  policy.variant_rate = 1;
  EXPECT_EQ(Counts(policy, p, 500, {}).size(), 4u);  // a campaign without variants
}

// A variant that compiles for inference (under torch.no_grad()) is never drawn for a training
// program: the others share its draws.
TEST(CasePaths, ATrainingProgramGetsNoVariantThatCompilesForInference) {
  GenPolicy policy;
  policy.variant_rate = 1;
  Program p = test_programs::LinearModel();
  p.inputs[1].requires_grad = true;
  std::map<std::string, int> n = Counts(policy, p, 600);
  EXPECT_EQ(n.count("inductor_freezing") + n.count("inductor_max_autotune"), 0u);
  EXPECT_EQ(
      n["inductor_cpp_wrapper"] + n["inductor_dynamic"] + n["inductor_emulate_precision_casts"],
      600);
}

// A test variant (planted, --variants with --test-paths) has no policy weight: it draws with 1.
TEST(CasePaths, ATestVariantWithoutAWeightDrawsWithOne) {
  GenPolicy policy;
  policy.variant_rate = 1;
  policy.w_inductor_freezing = 1;
  const Program p = test_programs::LinearModel();
  std::map<std::string, int> n =
      Counts(policy, p, 2000, {"planted_variant_drop_bias", "inductor_freezing"});
  EXPECT_NEAR(n["planted_variant_drop_bias"], 1000, 110);
  EXPECT_EQ(n["planted_variant_drop_bias"] + n["inductor_freezing"], 2000);
  policy.w_inductor_freezing = 0;  // a weighed variant at 0 is off; the test one still runs
  n = Counts(policy, p, 300, {"planted_variant_drop_bias", "inductor_freezing"});
  EXPECT_EQ(n["planted_variant_drop_bias"], 300);
  EXPECT_EQ(n.count("inductor_freezing"), 0u);
}

}  // namespace
}  // namespace mmdiff
