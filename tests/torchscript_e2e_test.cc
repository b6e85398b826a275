// The torchscript path through the worker: equal to eager on an exact mm, the compiled function
// reused for new input values, a contract violation an error outcome rather than a crash, and
// `mmdiff paths` listing it (and aoti) with availability and default-set membership.
#include <gtest/gtest.h>

#include <fstream>

#include "src/exec/supervisor.h"
#include "src/ir/program_json.h"
#include "src/report/report.h"
#include "tests/e2e_util.h"

namespace mmdiff {
namespace {

// mm with mismatched inner sizes (17 vs 16): the contract says RuntimeError.
Program MismatchedMm() {
  Program p = e2e::LegalMm();
  p.inputs[1].shape = {16, 3};
  return p;
}

TEST(TorchScriptE2E, MmEqualsEagerAndNewInputsReuseTheCompiledFunction) {
  std::string dir = e2e::ScratchDir("ts-mm");
  Supervisor sup(e2e::WorkerOptions(dir + "/worker.log"));
  ASSERT_TRUE(sup.Hello().ok());
  Program p = e2e::LegalMm();
  for (uint64_t seed : {3, 4, 5}) {
    InputRecipe r{"grid16", seed};  // exact sums: every correct path returns the same bits
    e2e::ExpectCompiledPathMatchesEager(sup.Run(p, r, {"reference", "eager", "torchscript"}), p, r,
                                        seed == 3);
  }
  // Another function is compiled afresh.
  Program q = p;
  q.nodes[0].op = OpKind::kMatmul;
  std::vector<PathResult> other = sup.Run(q, {"grid16", 3}, {"torchscript"});
  ASSERT_EQ(other[0].kind, OutcomeKind::kOk) << other[0].message;
  EXPECT_TRUE(other[0].compile.compiled && !other[0].compile.reused);
}

TEST(TorchScriptE2E, AShapeMismatchIsARuntimeErrorLikeEagersNotACrash) {
  std::string dir = e2e::ScratchDir("ts-mismatch");
  Supervisor sup(e2e::WorkerOptions(dir + "/worker.log"));
  ASSERT_TRUE(sup.Hello().ok());
  Program p = MismatchedMm();
  InputRecipe r{"grid16", 3};
  std::vector<PathResult> res = sup.Run(p, r, {"reference", "eager", "torchscript"});
  ASSERT_EQ(res.size(), 3u);
  EXPECT_EQ(res[1].kind, OutcomeKind::kError);
  EXPECT_EQ(res[2].kind, OutcomeKind::kError);
  EXPECT_EQ(res[2].error_class, "RuntimeError");
  EXPECT_EQ(res[2].error_class, res[1].error_class);
  // The operator's own line, not the interpreter's "The following operation failed ..." preamble.
  EXPECT_NE(res[2].message.find("shapes cannot be multiplied (5x17 and 16x3)"), std::string::npos)
      << res[2].message;
  EXPECT_FALSE(JudgeCase(p, r, res).verdict.diverges());
  // The same worker goes on: no crash, no restart.
  std::vector<PathResult> after = sup.Run(e2e::LegalMm(), r, {"torchscript"});
  EXPECT_EQ(after[0].kind, OutcomeKind::kOk) << after[0].message;
  EXPECT_EQ(sup.restarts(), 0);
}

// Eager accepts addmm of a cpu bias and meta matrices (the meta kernel has no device check, where
// the contract's first violation is) and raises at a later bmm whose result is unused; TorchScript
// eliminates that bmm and accepts. Eager's result names the bmm, so the finding is dead-code
// elimination at the bmm, not a same_device acceptance at the addmm (seen on 2.15.0: ten of 27
// program-fuzzer entries were this).
TEST(TorchScriptE2E, EagerRaisingAtAnUnusedLaterNodeIsDeadCodeEliminationThere) {
  std::string dir = e2e::ScratchDir("ts-dead-later");
  Supervisor sup(e2e::WorkerOptions(dir + "/worker.log"));
  ASSERT_TRUE(sup.Hello().ok());
  Program p;
  p.inputs = {{"x0", {}, DType::kFloat32},
              {"x1", {1, 1}, DType::kFloat32, Device::kMeta},
              {"x2", {1, 1}, DType::kFloat32, Device::kMeta},
              {"x3", {2, 2}, DType::kFloat32}};
  Node addmm{"v0", OpKind::kAddmm, {"x0", "x1", "x2"}};
  addmm.beta = 0.0;
  p.nodes = {addmm, {"v1", OpKind::kBmm, {"x3", "x3"}}};
  p.outputs = {"v0"};
  InputRecipe r{"exact", 1};
  std::vector<PathResult> res = sup.Run(p, r, {"reference", "eager", "torchscript"});
  ASSERT_EQ(res.size(), 3u);
  ASSERT_EQ(res[1].kind, OutcomeKind::kError) << res[1].message;
  EXPECT_EQ(res[1].node, "v1") << res[1].message;
  EXPECT_EQ(res[0].node, "v0");  // the contract's violation
  ASSERT_EQ(res[2].kind, OutcomeKind::kOk) << res[2].message;
  CaseRun c = JudgeCase(p, r, res);
  auto findings = CaseFindings(c);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].signature, "error_behaviour|path=torchscript|unused_op");
  EXPECT_NE(Headline(WithFinding(c, findings[0])).find("accepts bmm(float32, float32)"),
            std::string::npos)
      << Headline(WithFinding(c, findings[0]));
}

