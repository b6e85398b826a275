// `mmdiff selftest` on the installed torch: every planted fault is caught and blamed on its path,
// and the correct paths raise no numeric finding (the CI-sized run of issue 4's acceptance).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "oracles/metamorphic.h"
#include "src/exec/supervisor.h"
#include "src/report/regression_entry.h"
#include "src/support/files.h"
#include "tests/e2e_util.h"

namespace mmdiff {
namespace {

TEST(SelftestE2E, PlantedFaultsAreCaughtAndCorrectPathsRaiseNoFalseAlarm) {
  auto r = e2e::RunMmdiff("selftest --json --programs 5000 --compiled-programs 300 2>/dev/null");
  auto j = nlohmann::json::parse(r.output, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r.output;
  ASSERT_EQ(j["planted"].size(), 10u);
  for (const auto& p : j["planted"]) {
    EXPECT_TRUE(p["caught"].get<bool>()) << p.dump();
    EXPECT_TRUE(p["blamed"].get<bool>()) << p.dump();
    // Its element is unjudged (a product beyond float64): only the rerun with the bias zeroed sees
    // it.
    if (p["path"] == "planted_bias_times_beta") {
      EXPECT_EQ(p["detail"].get<std::string>().rfind("ignored_input", 0), 0u) << p.dump();
    }
    // The forward is right: only a gradient is off, and the detail names it.
    if (p["path"] == "planted_drop_grad_term") {
      EXPECT_EQ(p["detail"].get<std::string>().rfind("value", 0), 0u) << p.dump();
      EXPECT_NE(p["detail"].get<std::string>().find("grad(b)"), std::string::npos) << p.dump();
    }
    // The region's dtype is what it misses.
    if (p["path"] == "planted_ignore_autocast") {
      EXPECT_EQ(p["detail"].get<std::string>().rfind("dtype", 0), 0u) << p.dump();
    }
  }
  int64_t eager_programs = 0, compiled_programs = 0, variant_programs = 0, bitwise = 0;
  for (const auto& c : j["false_alarm_checks"]) {
    EXPECT_EQ(c["numeric_findings"], 0) << c.dump();
    EXPECT_EQ(c["bitwise_different"], 0) << c.dump();
    if (c["pair"] == "eager vs reference") eager_programs += c["programs"].get<int64_t>();
    if (c["pair"] == "eager vs aot_eager") compiled_programs += c["programs"].get<int64_t>();
    // The knob variants' machinery (models, no_grad, settings, dynamic sizes) on aot_eager.
    if (c["pair"] == "eager vs aot_eager_deploy") variant_programs += c["programs"].get<int64_t>();
    bitwise += c["bitwise_compared"].get<int64_t>();
  }
  EXPECT_GE(variant_programs, 150);
  ASSERT_EQ(j["metamorphic_relations"].size(), 1u);
  EXPECT_GE(j["metamorphic_relations"][0]["programs"].get<int64_t>(), 1000);
  EXPECT_EQ(j["metamorphic_relations"][0]["violations"], 0) << j["metamorphic_relations"].dump();
  EXPECT_GE(eager_programs, 5000);
  EXPECT_GE(compiled_programs, 300);
  EXPECT_GT(bitwise, 100);
  EXPECT_TRUE(j["passed"].get<bool>());
  EXPECT_EQ(r.exit_code, 0);
}

TEST(SelftestE2E, SpecialValuesAtAHighRateRaiseNoFalseAlarmAndTheirPlantedFaultsAreCaught) {
  auto r = e2e::RunMmdiff(
      "selftest --special --json --programs 1000 --compiled-programs 100 2>/dev/null");
  auto j = nlohmann::json::parse(r.output, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r.output;
  for (const auto& p : j["planted"]) {
    EXPECT_TRUE(p["caught"].get<bool>()) << p.dump();
    EXPECT_TRUE(p["blamed"].get<bool>()) << p.dump();
  }
  int64_t programs = 0, reruns = 0;
  for (const auto& c : j["false_alarm_checks"]) {
    reruns += c["ignored_input_reruns"].get<int64_t>();
    EXPECT_EQ(c["numeric_findings"], 0) << c.dump();
    EXPECT_EQ(c["bitwise_different"], 0) << c.dump();
    EXPECT_NE(c["values"].get<std::string>().find("specials"), std::string::npos) << c.dump();
    programs += c["programs"].get<int64_t>();
  }
  EXPECT_GE(programs, 2000);
  EXPECT_GT(reruns, 0);  // correct paths were rerun with an ignored input zeroed, without a finding
  EXPECT_TRUE(j["passed"].get<bool>());
  EXPECT_EQ(r.exit_code, 0);
}

TEST(SelftestE2E, AMetamorphicRelationCatchesARealEagerBugWithoutReferenceValues) {
  // bfloat16 addmv with alpha = 0 returns the bias instead of beta * bias (corpus/regression): the
  // rewrite beta * c + alpha * mv(a, v) run by eager itself disagrees with it.
  auto text = ReadFile(std::string(MMDIFF_SOURCE_DIR) +
                       "/corpus/regression/eager-addmv-bfloat16-alpha0-ignores-beta.json");
  ASSERT_TRUE(text.ok());
  auto entry = ParseRegressionEntry(text.value());
  ASSERT_TRUE(entry.ok()) << entry.error();
  if (auto missing = MissingCpuFlags(entry.value().expected.at(0)); !missing.empty())
    GTEST_SKIP() << "the bug lives in a kernel this CPU does not run (it lacks " << missing[0]
                 << ")";
  auto variants = MetamorphicVariants(entry.value().program);
  ASSERT_EQ(variants.size(), 1u);
  SupervisorOptions o;
  o.worker_binary = e2e::WorkerBinary();
  o.log_path = e2e::ScratchDir("metamorphic") + "/worker.log";
  Supervisor sup(o);
  ASSERT_TRUE(sup.Hello().ok());
  const InputRecipe& r = entry.value().recipe;
  auto a = sup.Run(entry.value().program, r, {"reference", "eager"});
  auto b = sup.Run(variants[0].program, r, {"reference", "eager"});
  MetamorphicCheck m = CheckMetamorphic(variants[0].relation, a[1], b[1], a[0], b[0]);
  EXPECT_FALSE(m.holds);
  EXPECT_NE(m.detail.find("split_scaling"), std::string::npos) << m.detail;
  // And the same relation holds where eager is right (64 rows).
  Program ok = entry.value().program;
  for (auto& in : ok.inputs)
    for (auto& d : in.shape)
      if (d == 65) d = 64;
  auto vs = MetamorphicVariants(ok);
  ASSERT_EQ(vs.size(), 1u);
  auto c = sup.Run(ok, r, {"reference", "eager"});
  auto d = sup.Run(vs[0].program, r, {"reference", "eager"});
  EXPECT_TRUE(CheckMetamorphic(vs[0].relation, c[1], d[1], c[0], d[0]).holds);
}

}  // namespace
}  // namespace mmdiff
