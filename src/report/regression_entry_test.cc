// Tests for regression entries: version ranges, parsing errors, verdict comparison.
#include "src/report/regression_entry.h"

#include <gtest/gtest.h>

#include "src/ir/program_json.h"

namespace mmdiff {
namespace {

nlohmann::json Entry() {
  Program p;
  p.inputs = {{"a", {2, 3}, DType::kFloat32}, {"b", {3, 2}, DType::kFloat32}};
  p.nodes = {{"v0", OpKind::kMm, {"a", "b"}}};
  p.outputs = {"v0"};
  return {{"format", "mmdiff.regression"},
          {"version", 1},
          {"program", ProgramToJson(p)},
          {"inputs", {{"kind", "grid16"}, {"seed", 1}}},
          {"paths", {"reference", "eager", "inductor"}},
          {"expected",
           {{{"torch", ">=2.11,<2.12"},
             {"verdict", "diverge"},
             {"divergences", {{{"kind", "error_behaviour"}, {"blamed", "inductor"}}}}},
            {{"torch", ">=2.15"}, {"verdict", "agree"}}}}};
}

TEST(RegressionEntry, ParseAndPickTheExpectationForAVersion) {
  auto e = ParseRegressionEntry(Entry().dump());
  ASSERT_TRUE(e.ok()) << e.error();
  EXPECT_TRUE(ExpectationFor(e.value(), "2.11.0")->diverges);
  EXPECT_FALSE(ExpectationFor(e.value(), "2.15.0")->diverges);
  EXPECT_FALSE(ExpectationFor(e.value(), "2.13.0").has_value());
}

TEST(RegressionEntry, AnExpectationCanNeedCpuFlags) {
  nlohmann::json j = Entry();
  j["expected"][0]["cpu_flags"] = {"fpu", "no_such_flag_mmdiff"};
  auto e = ParseRegressionEntry(j.dump());
  ASSERT_TRUE(e.ok()) << e.error();
  auto want = ExpectationFor(e.value(), "2.11.0");
  ASSERT_TRUE(want.has_value());
  EXPECT_EQ(MissingCpuFlags(*want),
            std::vector<std::string>{"no_such_flag_mmdiff"});  // x86 CPUs have fpu
  EXPECT_TRUE(MissingCpuFlags(*ExpectationFor(e.value(), "2.15.0")).empty());
  j["expected"][0]["cpu_flags"] = "avx2";
  EXPECT_FALSE(ParseRegressionEntry(j.dump()).ok());
}

TEST(RegressionEntry, BadEntriesAreErrors) {
  auto j = Entry();
  j["expected"][0]["verdict"] = "maybe";
  EXPECT_FALSE(ParseRegressionEntry(j.dump()).ok());
  j = Entry();
  j["program"]["nodes"][0]["args"] = {"a"};
  EXPECT_FALSE(ParseRegressionEntry(j.dump()).ok());
  EXPECT_FALSE(ParseRegressionEntry("{").ok());
}

// "fused_alike" names whole attention fusion patterns, beside "fused" only.
TEST(RegressionEntry, FusedAlikeNamesPatternsBesideFused) {
  auto j = Entry();
  nlohmann::json& d = j["expected"][0]["divergences"][0];
  d["fused"] = "_sfdp_pattern_15";
  d["fused_alike"] = {"_sfdp_pattern_20"};
  auto e = ParseRegressionEntry(j.dump());
  ASSERT_TRUE(e.ok()) << e.error();
  EXPECT_EQ(e.value().expected[0].divergences[0].fused_alike,
            std::vector<std::string>{"_sfdp_pattern_20"});
  for (const nlohmann::json& bad :
       {nlohmann::json("_sfdp_pattern_20"), nlohmann::json({"_sfdp_pattern_20_inference"}),
        nlohmann::json({"../x"}), nlohmann::json({1})}) {
    d["fused_alike"] = bad;
    auto refused = ParseRegressionEntry(j.dump());
    ASSERT_FALSE(refused.ok()) << bad;
    EXPECT_NE(refused.error().find("\"fused_alike\""), std::string::npos) << refused.error();
  }
  d["fused_alike"] = {"_sfdp_pattern_20"};
  d.erase("fused");
  EXPECT_FALSE(ParseRegressionEntry(j.dump()).ok());
}

TEST(RegressionEntry, CompareVerdicts) {
  VersionExpectation want{">=0", true, {{"error_behaviour", "inductor"}}};
  Verdict v;
  EXPECT_NE(CompareWithExpectation(v, want), "");
  v.divergences.push_back({DivergenceKind::kErrorBehaviour, {"eager", "inductor"}, "inductor", ""});
  EXPECT_EQ(CompareWithExpectation(v, want), "");
  v.divergences[0].blamed = "aot_eager";
  EXPECT_NE(CompareWithExpectation(v, want), "");
}

}  // namespace
}  // namespace mmdiff
