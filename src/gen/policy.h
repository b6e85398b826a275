// GenPolicy: every probability and weight the generator uses, in one struct, dumpable as JSON.
// (What it leaves fixed: fair coins between two forms of one feature, named constants with their
// reasons in program_builder.h, and kConnect in mutator.cc; and uniform picks from fixed lists,
// such as alpha and beta, scales, large K and value ranges.)
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string_view>
#include <vector>

#include "src/support/status.h"

namespace mmdiff {

struct GenPolicy {
  int max_ops = 3;  // ops per program: uniform in [min(min_ops, max_ops), max_ops]
  int min_ops = 1;
  double p_chain = 0.5;         // an op takes the previous op's result as its first operand
  double p_mixed_dtype = 0.35;  // an operand gets a dtype other than the op's base dtype
  double p_cast = 0.2;          // an operand goes through an explicit cast node first
  double p_cast_pair = 0.2;     // ... and then through a second one (x.to(a).to(b)): back to its
                                // dtype (a round trip) or on to a floating dtype
  double p_shape_violation = 0.04;  // contracted dimensions deliberately disagree
  double p_bias_violation = 0;      // an addmm-family bias does not expand to the product (at
                                    // least this often: p_shape_violation gives one too)
  double p_transposed = 0.2;        // an input of rank >= 2 is stored transposed
  double p_view = 0.2;         // an operand is made through a view of an input of another shape:
                               // transpose, permute, reshape, expand (stride 0) or narrow (slice)
  double p_contiguous = 0.25;  // ... followed by .contiguous()
  double p_glue = 0.15;        // an op's result goes through elementwise glue before it is
                               // chained: a scaling (x * s) or an added bias/residual tensor
  int max_matmul_rank = 4;  // matmul operand ranks: uniform in [min_matmul_rank, max_matmul_rank]
  int min_matmul_rank = 1;  // (above max_matmul_rank: max_matmul_rank)
  double p_linear_bias = 0.5;  // linear gets a bias argument
  int min_linear_rank = 1;     // a linear's input rank: uniform from min_linear_rank (2 or
                               // more: a batch, which freezing's mkldnn packing needs) ...
  int max_linear_rank = 3;     // ... up to max_linear_rank (2: no batch dimensions, which
                               // mkldnn's bias folding needs); below min_linear_rank it is that
  int min_batch = 1;  // a batch dimension of a matmul or linear operand: uniform in [min_batch, 4]
                      // (2: never 1, which dynamic shapes specialize, so mkldnn packs nothing)
  // Spellings and broadcasts: a cast to a dtype that has a method is written x.float(), x.half(),
  // ... (as users write it) rather than x.to(dtype) with p_cast_method; a view's dim argument is
  // written negative (counted from the end) with p_negative_dim; -1 stands among a view's sizes
  // with p_size_minus_one (reshape and view infer one size from it, expand keeps each size it does
  // not broadcast); glue is a scaling rather than an added tensor with p_glue_scale, an added
  // tensor of the result's shape (a residual) rather than a row (a bias, which mkldnn folds into
  // a packed linear) with p_glue_residual; a batch dim that matmul's b shares with a is 1 in b
  // (broadcast) with p_broadcast_batch.
  double p_cast_method = 0.3, p_negative_dim = 0.3, p_size_minus_one = 0.3, p_glue_scale = 0.5;
  double p_glue_residual = 0.5, p_broadcast_batch = 0.25;
  // Devices: a whole program goes to meta or cuda with these probabilities (else cpu); a fresh
  // operand lands on another device than its program's with p_device_mismatch (a contract
  // violation). cuda programs are generated on any machine and skipped, with a count, where there
  // is no GPU.
  double p_meta = 0.1;
  double p_cuda = 0.05;
  double p_device_mismatch = 0.03;
  double p_move = 0.05;  // a fresh operand is made on another device and moved with .to(device):
                         // cpu to a meta or cuda program; cuda (if p_cuda > 0) to a cpu program
  // Layouts: a drawn dim is 0 with p_zero_dim; a contracted dim K is large (128 to 4097) with
  // p_large_k.
  double p_zero_dim = 0.02;
  double p_large_k = 0.04;
  // Training (src/ir/program.h): a program trains with p_train; then each floating input requires
  // grad with p_requires_grad (at least one does), and each non-floating one, deliberately (eager
  // rejects it), with p_grad_violation; an attention mask (an added one, a padding mask's input)
  // with p_mask_grad instead (Inductor's training attention fusions take only masks that do not).
  double p_train = 0.33, p_requires_grad = 0.6, p_grad_violation = 0.02, p_mask_grad = 0.6;
  // Models (src/ir/program.h, InputRole): a program is a model with p_module, drawn after training
  // and autocast; then each input that is a product's weight operand (linear's weight and bias,
  // the second operand of mm, bmm, matmul, addmm, baddbmm, addbmm, addmv and mv, the bias of
  // addmm, addmv, baddbmm and addbmm, directly or through a view or cast) becomes one of the
  // module's weights with p_weight (at least one does), a buffer rather than a parameter with
  // p_buffer where it does not train.
  double p_module = 0.35, p_weight = 0.8, p_buffer = 0.2;
  // Epilogues, the pointwise ops after a product that Inductor fuses into it (mkldnn's fused
  // linear, the C++ GEMM templates' epilogues): a product's result goes through one with
  // p_epilogue, drawn by w_relu, w_gelu (approximate "none"), w_gelu_tanh, w_silu, w_sigmoid,
  // w_tanh and w_clamp (bounds (0, 6), (-1, 1), (0, 1) or (-2, 2)); the product stays an output
  // of its own too (a product with two users) with p_product_output. A linear has one or two
  // siblings on the same input (freezing's concatenated linears) with p_linear_siblings: two
  // (three linears) with p_two_siblings, each of the first one's output size with
  // p_siblings_equal (max-autotune's grouped template takes only those).
  double p_epilogue = 0.3, p_product_output = 0.3, p_linear_siblings = 0.15;
  double p_two_siblings = 0.5, p_siblings_equal = 0.5;
  // Before the epilogue, a residual added to the product with p_residual (mkldnn's binary fusion):
  // the product's own first operand where it has the product's shape and dtype (linear(x) + x)
  // with p_residual_input, else a fresh input.
  double p_residual = 0.15, p_residual_input = 0.5;
  double w_relu = 2, w_gelu = 1, w_gelu_tanh = 1, w_silu = 1, w_sigmoid = 0.5, w_tanh = 0.5;
  double w_clamp = 1;
  // Autocast (src/ir/autocast.h): a program gets an autocast region around a run of its nodes with
  // p_autocast, of the program's device type (cpu for meta programs, where it changes nothing), in
  // bfloat16 with p_autocast_bfloat16 (else float16); inside it, a nested region around a shorter
  // run with p_autocast_nested, which switches autocast off with p_autocast_disabled (else it
  // switches to the other 16-bit dtype). Drawn after everything else.
  double p_autocast = 0.25, p_autocast_bfloat16 = 0.5, p_autocast_nested = 0.3;
  double p_autocast_disabled = 0.5;
  // Attention: q is 4-D (B, H, L, E) with p_attention_4d, else 3-D (H, L, E); v's last dim Ev is E
  // with p_ev_equal_e (else drawn), and v is float32 whatever q's dtype with p_v_float32. sdpa gets
  // a mask (bool or additive) with p_mask, else is_causal with p_causal; 4-D sdpa groups query
  // heads (enable_gqa) with p_gqa; sdpa gets an explicit scale with p_sdpa_scale; hand-written
  // attention masks its scores with p_mask (added, masked_fill'ed or where'd: below), takes its
  // softmax in float32 (dtype=torch.float32) with p_softmax_float32, and casts back to the query's
  // dtype with p_cast_back. An sdpa mask is bool with p_mask_bool; a float mask (sdpa's, or one
  // added to 16-bit scores by hand) is float32 (sdpa takes it with any query dtype; added, it
  // promotes the scores) rather than the query's dtype with p_mask_float32.
  double p_mask = 0.5, p_causal = 0.3, p_gqa = 0.3, p_softmax_float32 = 0.6, p_cast_back = 0.7;
  double p_mask_bool = 0.5, p_mask_float32 = 0.3;
  // Hand-written attention's spellings (the forms Inductor's attention rewrites match): keys
  // permuted rather than transposed with p_key_permute; scaled by a division (by sqrt(E) or a
  // constant) rather than a multiplication (by 1/sqrt(E) or a constant) with p_scale_div; not
  // scaled at all with p_attention_unscaled, else q scaled before the product rather than the
  // scores with p_scale_query; 4-D operands (sdpa's too) stored (B, S, H, E) and permuted to heads
  // first with p_attention_bshd; 3-D products by torch.bmm rather than matmul with p_attention_bmm;
  // a float32 softmax by a cast before it rather than its dtype argument with p_softmax_cast_first;
  // softmax over another dim than the last with p_softmax_other_dim (no attention rewrite should
  // take that; pytorch#196468: on 2.11.0 the fusions did). Operands stored (B, S, H, E) are
  // projected, as a model's self-attention layer writes them, with p_attention_projection: q, k
  // and v are linear(x, W) of one (B, L, D) input x (a weight each, with a bias by
  // p_linear_bias), reshaped to (B, L, heads, E) and permuted (then S is L).
  double p_key_permute = 0.3, p_scale_div = 0.5, p_softmax_other_dim = 0.05;
  double p_attention_projection = 0.5;
  double p_attention_unscaled = 0.15, p_scale_query = 0.2, p_attention_bshd = 0.3;
  double p_attention_bmm = 0.3, p_softmax_cast_first = 0.4;
  // Dropout on attention's probabilities with p_attention_dropout, of which a share
  // p_dropout_random zeroes at random (training, p > 0: its values are not judged; the others
  // keep every element: p = 0 while training, or eval); the probabilities and v both cast to
  // float16 or bfloat16 before the last product (a 16-bit product after a float32 softmax) with
  // p_attention_half_product.
  double p_attention_dropout = 0.2, p_dropout_random = 0.5, p_attention_half_product = 0.1;
  // That 16-bit product is in float16 (patterns 7 to 10 name it) with p_half_product_float16, else
  // in bfloat16.
  double p_half_product_float16 = 0.5;
  // Hand-written attention's masks (with p_mask): by masked_fill (True where masked, filled with
  // -inf with p_mask_fill_inf, else the dtype's lowest value or -1e4, alike) with p_mask_fill, else
  // by torch.where (True where kept, the rest a 0-d torch.full of the dtype's lowest value, as
  // GPT-2 writes it) with p_mask_where, else added. A masked_fill mask of 4-D attention is a
  // padding mask, (pad == 0) reshaped to (B, 1, 1, S) and expanded to the scores, as DistilBert
  // writes it, with p_mask_padding; a masked_fill or where mask is causal, torch.tril of a
  // torch.full of ones, with p_causal_tril. A scale multiplies or divides by a 0-d torch.full
  // tensor rather than a Python float with p_scale_tensor.
  double p_mask_fill = 0.3, p_mask_where = 0.3, p_mask_padding = 0.4, p_causal_tril = 0.3;
  // -inf is what fuse_attention's masked_fill patterns (15, 17, 20) match: a finite fill is left
  // unfused.
  double p_mask_fill_inf = 0.5;
  double p_scale_tensor = 0.15;
  // More of the spellings of models Inductor's fusions name: a where'd mask followed by an added
  // one (GPT-2, _sfdp_pattern_19) with p_mask_where_add; 16-bit scores through a cast round trip
  // before the softmax (T5, 21 to 23: x.type_as(q) where a float32 mask promoted them, else
  // x.float().type_as(q)) with p_scores_round_trip; a float32 softmax cast back to q's dtype before
  // its dropout rather than after (25 to 27) with p_cast_back_first; 4-D (B, S, H, E) keys and
  // values, permuted to heads first, returned as outputs too (22, 23, 26, 27) with
  // p_attention_kv_outputs.
  double p_mask_where_add = 0.3, p_scores_round_trip = 0.1, p_cast_back_first = 0.5;
  double p_attention_kv_outputs = 0.2;
  // MBart's merge of 4-D attention's heads, view(B * H, L, Ev) (or reshape), then a linear
  // projection, with p_attention_merge_heads.
  double p_attention_merge_heads = 0.1;
  // MBart's whole attention with heads merged around torch.bmm (_sfdp_pattern_24; see
  // ProgramBuilder::MergedHeadsAttention), where q, k and v are 4-D contiguous inputs, with
  // p_attention_merged_bmm.
  double p_attention_merged_bmm = 0;
  double p_attention_4d = 0.7, p_ev_equal_e = 0.7, p_v_float32 = 0.2, p_sdpa_scale = 0.3;
  // 4-D attention's batch B: uniform from attention_batch_min to attention_batch_max (the min where
  // the max is below it). The fusions are traced for B = 1 (their _bs1 forms: the reshape of
  // permuted operands is then a view) and B = 2 (a clone), and match only the one they were
  // traced for.
  int attention_batch_min = 1, attention_batch_max = 3;
  // 4-D attention's heads H (3-D attention's batch), the same way: with one head, permuting
  // (B, S, 1, E) operands to heads first is a view, and the fusions traced for B = 1 match.
  int attention_heads_min = 1, attention_heads_max = 4;
  // Input values: the value class of a program's inputs (see InputRecipe) by weight; with p_special
  // its floating inputs carry special values (NaN, ±inf, -0, subnormals, near-max) at special_rate.
  double w_grid16 = 1, w_exact = 1, w_uniform = 1, w_normal = 1;
  double p_special = 0.2, special_rate = 0.02;
  // The addmm family's beta: 0 (its input ignored: eager reads none of it, NaN included) with
  // p_beta_zero, else drawn from the fixed list (0 one time in six too); at 0 no coin is drawn.
  double p_beta_zero = 0;
  // Swarm mode: per program, each op, each dtype, each value class and each of the features cast,
  // mixed dtype, transposed layout, chaining, views, device moves, special values, size-0 dims and
  // large K is switched off with probability 1/2 (at least one op, one float dtype and one value
  // class stay on), so that rare combinations get room. Off by default.
  bool swarm = false;
  // Mutator: the new dtype of a changed input or of an inserted cast is a floating one with
  // p_mutate_float, else any dtype (integers and bool too).
  double p_mutate_float = 0.8;
  // Relative weights of the ops (their JSON keys and their order come from the op table, GenOps()
  // in generator.h) and the float dtypes.
  double w_mm = 1, w_bmm = 1, w_matmul = 2, w_addmm = 1;
  double w_mv = 0.5, w_dot = 0.5, w_addmv = 0.5, w_baddbmm = 0.7, w_addbmm = 0.5, w_linear = 1;
  double w_sdpa = 0.7, w_attention = 0.7;  // scaled_dot_product_attention; hand-written attention
  double w_float64 = 1, w_float32 = 2, w_float16 = 2, w_bfloat16 = 1;
  // Integer dtypes; bool as an operand dtype is a deliberate contract violation (masks are bool
  // anyway).
  double w_int8 = 0.15, w_uint8 = 0.1, w_int32 = 0.15, w_int64 = 0.15, w_bool = 0.03;
  // Sizes drawn for every dimension: small, awkward and power-of-two values.
  std::vector<int64_t> dims = {1, 2, 3, 4, 5, 7, 8, 15, 16, 17, 31, 33, 63, 65};
  // Compile once, run many: each program is checked on this many inputs in a row (see
  // input_variants.h), so that compiled paths reuse what they compiled for the first. An input
  // through a compiled function costs about 1 ms against about 0.5 s for its compile, so 128 inputs
  // add about a quarter to a computing program's time (scripts/bench measures the gain).
  int inputs_per_program = 128;
  // AOTInductor compiles a shared library per program (slow): the share of programs that also run
  // the aoti path when a campaign asks for it.
  double aoti_rate = 0.05;
  // Inductor's knob variants (src/ir/paths.cc): a campaign whose paths were not given runs a
  // program also through one of them with variant_rate, drawn by these weights (w_<path name>)
  // among those that can run it (a training program: not those that compile under no_grad), so
  // that a bug only a setting has is looked for; 0 leaves a variant out.
  double variant_rate = 0.5;
  double w_inductor_freezing = 2, w_inductor_max_autotune = 2, w_inductor_cpp_wrapper = 1;
  double w_inductor_dynamic = 1, w_inductor_emulate_precision_casts = 1;
  double w_inductor_freezing_dynamic = 1, w_inductor_freezing_opt_in = 1;
  double w_inductor_fallback_random = 0;
  bool operator==(const GenPolicy&) const = default;
};

// The knob variants' weights: the policy key, "w_" and the path it weighs, and its member.
struct VariantWeight {
  std::string_view key;
  double GenPolicy::* weight;
};
const std::vector<VariantWeight>& VariantWeights();
// The weight of a variant path; `unweighed` for a path the policy has no weight for (a test path).
double VariantWeightOf(const GenPolicy& p, std::string_view path, double unweighed = 0);

nlohmann::json PolicyToJson(const GenPolicy& p);
// Missing keys keep their defaults; unknown keys, wrong types and out-of-range values are errors.
Result<GenPolicy> PolicyFromJson(const nlohmann::json& j);

}  // namespace mmdiff
