// GenPolicy JSON.
#include "src/gen/policy.h"

#include <functional>
#include <map>
#include <string>

#include "src/gen/generator.h"
#include "src/support/format_version.h"
#include "src/support/json_guard.h"

namespace mmdiff {

namespace {

// One table drives both directions so a new field cannot be forgotten in one of them.
struct Field {
  std::function<nlohmann::json(const GenPolicy&)> get;
  std::function<Status(GenPolicy&, const nlohmann::json&)> set;
};

Field Prob(double GenPolicy::* m, const std::string& key) {
  return {[m](const GenPolicy& p) { return nlohmann::json(p.*m); },
          [m, key](GenPolicy& p, const nlohmann::json& v) {
            if (!v.is_number() || v.get<double>() < 0 || v.get<double>() > 1)
              return Status::Error("policy." + key + " must be a probability in [0, 1]");
            p.*m = v.get<double>();
            return Status::Ok();
          }};
}

Field Weight(double GenPolicy::* m, const std::string& key) {
  return {[m](const GenPolicy& p) { return nlohmann::json(p.*m); },
          [m, key](GenPolicy& p, const nlohmann::json& v) {
            if (!v.is_number() || v.get<double>() < 0)
              return Status::Error("policy." + key + " must be a non-negative weight");
            p.*m = v.get<double>();
            return Status::Ok();
          }};
}

Field Count(int GenPolicy::* m, const std::string& key, int lo, int hi) {
  return {[m](const GenPolicy& p) { return nlohmann::json(p.*m); },
          [m, key, lo, hi](GenPolicy& p, const nlohmann::json& v) {
            // Compared as JSON numbers, not narrowed to int first (2^32 + 5 is not 5).
            if (!v.is_number_integer() || v < lo || v > hi)
              return Status::Error("policy." + key + " must be an integer in [" +
                                   std::to_string(lo) + ", " + std::to_string(hi) + "]");
            p.*m = v.get<int>();
            return Status::Ok();
          }};
}

// Every key: the policy's own, and the op weights, one per entry of the generator's op table.
std::map<std::string, Field> AllFields() {
  std::map<std::string, Field> fields = {
      {"max_ops", Count(&GenPolicy::max_ops, "max_ops", 1, 12)},
      {"min_ops", Count(&GenPolicy::min_ops, "min_ops", 1, 12)},
      {"p_chain", Prob(&GenPolicy::p_chain, "p_chain")},
      {"p_mixed_dtype", Prob(&GenPolicy::p_mixed_dtype, "p_mixed_dtype")},
      {"p_cast", Prob(&GenPolicy::p_cast, "p_cast")},
      {"p_cast_method", Prob(&GenPolicy::p_cast_method, "p_cast_method")},
      {"p_cast_pair", Prob(&GenPolicy::p_cast_pair, "p_cast_pair")},
      {"p_shape_violation", Prob(&GenPolicy::p_shape_violation, "p_shape_violation")},
      {"p_bias_violation", Prob(&GenPolicy::p_bias_violation, "p_bias_violation")},
      {"p_transposed", Prob(&GenPolicy::p_transposed, "p_transposed")},
      {"p_view", Prob(&GenPolicy::p_view, "p_view")},
      {"p_contiguous", Prob(&GenPolicy::p_contiguous, "p_contiguous")},
      {"p_negative_dim", Prob(&GenPolicy::p_negative_dim, "p_negative_dim")},
      {"p_size_minus_one", Prob(&GenPolicy::p_size_minus_one, "p_size_minus_one")},
      {"p_glue", Prob(&GenPolicy::p_glue, "p_glue")},
      {"p_glue_scale", Prob(&GenPolicy::p_glue_scale, "p_glue_scale")},
      {"p_glue_residual", Prob(&GenPolicy::p_glue_residual, "p_glue_residual")},
      {"max_matmul_rank", Count(&GenPolicy::max_matmul_rank, "max_matmul_rank", 1, 4)},
      {"min_matmul_rank", Count(&GenPolicy::min_matmul_rank, "min_matmul_rank", 1, 4)},
      {"p_broadcast_batch", Prob(&GenPolicy::p_broadcast_batch, "p_broadcast_batch")},
      {"p_linear_bias", Prob(&GenPolicy::p_linear_bias, "p_linear_bias")},
      {"min_linear_rank", Count(&GenPolicy::min_linear_rank, "min_linear_rank", 1, 3)},
      {"max_linear_rank", Count(&GenPolicy::max_linear_rank, "max_linear_rank", 1, 3)},
      {"min_batch", Count(&GenPolicy::min_batch, "min_batch", 1, 4)},
      {"p_meta", Prob(&GenPolicy::p_meta, "p_meta")},
      {"p_cuda", Prob(&GenPolicy::p_cuda, "p_cuda")},
      {"p_device_mismatch", Prob(&GenPolicy::p_device_mismatch, "p_device_mismatch")},
      {"p_move", Prob(&GenPolicy::p_move, "p_move")},
      {"p_zero_dim", Prob(&GenPolicy::p_zero_dim, "p_zero_dim")},
      {"p_large_k", Prob(&GenPolicy::p_large_k, "p_large_k")},
      {"p_train", Prob(&GenPolicy::p_train, "p_train")},
      {"p_requires_grad", Prob(&GenPolicy::p_requires_grad, "p_requires_grad")},
      {"p_grad_violation", Prob(&GenPolicy::p_grad_violation, "p_grad_violation")},
      {"p_mask_grad", Prob(&GenPolicy::p_mask_grad, "p_mask_grad")},
      {"p_autocast", Prob(&GenPolicy::p_autocast, "p_autocast")},
      {"p_autocast_bfloat16", Prob(&GenPolicy::p_autocast_bfloat16, "p_autocast_bfloat16")},
      {"p_autocast_nested", Prob(&GenPolicy::p_autocast_nested, "p_autocast_nested")},
      {"p_autocast_disabled", Prob(&GenPolicy::p_autocast_disabled, "p_autocast_disabled")},
      {"p_mask", Prob(&GenPolicy::p_mask, "p_mask")},
      {"p_mask_float32", Prob(&GenPolicy::p_mask_float32, "p_mask_float32")},
      {"p_mask_bool", Prob(&GenPolicy::p_mask_bool, "p_mask_bool")},
      {"p_causal", Prob(&GenPolicy::p_causal, "p_causal")},
      {"p_gqa", Prob(&GenPolicy::p_gqa, "p_gqa")},
      {"p_softmax_float32", Prob(&GenPolicy::p_softmax_float32, "p_softmax_float32")},
      {"p_cast_back", Prob(&GenPolicy::p_cast_back, "p_cast_back")},
      {"p_attention_4d", Prob(&GenPolicy::p_attention_4d, "p_attention_4d")},
      {"p_ev_equal_e", Prob(&GenPolicy::p_ev_equal_e, "p_ev_equal_e")},
      {"p_v_float32", Prob(&GenPolicy::p_v_float32, "p_v_float32")},
      {"p_sdpa_scale", Prob(&GenPolicy::p_sdpa_scale, "p_sdpa_scale")},
      {"p_key_permute", Prob(&GenPolicy::p_key_permute, "p_key_permute")},
      {"p_scale_div", Prob(&GenPolicy::p_scale_div, "p_scale_div")},
      {"p_softmax_other_dim", Prob(&GenPolicy::p_softmax_other_dim, "p_softmax_other_dim")},
      {"p_attention_unscaled", Prob(&GenPolicy::p_attention_unscaled, "p_attention_unscaled")},
      {"p_scale_query", Prob(&GenPolicy::p_scale_query, "p_scale_query")},
      {"p_attention_bshd", Prob(&GenPolicy::p_attention_bshd, "p_attention_bshd")},
      {"p_attention_projection",
       Prob(&GenPolicy::p_attention_projection, "p_attention_projection")},
      {"p_attention_bmm", Prob(&GenPolicy::p_attention_bmm, "p_attention_bmm")},
      {"p_softmax_cast_first", Prob(&GenPolicy::p_softmax_cast_first, "p_softmax_cast_first")},
      {"p_attention_dropout", Prob(&GenPolicy::p_attention_dropout, "p_attention_dropout")},
      {"p_dropout_random", Prob(&GenPolicy::p_dropout_random, "p_dropout_random")},
      {"p_attention_half_product",
       Prob(&GenPolicy::p_attention_half_product, "p_attention_half_product")},
      {"p_half_product_float16",
       Prob(&GenPolicy::p_half_product_float16, "p_half_product_float16")},
      {"p_mask_fill", Prob(&GenPolicy::p_mask_fill, "p_mask_fill")},
      {"p_mask_fill_inf", Prob(&GenPolicy::p_mask_fill_inf, "p_mask_fill_inf")},
      {"p_mask_where", Prob(&GenPolicy::p_mask_where, "p_mask_where")},
      {"p_mask_padding", Prob(&GenPolicy::p_mask_padding, "p_mask_padding")},
      {"p_causal_tril", Prob(&GenPolicy::p_causal_tril, "p_causal_tril")},
      {"p_scale_tensor", Prob(&GenPolicy::p_scale_tensor, "p_scale_tensor")},
      {"p_mask_where_add", Prob(&GenPolicy::p_mask_where_add, "p_mask_where_add")},
      {"p_scores_round_trip", Prob(&GenPolicy::p_scores_round_trip, "p_scores_round_trip")},
      {"p_cast_back_first", Prob(&GenPolicy::p_cast_back_first, "p_cast_back_first")},
      {"p_attention_kv_outputs",
       Prob(&GenPolicy::p_attention_kv_outputs, "p_attention_kv_outputs")},
      {"p_attention_merge_heads",
       Prob(&GenPolicy::p_attention_merge_heads, "p_attention_merge_heads")},
      {"p_attention_merged_bmm",
       Prob(&GenPolicy::p_attention_merged_bmm, "p_attention_merged_bmm")},
      {"attention_batch_min", Count(&GenPolicy::attention_batch_min, "attention_batch_min", 1, 4)},
      {"attention_batch_max", Count(&GenPolicy::attention_batch_max, "attention_batch_max", 1, 4)},
      {"attention_heads_min", Count(&GenPolicy::attention_heads_min, "attention_heads_min", 1, 4)},
      {"attention_heads_max", Count(&GenPolicy::attention_heads_max, "attention_heads_max", 1, 4)},
      {"p_special", Prob(&GenPolicy::p_special, "p_special")},
      {"special_rate", Prob(&GenPolicy::special_rate, "special_rate")},
      {"p_beta_zero", Prob(&GenPolicy::p_beta_zero, "p_beta_zero")},
      {"inputs_per_program", Count(&GenPolicy::inputs_per_program, "inputs_per_program", 1, 1024)},
      {"aoti_rate", Prob(&GenPolicy::aoti_rate, "aoti_rate")},
      {"variant_rate", Prob(&GenPolicy::variant_rate, "variant_rate")},
      {"p_module", Prob(&GenPolicy::p_module, "p_module")},
      {"p_weight", Prob(&GenPolicy::p_weight, "p_weight")},
      {"p_buffer", Prob(&GenPolicy::p_buffer, "p_buffer")},
      {"p_epilogue", Prob(&GenPolicy::p_epilogue, "p_epilogue")},
      {"p_product_output", Prob(&GenPolicy::p_product_output, "p_product_output")},
      {"p_linear_siblings", Prob(&GenPolicy::p_linear_siblings, "p_linear_siblings")},
      {"p_two_siblings", Prob(&GenPolicy::p_two_siblings, "p_two_siblings")},
      {"p_siblings_equal", Prob(&GenPolicy::p_siblings_equal, "p_siblings_equal")},
      {"p_residual", Prob(&GenPolicy::p_residual, "p_residual")},
      {"p_residual_input", Prob(&GenPolicy::p_residual_input, "p_residual_input")},
      {"w_relu", Weight(&GenPolicy::w_relu, "w_relu")},
      {"w_gelu", Weight(&GenPolicy::w_gelu, "w_gelu")},
      {"w_gelu_tanh", Weight(&GenPolicy::w_gelu_tanh, "w_gelu_tanh")},
      {"w_silu", Weight(&GenPolicy::w_silu, "w_silu")},
      {"w_sigmoid", Weight(&GenPolicy::w_sigmoid, "w_sigmoid")},
      {"w_tanh", Weight(&GenPolicy::w_tanh, "w_tanh")},
      {"w_clamp", Weight(&GenPolicy::w_clamp, "w_clamp")},
      {"p_mutate_float", Prob(&GenPolicy::p_mutate_float, "p_mutate_float")},
      {"w_int8", Weight(&GenPolicy::w_int8, "w_int8")},
      {"w_uint8", Weight(&GenPolicy::w_uint8, "w_uint8")},
      {"w_int32", Weight(&GenPolicy::w_int32, "w_int32")},
      {"w_int64", Weight(&GenPolicy::w_int64, "w_int64")},
      {"w_bool", Weight(&GenPolicy::w_bool, "w_bool")},
      {"w_grid16", Weight(&GenPolicy::w_grid16, "w_grid16")},
      {"w_exact", Weight(&GenPolicy::w_exact, "w_exact")},
      {"w_uniform", Weight(&GenPolicy::w_uniform, "w_uniform")},
      {"w_normal", Weight(&GenPolicy::w_normal, "w_normal")},
      {"w_float64", Weight(&GenPolicy::w_float64, "w_float64")},
      {"w_float32", Weight(&GenPolicy::w_float32, "w_float32")},
      {"w_float16", Weight(&GenPolicy::w_float16, "w_float16")},
      {"w_bfloat16", Weight(&GenPolicy::w_bfloat16, "w_bfloat16")},
      {"swarm",
       {[](const GenPolicy& p) { return nlohmann::json(p.swarm); },
        [](GenPolicy& p, const nlohmann::json& v) {
          if (!v.is_boolean()) return Status::Error("policy.swarm must be true or false");
          p.swarm = v.get<bool>();
          return Status::Ok();
        }}},
      {"dims",
       {[](const GenPolicy& p) { return nlohmann::json(p.dims); },
        [](GenPolicy& p, const nlohmann::json& v) {
          if (!v.is_array() || v.empty())
            return Status::Error("policy.dims must be a non-empty array");
          std::vector<int64_t> dims;
          for (const auto& d : v) {
            if (!d.is_number_integer() || d.get<int64_t>() < 0 || d.get<int64_t>() > 4096)
              return Status::Error("policy.dims entries must be integers in [0, 4096]");
            dims.push_back(d.get<int64_t>());
          }
          p.dims = dims;
          return Status::Ok();
        }}},
  };
  for (const GenOp& op : GenOps())
    fields.emplace(std::string(op.key), Weight(op.weight, std::string(op.key)));
  for (const VariantWeight& v : VariantWeights())
    fields.emplace(std::string(v.key), Weight(v.weight, std::string(v.key)));
  return fields;
}

const std::map<std::string, Field>& Fields() {
  static const std::map<std::string, Field> kFields = AllFields();
  return kFields;
}

}  // namespace

const std::vector<VariantWeight>& VariantWeights() {
  static const std::vector<VariantWeight> kWeights = {
      {"w_inductor_freezing", &GenPolicy::w_inductor_freezing},
      {"w_inductor_max_autotune", &GenPolicy::w_inductor_max_autotune},
      {"w_inductor_cpp_wrapper", &GenPolicy::w_inductor_cpp_wrapper},
      {"w_inductor_dynamic", &GenPolicy::w_inductor_dynamic},
      {"w_inductor_emulate_precision_casts", &GenPolicy::w_inductor_emulate_precision_casts},
      {"w_inductor_fallback_random", &GenPolicy::w_inductor_fallback_random},
      {"w_inductor_freezing_dynamic", &GenPolicy::w_inductor_freezing_dynamic},
      {"w_inductor_freezing_opt_in", &GenPolicy::w_inductor_freezing_opt_in},
  };
  return kWeights;
}

double VariantWeightOf(const GenPolicy& p, std::string_view path, double unweighed) {
  for (const VariantWeight& v : VariantWeights())
    if (v.key.substr(2) == path) return p.*v.weight;
  return unweighed;
}

nlohmann::json PolicyToJson(const GenPolicy& p) {
  nlohmann::json j = {{"format", "mmdiff.policy"}, {"version", 1}};
  for (const auto& [key, f] : Fields()) j[key] = f.get(p);
  return j;
}

namespace {
Result<GenPolicy> PolicyFromJsonUnguarded(const nlohmann::json& j) {
  if (!j.is_object()) return Status::Error("a policy must be a JSON object");
  // Both optional (a hand-written policy may leave them out); when present, they are this format.
  if (j.contains("format") && j["format"] != "mmdiff.policy")
    return Status::Error("not a policy: \"format\" is " + j["format"].dump() +
                         ", not \"mmdiff.policy\"");
  if (j.contains("version"))
    if (auto v = ReadFormatVersion(j, "policy", 1, 1); !v.ok()) return v.status();
  GenPolicy p;
  for (const auto& [key, value] : j.items()) {
    if (key == "format" || key == "version") continue;
    auto it = Fields().find(key);
    if (it == Fields().end()) return Status::Error("unknown policy field \"" + key + "\"");
    Status s = it->second.set(p, value);
    if (!s.ok()) return s;
  }
  double ops = 0;
  for (const GenOp& op : GenOps()) ops += p.*op.weight;
  if (ops <= 0) return Status::Error("policy: all op weights are 0");
  if (p.p_meta + p.p_cuda > 1) return Status::Error("policy: p_meta + p_cuda must not exceed 1");
  if (p.w_float64 + p.w_float32 + p.w_float16 + p.w_bfloat16 <= 0)
    return Status::Error("policy: all floating dtype weights are 0");
  if (p.w_grid16 + p.w_exact + p.w_uniform + p.w_normal <= 0)
    return Status::Error("policy: all value class weights are 0");
  return p;
}
}  // namespace

Result<GenPolicy> PolicyFromJson(const nlohmann::json& j) {
  return GuardJson("policy", [&] { return PolicyFromJsonUnguarded(j); });
}

}  // namespace mmdiff