// A real TorchScript behaviour mmdiff finds: its DecomposeOps pass rewrites addmm with beta = alpha
// = 1 into mm + add, and add promotes, so a float64 bias with float32 matrices returns float64
// where eager raises (same program with beta = 0.5: both raise). The repro.py written for it shows
// the same with plain Python's TorchScript.
TEST(TorchScriptE2E, AddmmWithUnitScalesPromotesTheBiasWhereEagerRaisesAndTheReproShowsIt) {
  std::string dir = e2e::ScratchDir("ts-addmm");
  Supervisor sup(e2e::WorkerOptions(dir + "/worker.log"));
  ASSERT_TRUE(sup.Hello().ok());
  Program p;
  p.inputs = {{"bias", {4, 3}, DType::kFloat64},
              {"a", {4, 5}, DType::kFloat32},
              {"b", {5, 3}, DType::kFloat32}};
  p.nodes = {{"v0", OpKind::kAddmm, {"bias", "a", "b"}}};  // beta = alpha = 1
  p.outputs = {"v0"};
  InputRecipe r{"grid16", 3};
  std::vector<PathResult> res = sup.Run(p, r, {"reference", "eager", "torchscript"});
  ASSERT_EQ(res.size(), 3u);
  EXPECT_EQ(res[1].kind, OutcomeKind::kError);
  ASSERT_EQ(res[2].kind, OutcomeKind::kOk) << res[2].message;
  EXPECT_EQ(res[2].outputs[0].dtype, DType::kFloat64);
  CaseRun c = JudgeCase(p, r, res);
  ASSERT_EQ(c.verdict.divergences.size(), 1u);
  EXPECT_EQ(c.verdict.divergences[0].kind, DivergenceKind::kErrorBehaviour);
  EXPECT_EQ(c.verdict.divergences[0].blamed, "torchscript");

  Program half = p;
  half.nodes[0].beta = 0.5;
  std::vector<PathResult> kept = sup.Run(half, r, {"reference", "eager", "torchscript"});
  EXPECT_EQ(kept[2].kind, OutcomeKind::kError);
  EXPECT_FALSE(JudgeCase(half, r, kept).verdict.diverges());

  ASSERT_TRUE(WriteFinding(dir + "/finding", c, RunContext{}).ok());
  auto repro = e2e::RunShell(e2e::VenvPython() + " " + dir + "/finding/repro.py");
  EXPECT_NE(repro.exit_code, 0) << repro.output;
  EXPECT_NE(repro.output.find("compiled: ('ok', [('torch.float64', (4, 3), 'cpu')])"),
            std::string::npos)
      << repro.output;
  EXPECT_NE(repro.output.find("AssertionError: eager and TorchScript disagree"), std::string::npos)
      << repro.output;
}

TEST(TorchScriptE2E, PathsListsTorchScriptByDefaultAndAotiOnDemand) {
  auto r = e2e::RunMmdiff("paths --json");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  auto j = nlohmann::json::parse(r.output);
  std::map<std::string, nlohmann::json> paths;
  for (const auto& p : j["paths"]) paths[p["name"]] = p;
  ASSERT_TRUE(paths.count("torchscript") && paths.count("aoti")) << r.output;
  EXPECT_EQ(paths["torchscript"]["available"], true) << paths["torchscript"]["why"];
  EXPECT_EQ(paths["torchscript"]["on_demand"], false);
  EXPECT_EQ(paths["aoti"]["available"], true) << paths["aoti"]["why"];
  EXPECT_EQ(paths["aoti"]["on_demand"], true);
  auto text = e2e::RunMmdiff("paths");
  EXPECT_NE(text.output.find("aoti                             yes        slow, run on demand"),
            std::string::npos)
      << text.output;

  // Without --paths, a run takes torchscript and leaves aoti out.
  std::string dir = e2e::ScratchDir("ts-default");
  std::ofstream(dir + "/mm.json") << ProgramToJson(e2e::LegalMm()).dump();
  auto run = e2e::RunMmdiff("run " + dir + "/mm.json --json");
  ASSERT_EQ(run.exit_code, 0) << run.output;
  std::set<std::string> ran;
  auto report = nlohmann::json::parse(run.output.substr(run.output.find('{')));
  for (const auto& p : report["paths"]) ran.insert(p["path"]);
  EXPECT_TRUE(ran.count("torchscript")) << run.output;
  EXPECT_FALSE(ran.count("aoti")) << run.output;
}

}  // namespace
}  // namespace mmdiff
