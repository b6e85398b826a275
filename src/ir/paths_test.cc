// Tests for the path catalogue: one row per name, rows that agree with themselves (a variant is on
// demand and varies a path of the catalogue, a torch.compile path names its backend), and the
// ablation ladder in torch.compile's order.
#include "src/ir/paths.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace mmdiff {
namespace {

TEST(Paths, EachNameHasOneRowAndFindPathFindsIt) {
  std::set<std::string> names;
  for (const PathRow& r : PathCatalogue()) {
    EXPECT_TRUE(names.insert(r.name).second) << r.name << " twice";
    EXPECT_EQ(FindPath(r.name), &r);
    EXPECT_NE(std::string(r.description), "") << r.name;
  }
  EXPECT_EQ(FindPath("nosuchpath"), nullptr);
  EXPECT_EQ(FindPath(""), nullptr);
  for (const char* main : {paths::kReference, paths::kReferenceFloat64, paths::kEager,
                           paths::kEagerMeta, paths::kInductor, paths::kAotEager,
                           paths::kCompileEager, paths::kTorchScript, paths::kAoti}) {
    ASSERT_NE(FindPath(main), nullptr) << main;
    EXPECT_FALSE(FindPath(main)->traits.test_only) << main;
  }
}

TEST(Paths, TheLadderIsDynamoThenAotAutogradThenInductor) {
  std::vector<std::string> ladder;
  for (const PathRow* r : AblationRungs()) ladder.push_back(r->name);
  EXPECT_EQ(ladder,
            (std::vector<std::string>{paths::kCompileEager, paths::kAotEager, paths::kInductor}));
  EXPECT_EQ(std::string(FindPath(paths::kCompileEager)->torch_backend), "eager");
  EXPECT_EQ(LadderRank(paths::kCompileEager), 0);
  EXPECT_EQ(LadderRank(paths::kInductor), 2);
  EXPECT_EQ(LadderRank(paths::kEager), -1);
  EXPECT_EQ(LadderRank("inductor_freezing"), -1);  // a variant is off the ladder
  EXPECT_EQ(LadderRank("nosuchpath"), -1);
}

TEST(Paths, AVariantBuildsOnTheVariantsWhoseKnobsItAddsTo) {
  auto on = [](const char* v, const char* base) {
    return VariantBuildsOn(*FindPath(v), *FindPath(base));
  };
  EXPECT_TRUE(on(paths::kInductorFreezingDynamic, "inductor_freezing"));
  EXPECT_TRUE(on(paths::kInductorFreezingDynamic, "inductor_dynamic"));
  EXPECT_TRUE(on(paths::kInductorMaxAutotune, "inductor_freezing"));
  EXPECT_TRUE(on(paths::kInductorFreezingOptIn, "inductor_freezing"));
  EXPECT_FALSE(on("inductor_freezing", paths::kInductorFreezingDynamic));  // fewer knobs
  EXPECT_FALSE(on("inductor_freezing", "inductor_freezing"));
  EXPECT_FALSE(on(paths::kInductorMaxAutotune, paths::kInductorFreezingOptIn));
  EXPECT_FALSE(on(paths::kInductorMaxAutotune, "inductor_dynamic"));  // not dynamic
  EXPECT_FALSE(on("inductor_dynamic", "inductor_cpp_wrapper"));
  // inductor_freezing runs under no_grad: a variant that does not, with its settings, is apart.
  EXPECT_FALSE(on("inductor_emulate_precision_casts", "inductor_freezing"));
  EXPECT_FALSE(on(paths::kInductorFreezingDynamic, paths::kInductor));  // not a variant
  // One backend: a planted variant is no base of a real one, and the reverse.
  EXPECT_TRUE(on("planted_variant_drop_bias_dynamic", "planted_variant_drop_bias"));
  EXPECT_FALSE(on("inductor_freezing", "planted_variant_drop_bias"));
  EXPECT_FALSE(on("planted_variant_drop_bias_dynamic", "inductor_dynamic"));
}

TEST(Paths, RowsAgreeWithThemselves) {
  int variants = 0;
  for (const PathRow& r : PathCatalogue()) {
    const bool is_variant = r.variant_of[0] != '\0';
    EXPECT_EQ(r.traits.variant, is_variant) << r.name;
    if (is_variant) {
      variants += std::string_view(r.variant_of) == paths::kInductor;
      ASSERT_NE(FindPath(r.variant_of), nullptr) << r.name;
      EXPECT_TRUE(r.traits.on_demand) << r.name;
      EXPECT_NE(std::string(r.knob), "") << r.name;
      // A planted variant's backend is deliberately wrong: its own.
      if (!r.traits.test_only) {
        EXPECT_EQ(std::string(r.torch_backend), FindPath(r.variant_of)->torch_backend) << r.name;
      }
      // How it compiles: its knob's setting among its settings (dynamic is torch.compile's).
      if (!r.traits.test_only && std::string_view(r.knob) != "dynamic") {
        ASSERT_FALSE(r.settings.empty()) << r.name;
        EXPECT_EQ(std::string(r.settings.front().name), r.knob) << r.name;
      }
      // One that compiles for inference runs no training program, and says why.
      if (!r.traits.test_only) {
        EXPECT_EQ(r.no_grad, r.limits.inference_only[0] != '\0') << r.name;
      }
    } else {
      EXPECT_FALSE(r.mitigation) << r.name << ": a mitigation is a knob variant";
    }
    if (r.kind == PathKind::kTorchCompile) {
      EXPECT_NE(std::string(r.torch_backend), "") << r.name;
      EXPECT_TRUE(r.traits.compiled) << r.name;
    }
    // What repro.py compiles is a compiled path; the release runner runs no test-only path.
    EXPECT_TRUE(r.repro == ReproKind::kNone || r.traits.compiled) << r.name;
    EXPECT_FALSE(r.release_runner && r.traits.test_only) << r.name;
    EXPECT_EQ(r.kind == PathKind::kTest, r.traits.test_only) << r.name;
  }
  std::vector<std::string> of_inductor;
  for (const PathRow* r : VariantsOf(paths::kInductor)) of_inductor.push_back(r->name);
  EXPECT_EQ(static_cast<int>(of_inductor.size()), variants);
  EXPECT_TRUE(VariantsOf(paths::kEager).empty());
}

}  // namespace
}  // namespace mmdiff
