// `mmdiff selftest` on the installed torch: every planted fault is caught and blamed on its path,
// and the correct paths raise no numeric finding (the CI-sized run of issue 4's acceptance).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/e2e_util.h"

namespace mmdiff {
namespace {

TEST(SelftestE2E, PlantedFaultsAreCaughtAndCorrectPathsRaiseNoFalseAlarm) {
  auto r = e2e::RunMmdiff("selftest --json --programs 5000 --compiled-programs 300 2>/dev/null");
  auto j = nlohmann::json::parse(r.output, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r.output;
  ASSERT_EQ(j["planted"].size(), 5u);
  for (const auto& p : j["planted"]) {
    EXPECT_TRUE(p["caught"].get<bool>()) << p.dump();
    EXPECT_TRUE(p["blamed"].get<bool>()) << p.dump();
  }
  int64_t eager_programs = 0, compiled_programs = 0, bitwise = 0;
  for (const auto& c : j["false_alarm_checks"]) {
    EXPECT_EQ(c["numeric_findings"], 0) << c.dump();
    EXPECT_EQ(c["bitwise_different"], 0) << c.dump();
    if (c["pair"] == "eager vs reference") eager_programs += c["programs"].get<int64_t>();
    if (c["pair"] == "eager vs aot_eager") compiled_programs += c["programs"].get<int64_t>();
    bitwise += c["bitwise_compared"].get<int64_t>();
  }
  EXPECT_GE(eager_programs, 5000);
  EXPECT_GE(compiled_programs, 300);
  EXPECT_GT(bitwise, 100);
  EXPECT_TRUE(j["passed"].get<bool>());
  EXPECT_EQ(r.exit_code, 0);
}

}  // namespace
}  // namespace mmdiff
