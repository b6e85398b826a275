// The backward of scaled dot-product attention, from its definition, with the bounds of the
// building blocks it is made of (kernels/backward_ops.h).
#pragma once

#include "kernels/attention_ops.h"

namespace mmref {

struct AttentionGrads {
  RefTensor dq, dk, dv, dmask;  // dmask: only for an additive (float) mask
};

// The gradients of ScaledDotProductAttention(q, k, v, args, arith) for the cotangent g of its
// output. With P = softmax(S), S = (q·a)(k·b)ᵀ + mask (a·b = scale, the math kernel's split):
// dv = Pᵀ·g, dP = g·vᵀ, dS = P ⊙ (dP − Σ dP ⊙ P), dq = a·(dS·(k·b)), dk = b·(dSᵀ·(q·a)), dmask = dS
// summed to the mask's shape; with enable_gqa the repeated heads' gradients are summed back to k's
// and v's heads; broadcast batch dims are summed. Each stage is bounded as the forward's and
// ProductBackward's are, so the math kernel (every stage rounded) and the fused one (float32
// throughout) are covered. Where the forward leaves anything unjudged or degenerate (special or
// near-max values in q, k, v, the mask or g; no key or an empty head dim; a special score row),
// every gradient is unjudged: the kernels' backward treats those cases differently.
AttentionGrads ScaledDotProductAttentionBackward(const RefTensor& q, const RefTensor& k,
                                                 const RefTensor& v, const RefTensor& g,
                                                 const AttentionArgs& args, Arith arith);

}  // namespace mmref
