// One softmax row of the reference, shared by the CPU loop and the CUDA kernel (__host__ __device__
// under nvcc), so that the GPU runs exactly the logic the CPU tests check.
#pragma once

#include <math.h>

#include "kernels/dot_math.h"  // MMREF_HD

namespace mmref {

// The rounding constants a row's bound needs, computed on the host (precision.h) for the
// accumulation format and the output format.
struct SoftmaxRounding {
  double u_acc, u_out;  // unit roundoffs
  // The smallest normal of the accumulation format: vectorized exp gives 0 below it (ATen's
  // float32 CPU exp does: exp(-95.3) is 0, not 4e-42), so a probability under it may be 0.
  double normal_acc;
  double sub_out;  // the smallest subnormal of the output format
};

// Softmax of the n values at val[off + i * stride], written to rval/rerr at the same places; err
// holds the inputs' bounds. Stable (max subtracted) in float64. Rows with NaN or +inf, or with
// every entry -inf, are NaN exactly; -inf entries of other rows are exactly 0; an unbounded input
// error makes the whole row unjudged.
MMREF_HD inline void SoftmaxRowMath(const double* val, const double* err, double* rval,
                                    double* rerr, long long off, long long stride, long long n,
                                    SoftmaxRounding r) {
  if (n == 0) return;
  bool unknown = false, nan_row = true;
  double m = -INFINITY, delta = 0;
  for (long long i = 0; i < n; ++i) {
    double x = val[off + i * stride], e = err[off + i * stride];
    if (isinf(e)) unknown = true;
    if (isnan(x) || x == INFINITY) {
      nan_row = true;
      m = NAN;
      break;
    }
    if (x != -INFINITY) {
      nan_row = false;
      m = fmax(m, x);
      delta = fmax(delta, e);
    }
  }
  if (unknown || nan_row || isnan(m)) {
    for (long long i = 0; i < n; ++i) {
      rval[off + i * stride] = NAN;
      rerr[off + i * stride] = unknown ? INFINITY : 0.0;
    }
    return;
  }
  double sum = 0, spread = 0;
  for (long long i = 0; i < n; ++i) {
    double x = val[off + i * stride];
    double w = x == -INFINITY ? 0.0 : exp(x - m);
    rval[off + i * stride] = w;
    sum += w;
    if (x != -INFINITY) spread = fmax(spread, m - x);
  }
  // Relative error of each probability: the operands' errors (each logit within delta moves every
  // ratio by at most e^(2 delta)), the rounding of x - m and of exp, the sum and the division in
  // the accumulation format, and float64's own (which also covers exp's last-bit differences
  // between the CPU's and the GPU's libm).
  double grow = expm1(2 * delta);
  double nn = static_cast<double>(n);
  double rel = grow + (nn + 8 + 2 * spread) * r.u_acc * (1 + grow) + 1e-15 * nn;
  for (long long i = 0; i < n; ++i) {
    long long at = off + i * stride;
    double p = rval[at] / sum;
    rval[at] = p;
    if (val[at] == -INFINITY) {  // exactly 0 in every correct implementation
      rerr[at] = 0;
      continue;
    }
    // Logits ~1e308 apart overflow the relative term: then nothing is promised (not 0 * inf = NaN).
    // A term of the sum (at least 1: the max's) flushed moves p by p * normal_acc; p's own exp
    // flushed, by normal_acc.
    double before = isinf(rel) ? INFINITY : p * rel + r.normal_acc * (1 + nn * p);
    rerr[at] = before + r.u_out * (p + before) + r.sub_out;
  }
}

}  // namespace mmref
