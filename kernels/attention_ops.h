// Reference softmax and scaled dot-product attention with forward error bounds.
// Callers check the contract (shapes, dtypes, mask rules) first.
#pragma once

#include <optional>

#include "kernels/reference_ops.h"
#include "kernels/softmax_math.h"

namespace mmref {

// Softmax over `dim` (already wrapped), computed stably (max subtracted) in float64. The bound
// covers the operands' errors, exp/sum/division rounding in arith.acc and the rounding to
// arith.out. Rows with NaN or +inf, or with every entry -inf, are NaN exactly (as torch's kernels
// give); -inf entries of other rows are exactly 0.
RefTensor Softmax(const RefTensor& a, int64_t dim, Arith arith);
// The rounding constants SoftmaxRowMath needs for `arith`.
SoftmaxRounding SoftmaxRoundingFor(Arith arith);
// A softmax over `dim` as outer x inner rows of n elements, element i of a row `inner` apart.
struct SoftmaxRows {
  int64_t n, inner, outer;
};
SoftmaxRows SoftmaxRowsOf(const RefTensor& a, int64_t dim);

struct AttentionArgs {
  const RefTensor* mask = nullptr;  // additive (float) or, with mask_is_bool, true = attend
  bool mask_is_bool = false;
  bool is_causal = false;       // top-left aligned: query i attends keys j <= i
  std::optional<double> scale;  // default 1/sqrt(E)
  bool enable_gqa = false;      // k/v heads (dim -3) repeated to q's (repeat_interleave)
};

// torch.nn.functional.scaled_dot_product_attention: softmax(q kᵀ * scale + mask) v, batch dims
// broadcast; rows with no key left to attend give 0. The bound allows the math kernel (q and k
// pre-scaled by sqrt(scale) and every stage rounded to arith.out) and the fused one (float32
// throughout). `stages` may supply the products and the softmax (the CUDA kernels do).
RefTensor ScaledDotProductAttention(const RefTensor& q, const RefTensor& k, const RefTensor& v,
                                    const AttentionArgs& args, Arith arith,
                                    const Stages& stages = {});

// The stages of ScaledDotProductAttention up to the attention weights, for its backward: q and k
// scaled by sqrt(|scale|) (k by its sign too) as the math kernel scales them, k (scaled) and v with
// their heads repeated under enable_gqa, and the weights P = softmax(qs ksᵀ + mask) (masked and
// special rows as the forward treats them).
struct AttentionStages {
  RefTensor qs, ks, vv, probs;
  double q_factor = 1, k_factor = 1;  // qs = q * q_factor, ks = k * k_factor
};
AttentionStages AttentionProbabilities(const RefTensor& q, const RefTensor& k, const RefTensor& v,
                                       const AttentionArgs& args, Arith arith,
                                       const Stages& stages = {});

// k or v with its heads (dim rank-3) repeated to `heads` (repeat_interleave), for enable_gqa.
RefTensor RepeatHeads(const RefTensor& t, int64_t heads);

}  // namespace mmref
