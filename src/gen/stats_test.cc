// Tests for generation statistics: counts are per program and cover what the generator makes.
#include "src/gen/stats.h"

#include <gtest/gtest.h>

#include "src/ir/dtype.h"
#include "src/ir/op.h"

namespace mmdiff {
namespace {

TEST(GenStats, EveryOpAndFloatDtypeAppearsAndCountsArePerProgram) {
  GenStats s = CollectStats(GenPolicy{}, 1, 2000);
  EXPECT_EQ(s.programs, 2000);
  for (OpKind k : AllOpKinds())
    EXPECT_GT(s.programs_with["op"][std::string(GetOpSpec(k).name)], 0) << GetOpSpec(k).name;
  for (const char* d : {"float64", "float32", "float16", "bfloat16"})
    EXPECT_GT(s.programs_with["dtype"][d], 0) << d;
  for (const auto& [category, features] : s.programs_with)
    for (const auto& [feature, count] : features)
      EXPECT_LE(count, s.programs) << category << "/" << feature;
  EXPECT_GT(s.programs_with["program"]["mixed_dtype_operands"], 100);
  EXPECT_GT(s.programs_with["layout"]["transposed"], 0);
  EXPECT_GT(s.programs_with["layout"]["k_1"], 0);
}

TEST(GenStats, TenThousandDefaultProgramsCoverEveryListedFeature) {
  // Acceptance of the generator: every op, dtype, device, layout feature and value class appears.
  GenStats s = CollectStats(GenPolicy{}, 1, 10000);
  auto& w = s.programs_with;
  for (OpKind k : AllOpKinds())
    EXPECT_GT(w["op"][std::string(GetOpSpec(k).name)], 0) << GetOpSpec(k).name;
  for (DType d : AllDTypes()) EXPECT_GT(w["dtype"][std::string(DTypeName(d))], 0) << DTypeName(d);
  for (const char* d : {"cpu", "meta", "cuda", "move_to_cpu", "move_to_meta", "move_to_cuda"})
    EXPECT_GT(w["device"][d], 0) << d;
  for (const char* f : {"contiguous", "transposed", "non_contiguous_slice", "strided_slice",
                        "stride_0_expand", "permuted_view", "contiguous_copy", "size_0_dim", "k_0",
                        "k_1", "k_large", "awkward_size", "broadcast_batch", "batched_operand"})
    EXPECT_GT(w["layout"][f], 0) << f;
  for (const char* v : {"grid16", "exact", "uniform", "normal", "special_values"})
    EXPECT_GT(w["value_class"][v], 0) << v;
  for (const char* a :
       {"bool_mask", "additive_mask", "is_causal", "scale", "enable_gqa", "softmax_dtype_float32",
        "softmax_same_dtype",
        // hand-written attention's spellings
        "scores_divided", "scores_multiplied", "query_scaled", "unscaled", "keys_permuted",
        "heads_first_permute", "bmm_products", "softmax_cast_first", "softmax_other_dim",
        "dropout_random", "dropout_keeps_all", "sdpa_of_permuted", "mask_requires_grad",
        "mask_float32_promotes", "mask_where_added", "scores_round_trip",
        "cast_back_before_dropout", "kv_outputs", "merged_heads_linear"})
    EXPECT_GT(w["attention"][a], 0) << a;
  EXPECT_GT(w["cast"]["cast_pair"], 0);
  for (const char* e :
       {"relu", "gelu", "gelu_tanh", "silu", "sigmoid", "tanh", "clamp", "on_product",
        "product_output", "linear_siblings", "residual", "residual_is_input"})
    EXPECT_GT(w["epilogue"][e], 0) << e;
  for (const char* m : {"model", "parameter", "buffer", "trained_parameter", "parameter_float32",
                        "parameter_bfloat16", "parameter_float16", "buffer_float64"})
    EXPECT_GT(w["model"][m], 0) << m;
  for (const char* a :
       {"region_cpu_bfloat16", "region_cpu_float16", "region_cuda_bfloat16", "nested_disabled",
        "nested_cpu_float16", "autocast_cast", "explicit_cast_recast"})
    EXPECT_GT(w["autocast"][a], 0) << a;
  EXPECT_GT(w["program"]["shape_violation"], 0);
  EXPECT_GT(w["program"]["several_outputs"], 0);
  EXPECT_GT(w["program"]["12_nodes"], 0);
  // Dtype pairings are counted per op: a mixed integer/float one and a same-dtype one at least.
  EXPECT_GT(w["dtype_pairing"]["float16xfloat32"], 0);
  EXPECT_GT(w["dtype_pairing"]["int8xint8"], 0);
}

TEST(GenStats, PolicyChangesShowUp) {
  GenPolicy p;
  p.p_mixed_dtype = 0;
  p.p_cast = 0;
  p.w_attention = p.w_sdpa = 0;  // masks and attention's float32 softmax mix dtypes by design
  p.p_glue = 0;
  GenStats s = CollectStats(p, 1, 500);
  EXPECT_EQ(s.programs_with["program"].count("mixed_dtype_operands"), 0u);
  EXPECT_EQ(s.programs_with["op"].count("cast"), 0u);
  EXPECT_NE(StatsToText(s).find("500 programs"), std::string::npos);
  EXPECT_EQ(StatsToJson(s)["programs"], 500);
}

}  // namespace
}  // namespace mmdiff
