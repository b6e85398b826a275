// Models compiled the way they are deployed on a CPU, end to end on the real worker and torch:
// a program whose weights are a module's parameters and buffers, compiled with freezing under
// torch.no_grad() and with max-autotune's C++ GEMM templates, records the lowering Inductor chose;
// a finding only a knob variant has is blamed on that variant, its repro.py builds the model and
// sets the knobs, and a saved entry with weights replays.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>

#include "src/ir/program_json.h"
#include "src/ir/test_programs.h"
#include "src/ir/verifier.h"
#include "src/support/files.h"
#include "tests/e2e_util.h"

namespace mmdiff {
namespace {

// linear(x[8, 33], w[64, 33], b[64]) in float32: the weight a parameter, the bias a buffer (K = 33
// leaves a tail for the micro-kernels' blocks).
Program LinearModel() {
  Program p = test_programs::OneOp(OpKind::kLinear, {{"x", {8, 33}, DType::kFloat32},
                                                     {"w", {64, 33}, DType::kFloat32},
                                                     {"b", {64}, DType::kFloat32}});
  p.inputs[1].role = InputRole::kParameter;
  p.inputs[2].role = InputRole::kBuffer;
  return p;
}

std::string Write(const std::string& dir, const std::string& name, const Program& p) {
  std::string path = dir + "/" + name;
  std::ofstream(path) << ProgramToJson(p).dump();
  return path;
}

// `mmdiff run FILE --json --paths PATHS`: the report, or null.
nlohmann::json RunJson(const std::string& file, const std::string& paths,
                       const std::string& extra = "") {
  auto r =
      e2e::RunMmdiff("run " + file + " --json --paths " + paths + " " + extra + " 2>/dev/null");
  if (r.exit_code != 0 && r.exit_code != 1) return nullptr;
  auto j = nlohmann::json::parse(r.output, nullptr, false);
  return j.is_discarded() ? nullptr : j;
}

const nlohmann::json* PathOf(const nlohmann::json& report, const std::string& path) {
  for (const auto& p : report["paths"])
    if (p["path"] == path) return &p;
  return nullptr;
}

std::vector<std::string> Internals(const nlohmann::json& report, const std::string& path) {
  const nlohmann::json* p = PathOf(report, path);
  if (!p || !p->contains("compile")) return {};
  return (*p)["compile"]["internals"].get<std::vector<std::string>>();
}

bool Has(const std::vector<std::string>& names, const std::string& prefix) {
  return std::any_of(names.begin(), names.end(),
                     [&](const std::string& n) { return n.rfind(prefix, 0) == 0; });
}

TEST(DeploymentE2E, FreezingPrepacksAModelsWeightAndMaxAutotuneRunsTheCppTemplate) {
  std::string dir = e2e::ScratchDir("deploy-lowerings");
  nlohmann::json rep = RunJson(Write(dir, "model.json", LinearModel()),
                               "reference,eager,inductor,inductor_freezing,inductor_max_autotune");
  ASSERT_FALSE(rep.is_null());
  EXPECT_EQ(rep["verdict"]["result"], "agree") << rep.dump(2);
  // Inductor alone calls ATen's addmm; freezing prepacks the constant weight for mkl or mkldnn
  // (its weight-pack pattern fired); the forced C++ template computes it with its micro-kernel.
  const auto inductor = Internals(rep, "inductor");
  const auto frozen = Internals(rep, "inductor_freezing");
  const auto tuned = Internals(rep, "inductor_max_autotune");
  EXPECT_TRUE(Has(inductor, "lowering:extern.addmm")) << rep.dump(2);
  EXPECT_FALSE(Has(inductor, "lowering:mkl") || Has(inductor, "lowering:template."));
  EXPECT_TRUE(Has(frozen, "lowering:mkl._mkl_linear") ||
              Has(frozen, "lowering:mkldnn._linear_pointwise"))
      << rep.dump(2);
  EXPECT_TRUE(Has(frozen, "pattern:mkldnn_linear_weight_pack_matcher_count"));
  EXPECT_TRUE(Has(tuned, "lowering:template.CppGemmTemplate")) << rep.dump(2);
  EXPECT_TRUE(Has(tuned, "lowering:micro_gemm.")) << rep.dump(2);
  // The same product of two inputs is no model: nothing to freeze or prepack, and no template
  // takes a second operand that is not a constant, so max-autotune with only the C++ templates
  // cannot compile it, which is the setting's limit, not a finding.
  Program function = LinearModel();
  for (auto& in : function.inputs) in.role = InputRole::kInput;
  nlohmann::json plain = RunJson(Write(dir, "function.json", function),
                                 "reference,eager,inductor_freezing,inductor_max_autotune");
  ASSERT_FALSE(plain.is_null());
  EXPECT_EQ(plain["verdict"]["result"], "agree") << plain.dump(2);
  EXPECT_FALSE(Has(Internals(plain, "inductor_freezing"), "lowering:mkl"));
  EXPECT_FALSE(Has(Internals(plain, "inductor_freezing"), "pattern:mkldnn_linear_weight_pack"));
  const nlohmann::json* unsupported = PathOf(plain, "inductor_max_autotune");
  ASSERT_NE(unsupported, nullptr);
  EXPECT_EQ((*unsupported)["outcome"], "unsupported") << plain.dump(2);
  EXPECT_NE((*unsupported)["message"].get<std::string>().find("no C++ GEMM template takes it"),
            std::string::npos);
}

// Freezing with a symbolic batch packs a float32 linear for mkldnn (mkl takes a static one) and
// fuses its epilogue as a post-op; freezing's opt-in passes concatenate linears sharing an input.
// Each variant's record names what it made, and all agree with eager.
TEST(DeploymentE2E, TheDeploymentVariantsReachMkldnnPostOpsAndConcatenatedLinears) {
  std::string dir = e2e::ScratchDir("deploy-variants");
  Program sigmoid = LinearModel();
  sigmoid.nodes.push_back(Node{.name = "s", .op = OpKind::kSigmoid, .args = {"v0"}});
  sigmoid.outputs = {"s"};
  ASSERT_TRUE(Verify(sigmoid).ok()) << Verify(sigmoid).message();
  nlohmann::json rep = RunJson(Write(dir, "sigmoid.json", sigmoid),
                               "reference,eager,inductor_freezing,inductor_freezing_dynamic");
  ASSERT_FALSE(rep.is_null());
  EXPECT_EQ(rep["verdict"]["result"], "agree") << rep.dump(2);
  EXPECT_TRUE(Has(Internals(rep, "inductor_freezing_dynamic"),
                  "lowering:mkldnn._linear_pointwise.default:sigmoid"))
      << rep.dump(2);
  // Three linears of one input, their weights parameters.
  Program three = LinearModel();
  for (int i = 1; i <= 2; ++i) {
    const std::string w = "w" + std::to_string(i), b = "b" + std::to_string(i);
    three.inputs.push_back({.name = w, .shape = {16, 33}, .role = InputRole::kParameter});
    three.inputs.push_back({.name = b, .shape = {16}, .role = InputRole::kParameter});
    three.nodes.push_back(
        Node{.name = "l" + std::to_string(i), .op = OpKind::kLinear, .args = {"x", w, b}});
    three.outputs.push_back("l" + std::to_string(i));
  }
  ASSERT_TRUE(Verify(three).ok()) << Verify(three).message();
  rep = RunJson(Write(dir, "three.json", three), "reference,eager,inductor_freezing_opt_in");
  ASSERT_FALSE(rep.is_null());
  EXPECT_EQ(rep["verdict"]["result"], "agree") << rep.dump(2);
  EXPECT_TRUE(Has(Internals(rep, "inductor_freezing_opt_in"),
                  "rewrite:freezing_patterns.addmm_patterns_init.locals.addmm_fuse_pattern_second"))
      << rep.dump(2);
}

// A model that trains: the gradients of its parameters (the model's, not the tensors it was made
// of) agree on every path, and the variants that compile for inference say why they do not run it.
TEST(DeploymentE2E, ATrainingModelsParameterGradientsAgreeOnEveryPath) {
  std::string dir = e2e::ScratchDir("deploy-training");
  Program p = LinearModel();
  p.inputs[2].role = InputRole::kParameter;
  for (auto& in : p.inputs) in.requires_grad = true;
  p.inputs[1].layout = Layout::kTransposed;
  nlohmann::json rep = RunJson(
      Write(dir, "training.json", p),
      "reference,eager,inductor,aot_eager,torchscript,inductor_freezing,inductor_cpp_wrapper");
  ASSERT_FALSE(rep.is_null());
  EXPECT_EQ(rep["verdict"]["result"], "agree") << rep.dump(2);
  const nlohmann::json* inductor = PathOf(rep, "inductor");
  ASSERT_NE(inductor, nullptr);
  EXPECT_EQ((*inductor)["outputs"].size(), 4u);  // the output, then three gradients
  const nlohmann::json* frozen = PathOf(rep, "inductor_freezing");
  ASSERT_NE(frozen, nullptr);
  EXPECT_EQ((*frozen)["outcome"], "unsupported");
  EXPECT_NE((*frozen)["message"].get<std::string>().find("under torch.no_grad()"),
            std::string::npos);
}

// A knob variant that drops linear's bias (a lost fused epilogue): the finding is that variant's,
// its ablation shows inductor agreeing, its repro.py builds the model and exits 1 with plain
// python, and the entry promoted from it replays as a match.
TEST(DeploymentE2E, AFindingOnlyAVariantHasIsBlamedOnItAndItsReproAndEntryShowIt) {
  std::string dir = e2e::ScratchDir("deploy-planted");
  std::string out = dir + "/found";
  auto r = e2e::RunMmdiff("run " + Write(dir, "model.json", LinearModel()) +
                          " --test-paths --paths reference,eager,inductor,"
                          "planted_variant_drop_bias --out " +
                          out);
  ASSERT_EQ(r.exit_code, 1) << r.output;
  nlohmann::json rep = e2e::ReadJson(out + "/report.json");
  ASSERT_FALSE(rep.is_null()) << r.output;
  const auto& lead = rep["verdict"]["divergences"][rep["finding"]["divergence"].get<size_t>()];
  EXPECT_EQ(lead["blamed"], "planted_variant_drop_bias") << rep.dump(2);
  EXPECT_EQ(rep["headline"].get<std::string>().rfind("planted_variant_drop_bias ", 0), 0u)
      << rep["headline"];
  for (const auto& d : rep["verdict"]["divergences"]) EXPECT_NE(d["blamed"], "inductor");
  EXPECT_EQ(rep["ablation"]["first_divergent"], "planted_variant_drop_bias") << rep.dump(2);
  auto repro = ReadFile(out + "/repro.py");
  ASSERT_TRUE(repro.ok());
  EXPECT_NE(repro.value().find("class Model(torch.nn.Module):"), std::string::npos);
  EXPECT_NE(repro.value().find("module_call(lambda model: torch.compile(model, "
                               "backend=\"mmdiff_planted_drop_bias\""),
            std::string::npos);
  auto run = e2e::RunShell(e2e::VenvPython() + " " + out + "/repro.py");
  EXPECT_EQ(run.exit_code, 1) << run.output;
  EXPECT_NE(run.output.find("beyond the rounding bound"), std::string::npos) << run.output;
  std::string entry = dir + "/variant-entry.json";
  auto promoted = e2e::RunMmdiff("promote " + out + "/report.json --out " + entry);
  ASSERT_EQ(promoted.exit_code, 0) << promoted.output;
  EXPECT_EQ(e2e::ReadJson(entry)["program"]["inputs"][1]["role"], "parameter");
  auto replay = e2e::RunMmdiff("replay --test-paths " + entry);
  EXPECT_EQ(replay.exit_code, 0) << replay.output;
  EXPECT_EQ(e2e::ReplayStatusOf(replay.output, "variant-entry"), "match") << replay.output;
}

// A campaign draws the knob variant --variants names (here a planted one with dynamic=True, on
// every program by the policy's variant_rate): its finding is that variant's, its case and
// repro.py, run again with the variant among their paths, reproduce it standalone, and its root
// cause (its folder) is that of the planted variant it builds on, which the ablation shows
// diverging alike.
TEST(DeploymentE2E, ACampaignsVariantFindingIsReproducedStandaloneWithItsVariant) {
  std::string dir = e2e::ScratchDir("deploy-campaign");
  std::string policy = dir + "/linear-models.json";
  std::ofstream(policy) << R"({"p_meta": 0, "p_cuda": 0, "p_device_mismatch": 0, "p_train": 0,
      "p_mixed_dtype": 0, "p_shape_violation": 0, "p_autocast": 0, "p_special": 0, "max_ops": 1,
      "p_cast": 0, "p_view": 0, "p_glue": 0, "p_epilogue": 0, "p_residual": 0,
      "p_linear_siblings": 0, "p_linear_bias": 1, "p_module": 1, "p_weight": 1,
      "variant_rate": 1, "w_int8": 0, "w_uint8": 0, "w_int32": 0, "w_int64": 0, "w_bool": 0,
      "w_grid16": 0, "w_addbmm": 0, "w_addmm": 0, "w_addmv": 0, "w_attention": 0, "w_baddbmm": 0,
      "w_bmm": 0, "w_dot": 0, "w_matmul": 0, "w_mv": 0, "w_sdpa": 0, "w_mm": 0, "w_linear": 1})";
  std::string out = dir + "/camp";
  const std::string variant = "planted_variant_drop_bias_dynamic";
  auto r = e2e::RunMmdiff(
      "fuzz --cases 2 --jobs 1 --seed 3 --test-paths --paths "
      "reference,eager,inductor --variants " +
      variant + " --policy " + policy + " --out " + out + " 2>&1");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  nlohmann::json s = e2e::ReadJson(out + "/summary.json");
  ASSERT_FALSE(s.is_null()) << r.output;
  EXPECT_EQ(s["variants"], nlohmann::json::array({variant})) << s.dump(2);
  bool found = false;
  for (const auto& b : s["buckets"]) {
    if (b["signature"].get<std::string>().find("|path=" + variant + "|") == std::string::npos)
      continue;
    found = true;
    EXPECT_EQ(b["headline"].get<std::string>().rfind(variant + " ", 0), 0u) << b.dump(2);
    EXPECT_EQ(b["standalone"]["status"], "reproduced") << b.dump(2);
    EXPECT_NE(b.value("reduced_signature", "").find("|path=planted_variant_drop_bias|"),
              std::string::npos)
        << b.dump(2);
  }
  EXPECT_TRUE(found) << s["buckets"].dump(2);
  // A name that is no variant, or a test one without --test-paths, is a usage error.
  auto bad = e2e::RunMmdiff("fuzz --cases 1 --variants inductor --out " + dir + "/bad 2>&1");
  EXPECT_EQ(bad.exit_code, 2) << bad.output;
  EXPECT_NE(bad.output.find("is not a knob variant this worker offers"), std::string::npos)
      << bad.output;
  bad = e2e::RunMmdiff("fuzz --cases 1 --variants planted_variant_drop_bias --out " + dir +
                       "/bad2 2>&1");
  EXPECT_EQ(bad.exit_code, 2) << bad.output;
}

}  // namespace
}  // namespace mmdiff
