// Reference implementations of the matmul family with forward error bounds.
// Callers check the contract (shapes, dtypes) first; these functions assume legal arguments.
#pragma once

#include "kernels/dot_math.h"
#include "kernels/precision.h"
#include "kernels/ref_tensor.h"
#include "kernels/value_set.h"

namespace mmref {

// How a correct implementation computes in a given output format: products accumulated in `acc`,
// the result rounded once to `out`.
struct Arith {
  Format out;
  Format acc;
};

// True when one of `count` elements from `offset` is NaN or infinite, has an unbounded error or
// may also be special (also != 0): the matmul then works element by element (see Matmul).
bool HasSpecial(const RefTensor& t, int64_t offset, int64_t count);
inline bool HasSpecial(const RefTensor& t) {
  return HasSpecial(t, 0, static_cast<int64_t>(t.val.size()));
}

// True when none of `count` elements from `offset` carries an error (exact operands).
bool NoErrors(const RefTensor& t, int64_t offset, int64_t count);
inline bool NoErrors(const RefTensor& t) {
  return NoErrors(t, 0, static_cast<int64_t>(t.val.size()));
}

// The smallest power of two every nonzero value among `count` from `offset` is a multiple of
// (+inf when all are zero): a finite double is m * 2^e with m odd, and 2^e is its quantum.
double Quantum(const RefTensor& t, int64_t offset, int64_t count);
inline double Quantum(const RefTensor& t) {
  return Quantum(t, 0, static_cast<int64_t>(t.val.size()));
}

// Exact operands whose products are all multiples of `quantum`, with Σ|a·b| / quantum within 2^p of
// the accumulation format: every partial sum, in any order, is an exactly representable multiple of
// the quantum, so every correct implementation computes the sum exactly and rounds it once. Then
// `val` becomes RoundTo(out, sum) and `err` 0: bit for bit. Otherwise nothing changes.
// (Not where the element may also be special: `also` != 0.)
void ApplyExactness(double quantum, const DotAcc& d, Arith arith, double& val, double& err,
                    uint8_t also);

// The bound of one matmul output element with a finite result, from its accumulation over k terms.
double MatmulBound(const DotAcc& d, double value, long k, Arith arith);
// Whether some order of the partial sums of d's terms, or the final rounding to arith.out, may
// overflow to +inf (pos) or -inf (neg); both make NaN possible too (+inf and -inf partial sums).
void DotOverflow(const DotAcc& d, double value, double bound, Arith arith, bool& pos, bool& neg);
// One element of a product: the finite terms' accumulation d and the special terms' outcomes give
// val, err and also (see RefTensor); an unknown d leaves the element unjudged.
void FinishDot(const DotAcc& d, const SumOutcomes& specials, long k, Arith arith, double& val,
               double& err, uint8_t& also);
// max(|x| + err) over the finite elements with bounded errors: what an operand can contribute to a
// product's finite magnitude (special elements decide their products by IEEE rules instead).
double MaxMagnitude(const RefTensor& t);
// The same tensor with every element that may also be special (also != 0) unjudged (err +inf), for
// ops that do not follow special values element by element (softmax, attention).
RefTensor WithoutAlso(const RefTensor& t);

// torch.matmul semantics at every rank (1-D promotion, broadcast batch dims); covers mm and bmm.
// Values are accumulated in float64, with a compensated (Kahan-Babuska) sum when the arithmetic is
// float64; narrower operands multiply exactly in float64 and the plain sum's error is in the bound.
// Special values are followed per element, by IEEE rules over the element's own row and column:
// a NaN term gives NaN, inf * 0 gives NaN, +inf and -inf terms give NaN, one sign of infinite
// terms among finite ones gives that infinity; partial sums that may overflow allow +inf or -inf.
RefTensor Matmul(const RefTensor& a, const RefTensor& b, Arith arith);
// Matmul as the final value of a product node (mm, bmm, matmul, mv, dot), which every path rounds
// once to arith.out: where ApplyExactness holds, the value is that rounded result and the bound 0.
// (Inside addmm, linear or attention the product is not rounded on its own: use Matmul there.)
RefTensor MatmulResult(const RefTensor& a, const RefTensor& b, Arith arith);
// beta * bias + alpha * product, bias broadcast to the product's shape; beta == 0 ignores the bias
// (NaN included), as the addmm family does. The bound allows fused or unfused evaluation.
RefTensor AddScaled(const RefTensor& bias, const RefTensor& product, double alpha, double beta,
                    Arith arith);
// The inner stages a composite op (addmm, attention) is built from; null means the CPU loops
// (Matmul, Softmax). The CUDA build substitutes its kernels.
struct Stages {
  RefTensor (*matmul)(const RefTensor& a, const RefTensor& b, Arith arith) = nullptr;
  RefTensor (*softmax)(const RefTensor& a, int64_t dim, Arith arith) = nullptr;
};
// beta * bias + alpha * (a @ b): addmm, addmv, baddbmm, and linear with a bias. With exact
// operands, alpha and beta 0 or powers of two, and every partial sum exact in any order (as for
// MatmulResult), an element whose product, scaled terms and sum are representable in arith.out gets
// bound 0: bit for bit.
RefTensor Addmm(const RefTensor& bias, const RefTensor& a, const RefTensor& b, double alpha,
                double beta, Arith arith, const Stages& stages = {});
// Swaps the last two dims (a 1-D tensor is returned as is), as .mT / w.T in linear.
RefTensor TransposeLast2(const RefTensor& a);
// addbmm's sum over the batch as one long product: a (b, n, k) -> (n, b*k); b (b, k, p) -> (b*k,
// p).
void FoldBatchIntoK(const RefTensor& a, const RefTensor& b, RefTensor& a_out, RefTensor& b_out);
// Views (values are copied; the reference has no strides of its own). Dims are already wrapped
// to [0, rank) and valid: the contract checks them first.
RefTensor Permute(const RefTensor& a, const std::vector<int64_t>& dims);
RefTensor Reshape(const RefTensor& a, const std::vector<int64_t>& shape);  // sizes already inferred
RefTensor Expand(const RefTensor& a, const std::vector<int64_t>& shape);   // -1 already resolved
RefTensor Narrow(const RefTensor& a, int64_t dim, int64_t start, int64_t length);
// Elements start, start + step, ... below end of `dim` (start and end already clamped, step >= 1).
RefTensor Slice(const RefTensor& a, int64_t dim, int64_t start, int64_t end, int64_t step);

// Elementwise glue: a + b with broadcasting (operands already in the result format), and s * a.
RefTensor Add(const RefTensor& a, const RefTensor& b, const std::vector<int64_t>& shape,
              Format out);
RefTensor Scale(const RefTensor& a, double s, Format out);

// Conversion from format `from` to `to`: round to nearest even into floats; truncation into
// integers (out-of-range floats are undefined behaviour: the element's bound becomes infinite);
// integers wrap.
RefTensor Cast(const RefTensor& a, Format to, Format from = Format::kF64);
// A cast a compiler may fuse into its consumer without rounding (the casts torch.autocast inserts
// before an op): Cast's value, bounded so that the unrounded value is allowed too; an element that
// overflows `to` (or may) is unjudged.
RefTensor CastMaybeSkipped(const RefTensor& a, Format to, Format from = Format::kF64);

}  // namespace mmref
