// The foci and their policy overlays.
#include "src/gen/focus.h"

#include <stdexcept>

#include "src/gen/deployment_targets.h"
#include "src/gen/focus_overlay.h"
#include "src/gen/fusion_targets.h"
#include "src/gen/generator.h"

namespace mmdiff {

namespace {

using nlohmann::json;

// Programs a rewrite can take: one device, one dtype per op, no deliberate violation, few special
// values, no integers (the fusions check dtypes and devices before they fire), no autocast (its
// 16-bit products make Inductor's documented unrounded intermediates, emulate_precision_casts'
// by-design fold, in every family: the policy as given keeps autocast).
json Clean() {
  return {{"p_shape_violation", 0},
          {"p_bias_violation", 0},
          {"p_device_mismatch", 0},
          {"p_meta", 0},
          {"p_cuda", 0},
          {"p_move", 0},
          {"p_grad_violation", 0},
          {"p_zero_dim", 0},
          {"p_special", 0.05},
          {"p_autocast", 0},
          {"p_mixed_dtype", 0},
          {"w_int8", 0},
          {"w_uint8", 0},
          {"w_int32", 0},
          {"w_int64", 0},
          {"w_bool", 0}};
}

json Merge(std::initializer_list<json> parts) { return MergeOverlays(parts); }

// One hand-written attention per program, as a model writes it. No special values: where a fusion
// fires, a row with NaN or inf goes to sdpa's fused kernel, whose special rows are its own (the
// reference leaves them unjudged in sdpa; docs/judging.md), so the fusion would only show that. A
// float32 softmax is spelled as T5 writes it, x.float().softmax(-1): softmax(x, dtype=float32) is
// no fusion's form, and in training it makes TorchScript's known softmax-dtype autodiff error
// again in every dtype. v keeps q's dtype and a float32 softmax is cast back (else the last
// product mixes dtypes, eager raises and nothing fuses), and a mask never requires grad (the
// training fusions' check).
json Attention() {
  return Merge({Clean(),
                OnlyOps({{"w_attention", 1}}),
                {{"max_ops", 1},
                 {"p_special", 0},
                 {"p_softmax_cast_first", 1},
                 {"p_v_float32", 0},
                 {"p_cast_back", 1},
                 {"p_mask_grad", 0},
                 {"p_view", 0.05},
                 {"p_transposed", 0.05},
                 {"p_cast", 0.05},
                 {"p_glue", 0},
                 {"p_train", 0.15},
                 {"w_float64", 0.2},
                 {"p_softmax_other_dim", 0.2},
                 {"p_attention_merge_heads", 0.3}}});
}

// The plain spellings of the first fusions (patterns 1 to 10): keys transposed, a Python scale,
// an added mask in the scores' dtype or none, softmax in the scores' dtype; the dtypes the
// fusions are registered for.
json AttentionClassic() {
  return Merge({Attention(),
                {{"w_float64", 0},
                 {"w_float32", 1},
                 {"w_float16", 1},
                 {"w_bfloat16", 1},
                 {"p_train", 0.2},
                 {"p_key_permute", 0},
                 {"p_attention_bshd", 0},
                 {"p_attention_projection", 0},
                 {"p_attention_unscaled", 0.1},
                 {"p_scale_query", 0.25},
                 {"p_scale_tensor", 0},
                 {"p_mask", 0.5},
                 {"p_mask_fill", 0},
                 {"p_mask_where", 0},
                 {"p_mask_float32", 0},
                 {"p_scores_round_trip", 0},
                 {"p_softmax_float32", 0},
                 {"p_softmax_other_dim", 0.15},  // pytorch#196468: no fusion may take it
                 {"p_attention_dropout", 0.3},
                 {"p_attention_half_product", 0},
                 {"p_attention_kv_outputs", 0},
                 {"p_attention_merge_heads", 0}}});
}

std::vector<Focus> Broad() {
  return {
      {"as_given", "whatever the campaign's policy reaches", json::object()},
      {"attention",
       "the attention fusions (fuse_attention.py's _sfdp_pattern_*): hand-written attention on one "
       "device and dtype",
       Attention()},
      {"attention_masked",
       "the masked attention fusions (BERT, DistilBert, GPT-2 forms): every attention masked, "
       "4-D, heads permuted",
       Merge({Attention(),
              {{"p_mask", 1},
               {"p_attention_4d", 0.9},
               {"p_attention_bshd", 0.5},
               {"p_mask_where_add", 0.5}}})},
      {"attention_training",
       "the training attention fusions (_sfdp_pattern_*_training): attention that requires grad, "
       "with dropout",
       Merge({Attention(),
              {{"p_train", 1},
               {"p_requires_grad", 0.9},
               {"p_attention_dropout", 0.5},
               {"p_softmax_float32", 0.3}}})},
      {"attention_half",
       "the 16-bit attention fusions: float16 and bfloat16 attention, float32 softmax, 16-bit "
       "products",
       Merge({Attention(),
              {{"w_float64", 0},
               {"w_float32", 1},
               {"w_float16", 3},
               {"w_bfloat16", 2},
               {"p_softmax_float32", 0.7},
               {"p_attention_half_product", 0.4},
               {"p_scores_round_trip", 0.4},
               {"p_attention_kv_outputs", 0.3}}})},
      {"addmm_family",
       "the addmm family's fusions and small-matmul decompositions (addmm, bias unfusing, "
       "decompose_mm/bmm/addmm): products with biases, small sizes, now and then a bias that "
       "does not expand to the product",
       Merge({Clean(),
              OnlyOps({{"w_mm", 2},
                       {"w_bmm", 2},
                       {"w_matmul", 1},
                       {"w_addmm", 3},
                       {"w_linear", 3},
                       {"w_baddbmm", 1},
                       {"w_addbmm", 1}}),
              {{"p_glue", 0.6},
               {"max_ops", 2},
               {"p_train", 0.4},
               {"p_bias_violation", 0.1},
               {"dims", {1, 2, 3, 4, 5, 7, 8, 16}}}})},
      {"casts_and_views",
       "the joint graph's cast and view eliminations (pointless_convert, pointless_view, ...): "
       "cast pairs, views and chains",
       Merge({Clean(),
              {{"p_cast", 0.6},
               {"p_cast_pair", 0.6},
               {"p_view", 0.6},
               {"p_contiguous", 0.5},
               {"p_transposed", 0.4},
               {"p_chain", 0.8},
               {"p_train", 0.3}}})},
      {"attention_classic",
       "the first attention fusions in their plain spellings (_sfdp_pattern_1 to _10: BERT and GPT "
       "forms): keys transposed, scores or q scaled by a Python number, an added mask or none, "
       "softmax in the scores' dtype (or over another dim), dropout or none",
       AttentionClassic()},
      {"deployment",
       "the CPU deployment stack's lowerings (freezing's mkl/mkldnn prepacked linears and their "
       "fused epilogues, concatenated linears, folded constants, max-autotune's C++ GEMM "
       "templates and micro-kernels): "
       "models whose products hold weights, with epilogues, inference, a knob variant on every "
       "program",
       Merge({Clean(),
              OnlyOps({{"w_linear", 4},
                       {"w_mm", 2},
                       {"w_addmm", 2},
                       {"w_matmul", 2},
                       {"w_bmm", 1},
                       {"w_baddbmm", 0.5},
                       {"w_attention", 0.5},
                       {"w_sdpa", 0.5}}),
              {{"p_module", 1},
               // self-attention whose q, k and v are projections: weights, concatenated by
               // freezing's opt-in pass, grouped by max-autotune's
               {"p_attention_4d", 1},
               {"p_attention_bshd", 1},
               {"p_attention_projection", 1},
               {"p_weight", 1},
               {"p_epilogue", 0.7},
               {"p_product_output", 0.3},
               {"p_linear_siblings", 0.3},
               {"p_residual", 0.3},
               {"p_train", 0},
               {"max_ops", 2},
               {"w_float64", 0.2},
               {"w_float32", 2},
               {"w_float16", 1},
               {"w_bfloat16", 2},
               {"variant_rate", 1},
               {"w_inductor_freezing", 2},
               {"w_inductor_max_autotune", 3},
               {"w_inductor_cpp_wrapper", 1},
               {"w_inductor_dynamic", 1},
               {"w_inductor_emulate_precision_casts", 0.5},
               {"w_inductor_freezing_dynamic", 1},
               {"w_inductor_freezing_opt_in", 1}}})},
      // The yield scheduler's arms that aim at bugs rather than rewrites (coverage steering
      // leaves them out): cheap programs, no knob variant, few ops; cuda only where devices are
      // the point (without a GPU a cuda program checks only the reference's contract).
      {"mixed_dtypes",
       "type promotion and dtype checks: operands of mixed dtypes, float64 and integer products, "
       "empty and K = 1 shapes, small programs",
       Merge({OnlyOps({{"w_mm", 2},
                       {"w_bmm", 2},
                       {"w_matmul", 2},
                       {"w_addmm", 1},
                       {"w_addmv", 1},
                       {"w_mv", 1},
                       {"w_dot", 1},
                       {"w_linear", 1},
                       {"w_baddbmm", 1},
                       {"w_addbmm", 1}}),
              {{"p_mixed_dtype", 0.9},
               {"p_cast", 0.3},
               {"p_zero_dim", 0.15},
               {"w_float64", 2},
               {"w_int8", 0.5},
               {"w_uint8", 0.3},
               {"w_int32", 0.5},
               {"w_int64", 0.5},
               {"w_bool", 0.1},
               {"p_module", 0},
               {"p_cuda", 0},
               {"p_train", 0.15},
               {"max_ops", 2},
               {"variant_rate", 0}}}),
       "", false},
      {"training",
       "the backward: programs whose inputs require grad, the gradients judged on every path",
       Merge({{{"p_train", 1},
               {"p_cuda", 0},
               {"p_requires_grad", 0.9},
               {"p_grad_violation", 0.05},
               {"max_ops", 2},
               {"variant_rate", 0}}}),
       "", false},
      {"autocast",
       "autocast regions: products under autocast(cpu, float16 or bfloat16), nested and disabled "
       "regions",
       Merge({OnlyOps({{"w_mm", 2},
                       {"w_bmm", 2},
                       {"w_matmul", 2},
                       {"w_addmm", 2},
                       {"w_linear", 2},
                       {"w_baddbmm", 1},
                       {"w_addbmm", 1},
                       {"w_sdpa", 1},
                       {"w_attention", 1}}),
              {{"p_autocast", 1}, {"p_cuda", 0}, {"max_ops", 2}, {"variant_rate", 0}}}),
       "", false},
      {"devices",
       "devices and contracts: meta and cuda operands, device moves and mismatches, shape and "
       "grad violations",
       Merge({{{"p_meta", 0.45},
               {"p_cuda", 0.3},
               {"p_move", 0.3},
               {"p_device_mismatch", 0.15},
               {"p_shape_violation", 0.15},
               {"p_grad_violation", 0.05},
               {"max_ops", 2},
               {"variant_rate", 0}}}),
       "", false},
      {"integers",
       "integer products: int8, uint8, int32 and int64 operands of one dtype (their result dtype "
       "and overflow), sizes of 1 (M, N or K = 1, which Inductor decomposes) and empty products",
       Merge({Clean(),
              OnlyOps({{"w_mm", 2},
                       {"w_bmm", 2},
                       {"w_matmul", 2},
                       {"w_mv", 1},
                       {"w_dot", 1},
                       {"w_addmm", 1},
                       {"w_addmv", 0.5},
                       {"w_baddbmm", 1},
                       {"w_addbmm", 0.5}}),
              {{"w_float64", 0.2},
               {"w_float32", 0.2},
               {"w_float16", 0},
               {"w_bfloat16", 0},
               {"w_int8", 2},
               {"w_uint8", 1},
               {"w_int32", 2},
               {"w_int64", 1},
               {"p_zero_dim", 0.05},
               {"p_train", 0},
               {"p_cast", 0.1},
               {"dims", {1, 1, 2, 3, 4, 5, 7}},
               {"max_ops", 2},
               {"variant_rate", 0}}}),
       "", false},
      {"special_values",
       "special values where a product's scalars say to ignore them: NaN, inf and -0 in operands "
       "and biases, the addmm family's beta = 0 (its input ignored), one-row and one-column "
       "products (which Inductor decomposes, adding the bias by broadcasting) and a bias wider "
       "than such a product",
       Merge({Clean(),
              OnlyOps({{"w_addmm", 3},
                       {"w_addmv", 1},
                       {"w_baddbmm", 1},
                       {"w_addbmm", 1},
                       {"w_mm", 1},
                       {"w_linear", 1}}),
              {{"p_special", 1},
               {"special_rate", 0.3},
               {"w_grid16", 0},
               {"p_beta_zero", 0.5},
               {"p_bias_violation", 0.3},
               {"p_train", 0.1},
               {"dims", {1, 1, 2, 3, 4, 5}},
               {"max_ops", 2},
               {"variant_rate", 0}}}),
       "", false},
      // Mostly training and float64, mostly in the form the CPU flash kernel takes (4-D, v's head
      // dim q's): sdpa's forward is what the attention arms' fusions write too, that kernel's
      // backward on float64 only this arm (pytorch#185539: causal or not, masked or not).
      {"sdpa",
       "scaled_dot_product_attention called as such, mostly its backward: boolean and additive "
       "masks, is_causal, grouped heads, float64 (half the programs) and 16-bit, training (most) "
       "and inference",
       Merge({Clean(),
              OnlyOps({{"w_sdpa", 1}}),
              {{"p_special", 0},
               {"p_train", 0.75},
               {"p_requires_grad", 0.9},
               {"p_mask", 0.2},
               {"p_causal", 0.8},
               {"p_v_float32", 0.1},
               {"p_attention_4d", 0.9},
               {"p_ev_equal_e", 0.9},
               {"w_float64", 4},
               {"w_float32", 2},
               {"w_float16", 1},
               {"w_bfloat16", 1},
               {"max_ops", 1},
               {"variant_rate", 0}}}),
       "", false},
  };
}

std::vector<Focus> Build() {
  std::vector<Focus> foci = Broad();
  for (Focus& f : FusionTargetFoci(Attention(), Clean())) {
    f.family = "rewrite_targets";
    foci.push_back(std::move(f));
  }
  for (Focus& f : DeploymentTargetFoci(Clean())) {
    f.family = "deployment_targets";
    foci.push_back(std::move(f));
  }
  return foci;
}

}  // namespace

const std::vector<Focus>& Foci() {
  static const std::vector<Focus> kFoci = Build();
  return kFoci;
}

std::optional<size_t> FindFocus(std::string_view name) {
  for (size_t i = 0; i < Foci().size(); ++i)
    if (Foci()[i].name == name) return i;
  return std::nullopt;
}

std::string BroadFocusNames() {
  std::string out;
  for (const Focus& f : Foci())
    if (f.target.empty()) out += (out.empty() ? "" : ", ") + f.name;
  return out;
}

GenPolicy Focused(const GenPolicy& base, size_t index) {
  const Focus& f = Foci().at(index);
  if (f.overlay.empty()) return base;
  json j = PolicyToJson(base);
  j.update(f.overlay);
  Result<GenPolicy> p = PolicyFromJson(j);
  // The overlays are constants checked by focus_test: a failure here is a programming error.
  if (!p.ok()) throw std::logic_error("focus " + f.name + ": " + p.error());
  return p.value();
}

}  // namespace mmdiff
