// Tests for the ablation and mitigation records as a report writes them.
#include "src/report/rerun_records_json.h"

#include <gtest/gtest.h>

namespace mmdiff {
namespace {

TEST(RerunRecordsJson, AnAblationIsItsStagesAndTheFirstThatDiverges) {
  Ablation a;
  a.stages = {{"eager", "eager", "ok (float32)", true, ""},
              {"aot_eager", "torch.compile(backend=\"aot_eager\"): + AOTAutograd", "ok (float16)",
               false, "dtype: eager float32, aot_eager float16"}};
  a.first_divergent = "aot_eager";
  EXPECT_EQ(AblationToJson(a), nlohmann::json::parse(R"json({
    "stages": [
      {"path": "eager", "backend": "eager", "outcome": "ok (float32)", "agrees_with_eager": true,
       "detail": ""
},
      {"path": "aot_eager", "backend": "torch.compile(backend=\"aot_eager\"): + AOTAutograd",
       "outcome": "ok (float16)", "agrees_with_eager": false,
       "detail": "dtype: eager float32, aot_eager float16"}],
    "first_divergent": "aot_eager"
})json"));
  a.first_divergent.reset();
  EXPECT_TRUE(AblationToJson(a)["first_divergent"].is_null());
  EXPECT_EQ(AblationToJson({}),
            nlohmann::json::parse(R"json({"stages": [], "first_divergent": null})json"));
}

TEST(RerunRecordsJson, MitigationsAreOneObjectPerKnobAndNoneTriedIsAnEmptyList) {
  std::vector<Mitigation> ms = {
      {"torch._inductor.config.emulate_precision_casts = True", "inductor_emulate_precision_casts",
       true, "no value divergence with the knob"},
      {"torch._inductor.config.fallback_random = True", "inductor_fallback_random", false,
       "value: 1 element beyond the bound"}};
  EXPECT_EQ(MitigationsToJson(ms), nlohmann::json::parse(R"json([
    {"knob": "torch._inductor.config.emulate_precision_casts = True",
     "path": "inductor_emulate_precision_casts", "removes_divergence": true,
     "detail": "no value divergence with the knob"},
    {"knob": "torch._inductor.config.fallback_random = True", "path": "inductor_fallback_random",
     "removes_divergence": false, "detail": "value: 1 element beyond the bound"}])json"));
  EXPECT_EQ(MitigationsToJson({}), nlohmann::json::array());
}

}  // namespace
}  // namespace mmdiff
