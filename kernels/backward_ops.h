// Backward building blocks: the gradients of the matmul family and of the views, with the same
// per-element bounds as the forward kernels, so that a gradient is judged by the same sound rule
// as an output. Each is exact arithmetic on the reference values plus a bound that covers every
// order of evaluation a correct backward may use.
#pragma once

#include <vector>

#include "kernels/reference_ops.h"

namespace mmref {

// Σ terms (all of one shape), in any order and grouping, every partial sum possibly rounded to
// arith.out (autograd adds a value's gradient contributions one at a time, in its dtype; a compiler
// may add them all in float32 and round once): one sum of n terms accumulated in arith.acc.
RefTensor SumTerms(const std::vector<RefTensor>& terms, Arith arith);

// autograd's sum_to_size: g summed over its leading dims and over the dims where `shape` has size
// 1, down to `shape` (broadcastable to g's shape). No summed dim: g itself.
RefTensor SumTo(const RefTensor& g, const std::vector<int64_t>& shape, Arith arith);

// The gradient of a slice that takes elements start, start + step, ... of `dim` from a tensor of
// shape `in_shape` (narrow: step 1): g's elements at those places, exact zeros elsewhere.
RefTensor SliceBackward(const RefTensor& g, const std::vector<int64_t>& in_shape, int64_t dim,
                        int64_t start, int64_t step);

// The gradients of alpha * matmul(a, b) (torch.matmul at every rank: 1-D operands promoted, batch
// dims broadcast) for the cotangent g: da = alpha * g @ bᵀ and db = alpha * aᵀ @ g, summed over the
// batch dims the operand was broadcast along, in a's and b's shapes. Either pointer may be null.
// A summed batch is folded into the contraction and bounded as accumulated in arith.out (a path
// may sum per-batch products rounded to the output dtype, or run one long product).
void ProductBackward(const RefTensor& a, const RefTensor& b, const RefTensor& g, double alpha,
                     Arith arith, RefTensor* da, RefTensor* db);

// softmax's backward along `dim` from its output y and the cotangent g: y ⊙ (g − Σ_dim g ⊙ y),
// rounded to arith.out. The subtraction's rounding is bounded relative to |g| + |Σ|, so that a
// path computing y·g − y·Σ apart (or recomputing y within its bound) is covered too. An element
// with a special value, an unbounded error or a possible overflow anywhere in its terms is
// unjudged.
RefTensor SoftmaxBackward(const RefTensor& y, const RefTensor& g, int64_t dim, Arith arith);

// Every element unjudged (err +inf): the gradient through an op the reference has no backward for.
RefTensor Unjudged(const std::vector<int64_t>& shape);

}  // namespace mmref
