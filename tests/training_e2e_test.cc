// Training programs end to end on the real worker: gradients through the reference, eager, the
// torch.compile paths and TorchScript agree; a planted backward fault is caught, blamed and named
// by its gradient; aoti says why it does not run them; and repro.py shows the gradients.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>

#include "src/ir/program_json.h"
#include "src/report/run_case.h"
#include "src/support/files.h"
#include "tests/e2e_util.h"

namespace mmdiff {
namespace {

InputSpec Trained(const std::string& name, Shape shape, DType d) {
  InputSpec in{name, std::move(shape), d};
  in.requires_grad = true;
  return in;
}

// addmm(bias, a, wᵀ) then a cast into a matmul whose second operand is broadcast along a batch,
// and a linear of the same value: a broadcast bias, a transposed view, a cast back, a summed batch
// and a value with two uses (its gradient is a sum).
Program TrainingProgram() {
  Program p;
  p.inputs = {Trained("bias", {3}, DType::kFloat32),
              Trained("a", {2, 4}, DType::kFloat32),
              Trained("w", {3, 4}, DType::kFloat32),
              Trained("m", {2, 5, 2}, DType::kFloat16),
              {"k", {6, 3}, DType::kFloat32}};
  Node t{"v0", OpKind::kTranspose, {"w"}};
  t.ints = {0, 1};
  Node addmm{"v1", OpKind::kAddmm, {"bias", "a", "v0"}};
  addmm.alpha = 0.5;
  addmm.beta = 2.0;
  Node cast{"v2", OpKind::kCast, {"v1"}, DType::kFloat16};
  Node mm{"v3", OpKind::kMatmul, {"m", "v2"}};
  Node lin{"v4", OpKind::kLinear, {"v1", "k"}};
  p.nodes = {t, addmm, cast, mm, lin};
  p.outputs = {"v3", "v4"};
  return p;
}

TEST(TrainingE2E, GradientsAgreeOnEveryPathThatTrainsAndAotiSaysWhyNot) {
  std::string dir = e2e::ScratchDir("training");
  Supervisor sup(e2e::WorkerOptions(dir + "/worker.log"));
  Program p = TrainingProgram();
  for (const InputRecipe& r : {InputRecipe{"uniform", 11}, InputRecipe{"exact", 12}}) {
    CaseRun run = RunAndJudge(
        sup, p, r, {"reference", "eager", "inductor", "aot_eager", "compile_eager", "torchscript"});
    for (const auto& res : run.results) {
      ASSERT_TRUE(res.ok()) << res.path << ": " << res.message;
      // v3, v4, then grad(bias), grad(a), grad(w), grad(m) in their inputs' types.
      ASSERT_EQ(res.outputs.size(), 6u) << res.path;
      EXPECT_EQ(res.outputs[5].dtype, DType::kFloat16) << res.path;
      EXPECT_EQ(res.outputs[2].shape, (Shape{3})) << res.path;
    }
    EXPECT_FALSE(run.verdict.diverges()) << VerdictToJson(run.verdict).dump(2);
    // The reference judges the gradients: finite bounds, and exact values bit for bit.
    const PathResult* ref = FindResult(run.results, "reference");
    for (size_t o = 2; o < 6; ++o)
      for (double b : ref->outputs[o].bound) EXPECT_TRUE(std::isfinite(b)) << o;
  }
  std::vector<PathResult> aoti = sup.Run(p, InputRecipe{"uniform", 11}, {"aoti"});
  ASSERT_EQ(aoti.size(), 1u);
  EXPECT_EQ(aoti[0].kind, OutcomeKind::kUnsupported);
  EXPECT_NE(aoti[0].message.find("inference only"), std::string::npos) << aoti[0].message;
}

TEST(TrainingE2E, AttentionGradientsAreJudgedAndAgreeOnEveryPath) {
  // Grouped-query sdpa (four query heads on two key/value heads) with an additive mask that
  // requires grad too: dq, dk, dv and dmask from the reference's attention backward.
  std::string dir = e2e::ScratchDir("training-sdpa");
  Supervisor sup(e2e::WorkerOptions(dir + "/worker.log"));
  Program p;
  p.inputs = {Trained("q", {1, 4, 3, 8}, DType::kFloat32),
              Trained("k", {1, 2, 5, 8}, DType::kFloat32),
              Trained("v", {1, 2, 5, 4}, DType::kFloat32), Trained("m", {3, 5}, DType::kFloat32)};
  Node sdpa{"v0", OpKind::kSdpa, {"q", "k", "v", "m"}};
  sdpa.enable_gqa = true;
  p.nodes = {sdpa};
  p.outputs = {"v0"};
  for (const InputRecipe& r : {InputRecipe{"uniform", 31}, InputRecipe{"normal", 32}}) {
    CaseRun run = RunAndJudge(sup, p, r, {"reference", "eager", "inductor", "aot_eager"});
    for (const auto& res : run.results) {
      ASSERT_TRUE(res.ok()) << res.path << ": " << res.message;
      ASSERT_EQ(res.outputs.size(), 5u) << res.path;
    }
    EXPECT_FALSE(run.verdict.diverges()) << VerdictToJson(run.verdict).dump(2);
    const PathResult* ref = FindResult(run.results, "reference");
    for (size_t o = 1; o < 5; ++o)
      for (double b : ref->outputs[o].bound) EXPECT_TRUE(std::isfinite(b)) << o;
  }
}

TEST(TrainingE2E, ANonFloatingInputThatRequiresGradIsRejectedWhereEagerRejectsIt) {
  std::string dir = e2e::ScratchDir("training-int");
  Supervisor sup(e2e::WorkerOptions(dir + "/worker.log"));
  Program p = e2e::LegalMm();
  p.inputs[0].dtype = p.inputs[1].dtype = DType::kInt32;
  p.inputs[0].requires_grad = true;
  CaseRun run = RunAndJudge(sup, p, InputRecipe{"uniform", 3},
                            {"reference", "eager", "eager_meta", "aot_eager"});
  const PathResult* eager = FindResult(run.results, "eager");
  ASSERT_EQ(eager->kind, OutcomeKind::kError);
  EXPECT_EQ(eager->error_class, "RuntimeError");
  EXPECT_EQ(eager->node, p.inputs[0].name);  // raised where the input is marked
  EXPECT_NE(eager->message.find("floating point"), std::string::npos) << eager->message;
  EXPECT_FALSE(run.verdict.diverges()) << VerdictToJson(run.verdict).dump(2);
}

TEST(TrainingE2E, ABackwardThatMustCopyOutOfMetaRaisesThereOnEveryPath) {
  std::string dir = e2e::ScratchDir("training-meta");
  Supervisor sup(e2e::WorkerOptions(dir + "/worker.log"));
  Program p = e2e::LegalMm();
  p.inputs[1].device = Device::kMeta;
  Node move{"m", OpKind::kToDevice, {p.inputs[0].name}};
  move.device = Device::kMeta;
  p.nodes.insert(p.nodes.begin(), move);
  p.nodes[1].args[0] = "m";
  p.inputs[0].requires_grad = true;
  // (Not inductor: it cannot compile some training programs on meta, a finding of its own, in
  // corpus/regression/inductor-meta-training-mm-add-graph-order.json.)
  CaseRun run = RunAndJudge(sup, p, InputRecipe{"uniform", 4},
                            {"reference", "eager", "aot_eager", "compile_eager"});
  for (const auto& r : run.results) {
    EXPECT_EQ(r.kind, OutcomeKind::kError) << r.path;
    EXPECT_TRUE(r.backward) << r.path << ": " << r.message;
    EXPECT_EQ(r.error_class, "NotImplementedError") << r.path;
  }
  EXPECT_FALSE(run.verdict.diverges()) << VerdictToJson(run.verdict).dump(2);
}

TEST(TrainingE2E, APlantedBackwardFaultIsCaughtBlamedAndNamedByItsGradient) {
  std::string dir = e2e::ScratchDir("training-planted");
  Program p = e2e::LegalMm();
  for (auto& in : p.inputs) in.requires_grad = true;
  std::ofstream(dir + "/program.json") << ProgramToJson(p).dump();
  auto r = e2e::RunMmdiff("run " + dir +
                          "/program.json --test-paths --paths reference,eager,"
                          "planted_drop_grad_term");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("value [blamed: planted_drop_grad_term"), std::string::npos) << r.output;
  std::string grad = "grad(" + p.inputs[1].name + ") element";
  EXPECT_NE(r.output.find("planted_drop_grad_term " + grad), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("computes the backward of mm(float32, float32) for grad("),
            std::string::npos)
      << r.output;
}

TEST(TrainingE2E, ACampaignBucketsGradientFindingsApartAndItsReproShowsTheGradients) {
  std::string out = e2e::ScratchDir("training-campaign");
  std::ofstream(out + "/policy.json")
      << R"({"p_train": 1, "p_meta": 0, "p_cuda": 0, "p_device_mismatch": 0, "w_bfloat16": 0,)"
      << R"( "p_mask_float32": 0, "p_grad_violation": 0, "p_shape_violation": 0,)"
      << R"( "p_mixed_dtype": 0, "w_sdpa": 0, "w_attention": 0})";
  auto r = e2e::RunMmdiff(
      "fuzz --time 120 --cases 40 --seed 3 --no-ablation --test-paths --paths "
      "reference,eager,planted_drop_grad_term --policy " +
      out + "/policy.json --out " + out);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  nlohmann::json s = e2e::CampaignSummary(out);
  std::string finding;
  for (const auto& b : s["buckets"]) {
    std::string sig = b["signature"].get<std::string>();
    EXPECT_EQ(sig.find("path=eager"), std::string::npos) << "eager's gradients flagged: " << sig;
    if (sig.find("value|path=planted_drop_grad_term|grad_values") != std::string::npos)
      finding = out + "/" + b["finding"].get<std::string>();
  }
  ASSERT_FALSE(finding.empty()) << s.dump(2);
  // The planted path is not in torch: repro.py compares eager's gradients with inductor's.
  auto py = e2e::RunShell(e2e::VenvPython() + " " + finding + "/repro.py");
  EXPECT_EQ(py.exit_code, 0) << py.output;
  EXPECT_NE(py.output.find("eager:"), std::string::npos) << py.output;
  auto text = ReadFile(finding + "/repro.py");
  ASSERT_TRUE(text.ok());
  EXPECT_NE(text.value().find("requires_grad=True"), std::string::npos);
  EXPECT_NE(text.value().find("torch.autograd.backward"), std::string::npos);
}

}  // namespace
}  // namespace mmdiff
