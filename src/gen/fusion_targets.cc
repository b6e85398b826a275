// The target foci: one per attention fusion variant, each writing that variant's form.
#include "src/gen/fusion_targets.h"

#include <array>
#include <regex>
#include <stdexcept>
#include <string>

#include "src/gen/focus_overlay.h"

namespace mmdiff {

namespace {

using nlohmann::json;

// The attention fusions torch 2.15.0 or 2.11.0 registers (fuse_attention.py's _get_sfdp_patterns),
// as `mmdiff rewrites` names them; a steered campaign aims only at those of the installed torch
// (Steering::SetInstalledFusions). Each name is _sfdp_pattern_N, then _half (operands traced in
// float16), _mask_fp32 (a float32 mask), _bs1 (batch 1), then _training or _inference. Left out:
// the 13 that another fusion shadows: compiled as fuse_attention.py writes them, on its own
// example inputs, another fires first (3, 11 and 12 inference: 1, 11 and 7; 16 bs1: 5 and 6; 28,
// whose strided operands change nothing: 2 and 4; measured on 2.15.0, docs/results.md), and the 8
// _half forms of 29 and 30, which fold back sdpa's math form: on a CPU that form casts 16-bit
// operands to float32 first (the float32 fusion's graph), and mmdiff writes no _safe_softmax by
// hand.
constexpr std::array kNames = {
    "_sfdp_pattern_1_inference",
    "_sfdp_pattern_1_training",
    "_sfdp_pattern_1_half_inference",
    "_sfdp_pattern_1_half_training",
    "_sfdp_pattern_2_inference",
    "_sfdp_pattern_2_training",
    "_sfdp_pattern_2_half_inference",
    "_sfdp_pattern_2_half_training",
    "_sfdp_pattern_3_training",
    "_sfdp_pattern_3_half_training",
    "_sfdp_pattern_4_training",
    "_sfdp_pattern_4_half_training",
    "_sfdp_pattern_5_inference",
    "_sfdp_pattern_5_training",
    "_sfdp_pattern_5_half_inference",
    "_sfdp_pattern_5_half_training",
    "_sfdp_pattern_6_training",
    "_sfdp_pattern_6_half_training",
    "_sfdp_pattern_7_inference",
    "_sfdp_pattern_7_training",
    "_sfdp_pattern_7_half_inference",
    "_sfdp_pattern_7_half_training",
    "_sfdp_pattern_8_training",
    "_sfdp_pattern_8_half_training",
    "_sfdp_pattern_9_inference",
    "_sfdp_pattern_9_training",
    "_sfdp_pattern_9_half_inference",
    "_sfdp_pattern_9_half_training",
    "_sfdp_pattern_10_training",
    "_sfdp_pattern_10_half_training",
    "_sfdp_pattern_11_inference",
    "_sfdp_pattern_11_training",
    "_sfdp_pattern_11_half_training",
    "_sfdp_pattern_12_training",
    "_sfdp_pattern_12_half_training",
    "_sfdp_pattern_13_inference",
    "_sfdp_pattern_13_half_inference",
    "_sfdp_pattern_14_inference",
    "_sfdp_pattern_14_training",
    "_sfdp_pattern_14_half_inference",
    "_sfdp_pattern_14_half_training",
    "_sfdp_pattern_15_inference",
    "_sfdp_pattern_15_half_inference",
    "_sfdp_pattern_16_training",
    "_sfdp_pattern_16_half_training",
    "_sfdp_pattern_16_half_mask_fp32_inference",
    "_sfdp_pattern_16_half_mask_fp32_training",
    "_sfdp_pattern_16_half_mask_fp32_bs1_inference",
    "_sfdp_pattern_16_half_mask_fp32_bs1_training",
    "_sfdp_pattern_18_inference",
    "_sfdp_pattern_18_half_inference",
    "_sfdp_pattern_18_bs1_inference",
    "_sfdp_pattern_18_half_bs1_inference",
    "_sfdp_pattern_19_inference",
    "_sfdp_pattern_19_half_inference",
    "_sfdp_pattern_20_inference",
    "_sfdp_pattern_20_half_inference",
    "_sfdp_pattern_21_inference",
    "_sfdp_pattern_21_half_inference",
    "_sfdp_pattern_21_bs1_inference",
    "_sfdp_pattern_21_half_bs1_inference",
    "_sfdp_pattern_22_inference",
    "_sfdp_pattern_22_half_inference",
    "_sfdp_pattern_22_bs1_inference",
    "_sfdp_pattern_22_half_bs1_inference",
    "_sfdp_pattern_23_inference",
    "_sfdp_pattern_23_half_inference",
    "_sfdp_pattern_23_bs1_inference",
    "_sfdp_pattern_23_half_bs1_inference",
    "_sfdp_pattern_24_inference",
    "_sfdp_pattern_24_half_inference",
    "_sfdp_pattern_25_training",
    "_sfdp_pattern_25_half_inference",
    "_sfdp_pattern_25_half_training",
    "_sfdp_pattern_25_bs1_training",
    "_sfdp_pattern_25_half_bs1_inference",
    "_sfdp_pattern_25_half_bs1_training",
    "_sfdp_pattern_26_training",
    "_sfdp_pattern_26_half_inference",
    "_sfdp_pattern_26_half_training",
    "_sfdp_pattern_26_bs1_training",
    "_sfdp_pattern_26_half_bs1_inference",
    "_sfdp_pattern_26_half_bs1_training",
    "_sfdp_pattern_27_training",
    "_sfdp_pattern_27_half_inference",
    "_sfdp_pattern_27_half_training",
    "_sfdp_pattern_27_bs1_training",
    "_sfdp_pattern_27_half_bs1_inference",
    "_sfdp_pattern_27_half_bs1_training",
    "_sfdp_pattern_29_inference",
    "_sfdp_pattern_29_training",
    "_sfdp_pattern_29_bs1_inference",
    "_sfdp_pattern_29_bs1_training",
    "_sfdp_pattern_30_inference",
    "_sfdp_pattern_30_training",
    "_sfdp_pattern_30_bs1_inference",
    "_sfdp_pattern_30_bs1_training",
    // 2.11.0's alone: the training forms of 13 and 21 to 24 (2.15.0 registers these patterns for
    // inference only). 2.11.0's other training forms of 15 and 17 to 23 fire on nothing, not even
    // their own pattern functions; its 11_half_inference is shadowed by 7_half_inference.
    "_sfdp_pattern_13_training",
    "_sfdp_pattern_13_half_training",
    "_sfdp_pattern_21_training",
    "_sfdp_pattern_21_bs1_training",
    "_sfdp_pattern_22_training",
    "_sfdp_pattern_22_bs1_training",
    "_sfdp_pattern_23_training",
    "_sfdp_pattern_23_bs1_training",
    "_sfdp_pattern_24_training",
    "_sfdp_pattern_24_half_training",
};

// Every spelling choice of hand-written attention pinned to the plainest: 4-D, keys transposed,
// scores divided by a Python number, no mask, dropout or cast, softmax over the last dim; one
// attention per program, on float32. No dim is 1: Inductor's decompositions turn a product over
// one element, or of one row by one column, into a pointwise multiplication before the fusions
// look (decomposition.py's bmm), and no fusion then matches.
json Plain() {
  return {{"dims", {2, 3, 4, 5, 7, 8, 15, 16, 17, 31, 33}},
          {"p_attention_4d", 1},
          {"p_attention_bshd", 0},
          {"p_attention_projection", 0},
          {"p_attention_bmm", 0},
          {"p_key_permute", 0},
          {"p_attention_unscaled", 0},
          {"p_scale_query", 0},
          {"p_scale_div", 1},
          {"p_scale_tensor", 0},
          {"p_mask", 0},
          {"p_mask_fill", 0},
          {"p_mask_where", 0},
          {"p_mask_where_add", 0},
          {"p_mask_float32", 0},
          {"p_causal_tril", 0},
          {"p_attention_dropout", 0},
          {"p_softmax_other_dim", 0},
          {"p_softmax_float32", 0},
          {"p_scores_round_trip", 0},
          {"p_cast_back_first", 0},
          {"p_attention_half_product", 0},
          {"p_attention_kv_outputs", 0},
          {"p_attention_merge_heads", 0},
          {"p_view", 0},
          {"p_transposed", 0},
          {"p_cast", 0},
          {"p_chain", 0},
          {"w_float64", 0},
          {"w_float32", 1},
          {"w_float16", 0},
          {"w_bfloat16", 0}};
}

const json kBshd = {{"p_attention_bshd", 1}};     // operands (B, S, H, E), permuted
const json kKeyPermute = {{"p_key_permute", 1}};  // k.permute(0, 1, 3, 2)
const json kMul = {{"p_scale_div", 0}};           // scores times a Python number
const json kUnscaled = {{"p_attention_unscaled", 1}};
const json kDropout = {{"p_attention_dropout", 1}};
const json kMask = {{"p_mask", 1}};  // added, in the scores' dtype
// Filled with -inf, as the patterns write it (seen on 2.15.0: the 20_half_inference target fired in
// the 3 of 8 programs that drew -inf, and no other).
const json kPadding = {
    {"p_mask", 1}, {"p_mask_fill", 1}, {"p_mask_padding", 1}, {"p_mask_fill_inf", 1}};
const json kKv = {{"p_attention_kv_outputs", 1}};  // k and v returned too
// x.float().softmax(-1).type_as(q): in float32 and cast back.
const json kSoftmax32 = {{"p_softmax_float32", 1}, {"p_softmax_cast_first", 1}, {"p_cast_back", 1}};

json Merge(std::initializer_list<json> parts) { return MergeOverlays(parts); }

// Pattern N's form over Plain(), for operands of the variant's dtype (`half`). Patterns 7 to 10
// cast to float16 before the last product: a float32 softmax cast back where the operands are
// float16, a float32 one cast to float16 with v where they are float32.
json Form(int n, bool half) {
  const json half_product =
      half ? kSoftmax32 : json{{"p_attention_half_product", 1}, {"p_half_product_float16", 1}};
  switch (n) {
    case 1:
      return json::object();
    case 2:
      return kMul;
    case 3:
      return kDropout;
    case 4:
      return Merge({kMul, kDropout});
    case 5:
      return kMask;
    case 6:
      return Merge({kMask, kDropout});
    case 7:
      return Merge({kBshd, kDropout, half_product});
    case 8:
      return Merge({kBshd, half_product});
    case 9:
      return Merge({kBshd, kDropout, half_product, {{"p_scale_query", 1}}});
    case 10:
      return Merge({kBshd, half_product, {{"p_scale_query", 1}}});
    case 11:
      return kBshd;
    case 12:
      return Merge({kBshd, kDropout});
    case 13:  // 3-D torch.bmm, unscaled
      return Merge({kUnscaled, kDropout, {{"p_attention_4d", 0}, {"p_attention_bmm", 1}}});
    case 14:
      return Merge({kBshd, kMask});
    case 15:
      return Merge({kBshd, kPadding});
    case 16:
      return Merge({kBshd, kMask, kDropout, {{"p_cast_back", 1}}});
    case 18:  // GPT-Neo: a 0-d tensor scale, a causal mask by torch.where
      return Merge({kBshd,
                    kKeyPermute,
                    kDropout,
                    kKv,
                    {{"p_scale_tensor", 1}, {"p_mask", 1}, {"p_mask_where", 1}}});
    case 19:  // GPT-2: the same where, then an added float32 mask
      return Merge({kKeyPermute,
                    kDropout,
                    {{"p_scale_tensor", 1},
                     {"p_mask", 1},
                     {"p_mask_where", 1},
                     {"p_mask_where_add", 1},
                     {"p_mask_float32", 1},
                     {"p_cast_back", 1}}});
    case 20:
      return Merge({kBshd, kPadding, kDropout, {{"p_scale_query", 1}}});
    case 21:
    case 22:  // T5: a float32 mask added, the scores' round trip, a float32 softmax
      return Merge({kBshd,
                    kKeyPermute,
                    kUnscaled,
                    kMask,
                    kSoftmax32,
                    n == 22 ? kKv : json::object(),
                    {{"p_mask_float32", 1}, {"p_scores_round_trip", 1}}});
    case 23:
      return Merge({kBshd, kKeyPermute, kUnscaled, kSoftmax32, kKv, {{"p_scores_round_trip", 1}}});
    case 24:  // MBart: heads merged around torch.bmm, a float32 mask, unscaled
      return {{"p_attention_merged_bmm", 1}, {"p_mask", 1}, {"p_mask_float32", 1}};
    case 25:
    case 26:
    case 27:  // a float32 softmax cast back before its dropout
      return Merge({kBshd,
                    kKeyPermute,
                    kUnscaled,
                    kSoftmax32,
                    kDropout,
                    n == 27 ? json::object() : kMask,
                    n == 25 ? json::object() : kKv,
                    {{"p_cast_back_first", 1}}});
    case 29:
    case 30:  // sdpa's own decomposition, folded back: sdpa on permuted operands, strided so
              // that sdpa's fused CPU kernel declines them and its math form is traced
      return Merge({kBshd,
                    {{"p_transposed", 1},
                     {"w_attention", 0},
                     {"w_sdpa", 1},
                     {"p_mask", n == 29 ? 1 : 0},
                     {"p_mask_bool", 0},
                     {"p_causal", 0},
                     {"p_gqa", 0}}});
    default:
      throw std::logic_error("no form for _sfdp_pattern_" + std::to_string(n));
  }
}

bool Permuted(int n) { return n >= 7 && n != 13 && n != 19 && n != 28; }

// The overlay of one named variant, over `attention` (the attention focus's overlay).
json Overlay(const std::string& name, const json& attention) {
  static const std::regex kName(
      R"(_sfdp_pattern_(\d+)(_half)?(_mask_fp32)?(_bs1)?_(training|inference))");
  std::smatch m;
  if (!std::regex_match(name, m, kName)) throw std::logic_error("not a fusion's name: " + name);
  const int n = std::stoi(m[1].str());
  const bool half = m[2].matched, mask32 = m[3].matched, bs1 = m[4].matched;
  const bool training = m[5].str() == "training";
  json j = Merge({attention, Plain(), Form(n, half)});
  if (half) {  // 7 to 10 and 24 name float16 in their casts; the others match bfloat16 as well
    const bool float16 = (n >= 7 && n <= 10) || n == 24;
    j.update({{"w_float32", 0}, {"w_float16", 2}, {"w_bfloat16", float16 ? 0 : 1}});
  }
  if (mask32) j.update({{"p_mask_float32", 1}, {"p_cast_back", 1}});
  // B = 1 for a _bs1 form, else 2 or 3 where the operands are permuted, and there H 2 or more: a
  // batch or a head of one makes the permutes views, the _bs1 form. Any where they are not.
  const int lo = bs1 ? 1 : Permuted(n) ? 2 : 1;
  j.update({{"attention_batch_min", lo},
            {"attention_batch_max", bs1 ? 1 : 3},
            {"attention_heads_min", bs1 ? 1 : lo}});
  // Training: q, k and v require grad (the fusions are traced so), a dropout zeroes at random.
  // Inference: no grad, and a dropout keeps every element.
  j.update({{"p_train", training ? 1 : 0},
            {"p_requires_grad", training ? 1 : 0},
            {"p_dropout_random", training ? 1 : 0}});
  return j;
}

// `clean` with only the ops of `ops` drawn, one program at a time, and `keys` over it.
json CleanOps(const json& clean, const json& ops, const json& keys) {
  return MergeOverlays(
      {clean, OnlyOps(ops), {{"p_chain", 0}, {"p_cast", 0}, {"p_train", 0}}, keys});
}

// post_grad.addmm: torch.mm(a, b) + bias (a row or a full tensor, the product's dtype), which
// Inductor fuses into addmm on a CPU; no dim of 1, which decomposes the product first. The bias is
// glue, added before the next op: two or more ops in two thirds of the programs.
json AddmmFusion(const json& clean) {
  return CleanOps(clean, {{"w_mm", 1}},
                  {{"max_ops", 3},
                   {"p_glue", 1},
                   {"p_glue_scale", 0},
                   {"p_view", 0},
                   {"p_transposed", 0},
                   {"dims", {2, 3, 4, 5, 7, 8, 15, 16, 17, 31, 33}}});
}

// joint_graph.pointless_view: x.view(-1) or x.reshape(-1) of a 1-D x, an mv's or a dot's vector
// (Dynamo drops a view to the sizes the tensor has, but not one spelled with -1).
json PointlessView(const json& clean) {
  return CleanOps(clean, {{"w_mv", 1}, {"w_dot", 1}},
                  {{"max_ops", 1}, {"p_view", 1}, {"p_size_minus_one", 1}});
}

}  // namespace

std::vector<Focus> FusionTargetFoci(const json& attention, const json& clean) {
  std::vector<Focus> out;
  for (const char* target : kNames) {
    const std::string t = target;
    // "_sfdp_pattern_N_..." gives "target_sfdp_pattern_N_...".
    out.push_back({"target" + t, "the form of " + t, Overlay(t, attention), t});
  }
  out.push_back({"target_post_grad.addmm", "the form of post_grad.addmm: torch.mm(a, b) + bias",
                 AddmmFusion(clean), "post_grad.addmm"});
  out.push_back({"target_joint_graph.pointless_view",
                 "the form of joint_graph.pointless_view: x.view(-1) of a 1-D x",
                 PointlessView(clean), "joint_graph.pointless_view"});
  return out;
}

}  // namespace mmdiff
