// The deployment target foci: one per lowering or freezing pass, each writing its form.
#include "src/gen/deployment_targets.h"

#include <string>
#include <utility>

#include "src/gen/focus_overlay.h"
#include "src/gen/policy.h"
#include "src/ir/paths.h"

namespace mmdiff {

namespace {

using nlohmann::json;

// One dtype for every operand.
json Only(const char* dtype) {
  json j = {{"w_float64", 0}, {"w_float32", 0}, {"w_float16", 0}, {"w_bfloat16", 0}};
  j[std::string("w_") + dtype] = 1;
  return j;
}

// No epilogue but the one given (its policy weight key), which every product gets.
json OnlyEpilogue(const char* key) {
  json j = {{"w_relu", 0},    {"w_gelu", 0}, {"w_gelu_tanh", 0}, {"w_silu", 0},
            {"w_sigmoid", 0}, {"w_tanh", 0}, {"w_clamp", 0}};
  j[key] = 1;
  j["p_epilogue"] = 1;
  return j;
}

// A model for inference whose products' weight operands are all parameters, compiled by
// `variant` (and inductor) on every program: one product, with no epilogue, residual or sibling
// unless `keys` says so; `keys` over it.
json Deployed(const json& clean, const char* variant, const json& ops, const json& keys) {
  json j = MergeOverlays({clean,
                          OnlyOps(ops),
                          {{"p_module", 1},
                           {"p_weight", 1},
                           {"p_train", 0},
                           {"p_chain", 0},
                           {"p_cast", 0},
                           {"p_view", 0},
                           {"p_transposed", 0},
                           {"p_special", 0},
                           {"p_large_k", 0},
                           {"max_ops", 1},
                           {"p_glue", 0},
                           {"p_epilogue", 0},
                           {"p_product_output", 0},
                           {"p_residual", 0},
                           {"p_linear_siblings", 0},
                           {"variant_rate", 1}}});
  for (const VariantWeight& v : VariantWeights()) j[std::string(v.key)] = 0;
  j[std::string("w_") + variant] = 1;
  j.update(keys);
  return j;
}

// A float32 linear frozen with a symbolic batch: mkldnn packs it (mkl takes a static one; an
// input without a batch dimension is not packed, nor one of a batch of 1, which is specialized).
json MkldnnLinear(const json& clean, const json& keys) {
  return Deployed(
      clean, paths::kInductorFreezingDynamic, {{"w_linear", 1}},
      MergeOverlays({Only("float32"), {{"min_linear_rank", 2}, {"min_batch", 2}}, keys}));
}

// Linears sharing an input: three (two siblings) with `three`, each with a bias with `bias`; most
// of one weight size, which 2.11's concatenation takes only (2.15's any output sizes); an input
// of two dimensions or more (a 1-D one makes mv, which no freezing pattern matches).
json Siblings(const json& clean, const char* variant, bool three, bool bias) {
  return Deployed(clean, variant, {{"w_linear", 1}},
                  {{"p_linear_siblings", 1},
                   {"min_linear_rank", 2},
                   {"p_siblings_equal", 0.75},
                   {"p_two_siblings", three ? 1 : 0},
                   {"p_linear_bias", bias ? 1 : 0}});
}

// A product with a weight operand in one dtype, max-autotune's C++ templates forced.
json Template(const json& clean, const char* dtype, const json& keys = json::object()) {
  return Deployed(clean, paths::kInductorMaxAutotune,
                  {{"w_linear", 2}, {"w_mm", 1}, {"w_addmm", 1}},
                  MergeOverlays({Only(dtype), keys}));
}

// A batched product, max-autotune's C++ templates forced (baddbmm has no template on a CPU):
// bmm, or matmul of operands of 3 dimensions or more (a 1-D one makes mv, a 2-D one mm).
json BmmTemplate(const json& clean, const json& keys) {
  return Deployed(
      clean, paths::kInductorMaxAutotune, {{"w_bmm", 1}, {"w_matmul", 1}},
      MergeOverlays({Only("float32"), keys, {{"min_matmul_rank", 3}, {"max_matmul_rank", 4}}}));
}

}  // namespace

std::vector<Focus> DeploymentTargetFoci(const json& clean) {
  std::vector<std::pair<std::string, json>> targets;
  auto add = [&](std::string target, json overlay) {
    targets.emplace_back(std::move(target), std::move(overlay));
  };
  // mkldnn's packed linear and the post-ops it fuses (relu, sigmoid and tanh only in float32).
  const std::string pointwise = "lowering:mkldnn._linear_pointwise.";
  add(pointwise + "default:none", MkldnnLinear(clean, json::object()));
  const std::pair<const char*, const char*> kPostOps[] = {
      {"relu", "w_relu"}, {"sigmoid", "w_sigmoid"}, {"tanh", "w_tanh"},
      {"gelu", "w_gelu"}, {"swish", "w_silu"},      {"hardtanh", "w_clamp"}};
  for (const auto& [attr, key] : kPostOps)
    add(pointwise + "default:" + attr, MkldnnLinear(clean, OnlyEpilogue(key)));
  add(pointwise + "binary:add", MkldnnLinear(clean, {{"p_residual", 1}}));
  // The same fusions as the freezing passes that make them.
  add("mkldnn_fusion._register_hardtanh_fusion_lowering.locals.fn",
      MkldnnLinear(clean, OnlyEpilogue("w_clamp")));
  add("mkldnn_fusion._register_unary_fusion_lowering.locals.fn",
      MkldnnLinear(clean, OnlyEpilogue("w_silu")));
  add("mkldnn_fusion._register_binary_unary_fusion_lowering.locals.fn",
      MkldnnLinear(clean, MergeOverlays({OnlyEpilogue("w_relu"), {{"p_residual", 1}}})));
  // A packed linear without a bias, then a bias row added (glue before a second op); its input
  // 2-D, since a batched linear's reshapes are folded in the same pass and hide the add.
  add("mkldnn_fusion._recover_linear.locals.linear_bias_pattern",
      MkldnnLinear(clean, {{"p_linear_bias", 0},
                           {"max_linear_rank", 2},
                           {"min_ops", 2},
                           {"max_ops", 2},
                           {"p_glue", 1},
                           {"p_glue_scale", 0},
                           {"p_glue_residual", 0}}));
  // Freezing's opt-in passes: concatenated linears (the weights of a linear without a bias feed
  // mm, with one addmm), a Python scale folded into the weights of the linear before it.
  const std::string concat = "freezing_patterns.addmm_patterns_init.locals.";
  add(concat + "matmul_fuse_pattern", Siblings(clean, paths::kInductorFreezingOptIn, true, false));
  add(concat + "matmul_fuse_pattern_two",
      Siblings(clean, paths::kInductorFreezingOptIn, false, false));
  add(concat + "addmm_fuse_pattern_second",
      Siblings(clean, paths::kInductorFreezingOptIn, true, true));
  add("binary_folding.binary_folding_init.locals.folded_op",
      Deployed(clean, paths::kInductorFreezingOptIn, {{"w_linear", 1}},
               {{"min_ops", 2},
                {"max_ops", 2},
                {"p_glue", 1},
                {"p_glue_scale", 1},
                {"min_linear_rank", 2}}));
  // max-autotune: the grouped template, which takes linears of one input and one weight size that
  // freezing packed for mkldnn (in a static compile, 16-bit ones); the templates; each
  // micro-kernel configuration of a floating dtype (the install's CPU reaches some: the others
  // are never open); the M and N tails (odd sizes).
  add("lowering:template.CppGroupedGemmTemplate",
      Deployed(
          clean, paths::kInductorMaxAutotune, {{"w_linear", 1}},
          MergeOverlays({Only("float16"),
                         {{"w_bfloat16", 1}, {"p_linear_siblings", 1}, {"p_siblings_equal", 1}}})));
  // The templates with an epilogue fused in, the product often an output of its own too (two
  // users); that form has targets of its own, open until a program's fused kernel writes both
  // (pytorch#185405: the BMM template failed it).
  const json fused = {{"p_epilogue", 1}, {"p_product_output", 0.7}};
  const json shared = {{"p_epilogue", 1}, {"p_product_output", 1}};
  add("lowering:template.CppGemmTemplate", Template(clean, "float32", fused));
  add("lowering:template.CppBmmTemplate", BmmTemplate(clean, fused));
  add("lowering:template_shared_product.CppGemmTemplate", Template(clean, "float32", shared));
  add("lowering:template_shared_product.CppBmmTemplate", BmmTemplate(clean, shared));
  const std::pair<const char*, const char*> kKernels[] = {
      {"CppMicroGemmFP32Vec.VecAVX512", "float32"}, {"CppMicroGemmFP32Vec.VecAVX512", "bfloat16"},
      {"CppMicroGemmFP32Vec.VecAVX512", "float16"}, {"CppMicroGemmFP32Vec.VecAVX2", "float32"},
      {"CppMicroGemmFP32Vec.VecAVX2", "bfloat16"},  {"CppMicroGemmFP32Vec.VecAVX2", "float16"},
      {"CppMicroGemmAMX.VecAMX", "bfloat16"},       {"CppMicroGemmAMX.VecAMX", "float16"},
      {"CppMicroBrgemm.VecAMX", "float16"}};
  for (const auto& [kernel, dtype] : kKernels)
    add(std::string("lowering:micro_gemm.") + kernel + "." + dtype, Template(clean, dtype));
  const json odd = {{"dims", {3, 5, 7, 13, 17, 31, 33, 47, 65}}};
  add("lowering:micro_gemm_tail.m", Template(clean, "float32", odd));
  add("lowering:micro_gemm_tail.n", Template(clean, "float32", odd));
  std::vector<Focus> out;
  for (auto& [target, overlay] : targets)
    out.push_back(
        {"target_" + target, "the form that reaches " + target, std::move(overlay), target});
  return out;
}

}  // namespace mmdiff
