// Every repro.py a campaign writes shows its finding with plain python: it ends in the script's own
// assertion (exit 1) while the divergence is there, whichever path is at fault — a compiled path
// against eager, eager on meta against eager on cpu, eager against the contract — and whether the
// case is the one found or its reduction.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "src/ir/paths.h"
#include "src/ir/program_json.h"
#include "src/ir/python_emitter.h"
#include "tests/e2e_util.h"

namespace mmdiff {
namespace {

namespace fs = std::filesystem;

// Runs `repro` with the venv's python; its output when it did not end in its own assertion.
std::string FailsToReproduce(const std::string& repro) {
  auto r = e2e::RunShell(e2e::VenvPython() + " " + repro);
  bool own_assertion = r.output.find("AssertionError: ") != std::string::npos;
  if (r.exit_code == 1 && own_assertion) return "";
  return repro + " exited " + std::to_string(r.exit_code) + ":\n" + r.output;
}

TEST(ReproE2E, EveryReproOfACampaignWithCompiledPathsShowsItsFinding) {
  std::string dir = e2e::ScratchDir("repro-campaign");
  auto fuzz = e2e::RunMmdiff(
      // The policy's own mix (unsteered): meta programs among it give meta findings' scripts. The
      // test runs every repro.py itself: no standalone check; no ablation either.
      "fuzz --cases 40 --time 200 --seed 1 --jobs 2 --reduce-budget 5 --no-known --steer off "
      "--no-standalone-check --no-ablation "
      "--paths "
      "reference,eager,eager_meta,inductor,torchscript --out " +
      dir + "/c");
  ASSERT_EQ(fuzz.exit_code, 0) << fuzz.output;
  std::vector<std::string> repros;
  for (const auto& f : fs::recursive_directory_iterator(dir + "/c/findings"))
    if (f.path().filename() == "repro.py") repros.push_back(f.path().string());
  std::sort(repros.begin(), repros.end());
  ASSERT_GE(repros.size(), 4u) << fuzz.output;
  bool reduced = false, compiled = false, meta = false;
  for (const auto& r : repros) {
    std::string text;
    std::ifstream in(r);
    text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    reduced |= r.find("/reduced/") != std::string::npos;
    compiled |= text.find("compiled = outcome(") != std::string::npos;
    meta |= text.find("meta = outcome(") != std::string::npos;
    EXPECT_EQ(FailsToReproduce(r), "");
  }
  // The campaign exercised the kinds of script this test is about.
  EXPECT_TRUE(reduced);
  EXPECT_TRUE(compiled);
  EXPECT_TRUE(meta);
}

TEST(ReproE2E, ATorchScriptReproCompilesLinearAndShowsTheAddmmPromotion) {
  // linear, then TorchScript's addmm with a float64 bias and float32 matrices (beta = alpha = 1:
  // its DecomposeOps pass makes it mm + add, which promotes, where eager raises). The TorchScript
  // source in repro.py must compile F.linear from Python (torch.linear does not exist there), or
  // the script would see two RuntimeErrors and call them agreement.
  std::string dir = e2e::ScratchDir("repro-torchscript");
  Program p;
  p.inputs = {{"x", {2, 3}, DType::kFloat32},
              {"w", {4, 3}, DType::kFloat32},
              {"m", {4, 5}, DType::kFloat32},
              {"b", {2, 5}, DType::kFloat64}};
  p.nodes = {{"v0", OpKind::kLinear, {"x", "w"}}, {"v1", OpKind::kAddmm, {"b", "v0", "m"}}};
  p.outputs = {"v1"};
  std::ofstream(dir + "/program.json") << ProgramToJson(p).dump(2);
  auto run = e2e::RunMmdiff(
      "run " + dir + "/program.json --paths reference,eager,torchscript --out " + dir + "/out");
  ASSERT_EQ(run.exit_code, 1) << run.output;  // torchscript promotes where eager raises
  ASSERT_NE(run.output.find("torchscript accepts addmm("), std::string::npos) << run.output;
  std::string repro = dir + "/out/repro.py";
  std::ifstream in(repro);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("torch.nn.functional.linear(x, w)"), std::string::npos) << text;
  EXPECT_EQ(FailsToReproduce(repro), "");
  auto r = e2e::RunShell(e2e::VenvPython() + " " + repro);
  EXPECT_NE(r.output.find("eager and TorchScript disagree"), std::string::npos) << r.output;
}

// A value finding's script checks eager's element before the compiled path's: where eager is beyond
// the bound there too (here a reference value nobody computes), the compiled path is not the one
// off, and the script says so and exits 0, so a campaign's standalone check does not call it
// reproduced. Seen on a float16 TorchScript gradient near overflow: eager gave 0 in the worker and
// NaN in Python.
TEST(ReproE2E, AValueScriptDoesNotBlameTheCompiledPathWhereEagerIsOffToo) {
  std::string dir = e2e::ScratchDir("repro-eager-off");
  Program p;
  p.inputs = {{"a", {2, 3}, DType::kFloat32}, {"b", {3, 2}, DType::kFloat32}};
  p.nodes = {{"v0", OpKind::kMm, {"a", "b"}}};
  p.outputs = {"v0"};
  ReproOptions o;
  o.backend = paths::kInductor;
  o.worst = {0, 1, 1e6, 1e-6};  // element 1 of output 0 is not 1e6 on any path
  std::ofstream(dir + "/repro.py") << EmitRepro(p, {"grid16", 1}, o);
  auto r = e2e::RunShell(e2e::VenvPython() + " " + dir + "/repro.py");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("eager is beyond the bound there too"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("AssertionError"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace mmdiff
