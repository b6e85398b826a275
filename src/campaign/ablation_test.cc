// Tests for LowerToBaseVariant: a knob variant's finding that the ablation shows, alike, on a
// variant with fewer of its knobs is signed as that variant's.
#include "src/campaign/ablation.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "src/ir/paths.h"

namespace mmdiff {
namespace {

const std::string kTail = "|raises:AssertionError|op=addmm|devices=cpu,cpu,cpu";

std::string Sig(const std::string& path) { return "error_behaviour|path=" + path + kTail; }

TEST(LowerToBaseVariant, AFindingTheBaseVariantSharesIsTheBasesAndOnlyThen) {
  const std::string dyn = paths::kInductorFreezingDynamic;
  // The ablation: inductor_freezing diverges alike, inductor_dynamic does not diverge.
  std::map<std::string, std::string> stages = {{dyn, Sig(dyn)},
                                               {"inductor_freezing", Sig("inductor_freezing")}};
  // The root cause may be the reduced case's: its path is what is replaced.
  const std::string reduced = "error_behaviour|path=" + dyn + "|raises:AssertionError|op=mm|x";
  EXPECT_EQ(LowerToBaseVariant(reduced, Sig(dyn), stages),
            "error_behaviour|path=inductor_freezing|raises:AssertionError|op=mm|x");
  // Another behaviour on the base: unchanged.
  stages["inductor_freezing"] = "error_behaviour|path=inductor_freezing|accepts|op=addmm";
  EXPECT_EQ(LowerToBaseVariant(reduced, Sig(dyn), stages), reduced);
  // A variant that it does not build on, diverging alike: unchanged.
  stages.erase("inductor_freezing");
  stages[paths::kInductorMaxAutotune] = Sig(paths::kInductorMaxAutotune);
  EXPECT_EQ(LowerToBaseVariant(reduced, Sig(dyn), stages), reduced);
  // The base variant's own finding, and inductor's, stay.
  stages = {{"inductor_freezing", Sig("inductor_freezing")}, {"inductor", Sig("inductor")}};
  EXPECT_EQ(LowerToBaseVariant(Sig("inductor_freezing"), Sig("inductor_freezing"), stages),
            Sig("inductor_freezing"));
  EXPECT_EQ(LowerToBaseVariant(Sig("inductor"), Sig("inductor"), stages), Sig("inductor"));
}

TEST(LowerToBaseVariant, OfTwoBasesTheOneWithFewerKnobs) {
  // max-autotune builds on inductor_freezing; both diverge alike: freezing's.
  const std::string mat = paths::kInductorMaxAutotune;
  std::map<std::string, std::string> stages = {{mat, Sig(mat)},
                                               {"inductor_freezing", Sig("inductor_freezing")}};
  EXPECT_EQ(LowerToBaseVariant(Sig(mat), Sig(mat), stages), Sig("inductor_freezing"));
  // freezing_dynamic builds on inductor_freezing and on inductor_dynamic (neither on the other):
  // one of them, never itself.
  const std::string dyn = paths::kInductorFreezingDynamic;
  stages = {{"inductor_dynamic", Sig("inductor_dynamic")},
            {"inductor_freezing", Sig("inductor_freezing")}};
  const std::string lowered = LowerToBaseVariant(Sig(dyn), Sig(dyn), stages);
  EXPECT_TRUE(lowered == Sig("inductor_dynamic") || lowered == Sig("inductor_freezing")) << lowered;
}

}  // namespace
}  // namespace mmdiff
