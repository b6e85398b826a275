// The pointwise epilogues after a product (relu, gelu and its tanh approximation, silu, sigmoid,
// tanh, clamp), each element with a bound that holds for a correct implementation: the result of
// the operation on every value within the input's bound, computed with the approximations of the
// transcendental functions torch and Inductor use (a few float32 ulps, float64's for float64), and
// rounded to the output format once. What torch does not promise is left unjudged (+inf error):
// gelu and silu of an infinity (eager's erf gelu gives NaN at +inf), and their results where the
// input may be special.
#pragma once

#include "kernels/precision.h"
#include "kernels/ref_tensor.h"

namespace mmref {

enum class Pointwise { kRelu, kGelu, kGeluTanh, kSilu, kSigmoid, kTanh, kClamp };

// f(a) in format `out` (a's values already in it: an integer input of sigmoid or tanh is cast to
// float32 first); clamp to [lo, hi]. Integer formats (relu, clamp) are exact.
RefTensor Unary(const RefTensor& a, Pointwise f, Format out, double lo = 0, double hi = 0);

// f'(a), the local derivative autograd applies to the gradient (relu: 0 where a <= 0, else 1,
// NaN included, as threshold_backward compares; clamp: 1 strictly between lo and hi, 0 at and
// beyond them; sigmoid and tanh as torch computes them, from the rounded result), in format
// `out`, with its bound. relu's and clamp's select the gradient (reference_backward: a where, so
// that an infinite gradient stays out of the zeros); the others multiply it.
RefTensor UnaryDerivative(const RefTensor& a, Pointwise f, Format out, double lo = 0,
                          double hi = 0);

// The exact function and its derivative, in double (for the tests and the kernels).
double PointwiseValue(Pointwise f, double x, double lo = 0, double hi = 0);
double PointwiseDerivative(Pointwise f, double x, double lo = 0, double hi = 0);

}  // namespace mmref
