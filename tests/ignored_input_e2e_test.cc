// The rerun with an ignored input zeroed, end to end with the real Inductor: a float32 addmm with
// beta = 0 whose bias holds a NaN. torch.addmm's documentation says the bias is then ignored;
// Inductor's CPU decomposition of a one-row addmm computes alpha * product + beta * bias, so 0 *
// NaN reaches the result (pytorch#196596, open on torch 2.15.0). The finding is an ignored_input
// divergence blamed on inductor alone, the report is valid, and repro.py shows it.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "src/ir/input_recipe.h"
#include "src/ir/program_json.h"
#include "tests/e2e_util.h"
#include "tests/schema_check.h"

namespace mmdiff {
namespace {

// bias float32[1, 4] holds NaN at element 1 (recipe seed 94); a [1, 3] and b [3, 4] are finite.
std::string WriteCase(const std::string& dir) {
  Program p;
  p.inputs = {{"bias", {1, 4}, DType::kFloat32},
              {"a", {1, 3}, DType::kFloat32},
              {"b", {3, 4}, DType::kFloat32}};
  Node n{"v0", OpKind::kAddmm, {"bias", "a", "b"}};
  n.beta = 0.0;
  p.nodes = {n};
  p.outputs = {"v0"};
  InputRecipe r{"uniform", 94};
  r.special = 0.2;
  std::string file = dir + "/case.json";
  std::ofstream(file)
      << nlohmann::json{{"program", ProgramToJson(p)}, {"inputs", RecipeToJson(r)}}.dump(2);
  return file;
}

TEST(IgnoredInputE2E, InductorReadingTheIgnoredBiasIsBlamedAndReproduced) {
  std::string dir = e2e::ScratchDir("ignored-input");
  std::string file = WriteCase(dir);
  auto r = e2e::RunMmdiff("run --json --paths reference,eager,aot_eager,inductor --out " + dir +
                          "/finding " + file + " 2>/dev/null");
  ASSERT_EQ(r.exit_code, 1) << r.output;
  auto report = nlohmann::json::parse(r.output, nullptr, false);
  ASSERT_FALSE(report.is_discarded()) << r.output;
  const auto& ds = report["verdict"]["divergences"];
  ASSERT_EQ(ds.size(), 1u)
      << ds.dump();  // the NaN against the reference's number is the same fault
  EXPECT_EQ(ds[0]["kind"], "ignored_input");
  EXPECT_EQ(ds[0]["blamed"], "inductor");  // aot_eager ignores it, as eager does
  EXPECT_EQ(ds[0]["classification"], "filable");
  std::string signature = report["bucket"]["signature"];
  EXPECT_EQ(signature.rfind("ignored_input|path=inductor|reads_ignored|op=addmm", 0), 0u)
      << signature;
  EXPECT_NE(report["headline"].get<std::string>().find("reads the ignored input of addmm"),
            std::string::npos)
      << report["headline"];

  auto valid = e2e::ValidateJson({dir + "/finding/report.json"});
  EXPECT_TRUE(valid.all_valid()) << valid.output;

  auto repro = e2e::RunShell(e2e::VenvPython() + " " + dir + "/finding/repro.py 2>&1");
  EXPECT_EQ(repro.exit_code, 1) << repro.output;
  EXPECT_NE(repro.output.find("nan as given"), std::string::npos) << repro.output;
  EXPECT_NE(repro.output.find("reads inputs its op must ignore"), std::string::npos)
      << repro.output;
}

}  // namespace
}  // namespace mmdiff
