// The per-element accumulation of the reference matmul, shared by the CPU loops and the CUDA
// kernel (__host__ __device__ under nvcc), so that the GPU computes exactly what the CPU tests.
#pragma once

#include <math.h>

#if defined(__CUDACC__)
#define MMREF_HD __host__ __device__
#else
#define MMREF_HD
#endif

namespace mmref {

// The reference value as a compensated sum (Neumaier) for float64 operands, the bound inherited
// from the operands' errors, and the magnitude sum Σ(|a|+ea)(|b|+eb) that rounding errors scale
// with. A non-finite operand or an unbounded operand error makes the element unknown.
struct DotAcc {
  double val = 0, comp = 0, propagated = 0, mag = 0;
  bool unknown = false;
};

MMREF_HD inline void DotAdd(DotAcc& d, double a, double ea, double b, double eb) {
  if (isinf(ea) || isinf(eb) || !isfinite(a) || !isfinite(b)) {
    d.unknown = true;
    return;
  }
  double p = a * b;
  double t = d.val + p;
  d.comp += fabs(d.val) >= fabs(p) ? (d.val - t) + p : (p - t) + d.val;
  d.val = t;
  d.propagated += fabs(a) * eb + ea * fabs(b) + ea * eb;
  d.mag += (fabs(a) + ea) * (fabs(b) + eb);
}

// The same without compensation, for operands narrower than float64: their products are exact in
// float64, and the float64 sum's own error (gamma_K of float64 times the magnitude) is in the
// bound.
MMREF_HD inline void DotAddPlain(DotAcc& d, double a, double ea, double b, double eb) {
  if (isinf(ea) || isinf(eb) || !isfinite(a) || !isfinite(b)) {
    d.unknown = true;
    return;
  }
  d.val += a * b;
  d.propagated += fabs(a) * eb + ea * fabs(b) + ea * eb;
  d.mag += (fabs(a) + ea) * (fabs(b) + eb);
}

MMREF_HD inline double DotValue(const DotAcc& d) { return d.unknown ? NAN : d.val + d.comp; }

}  // namespace mmref
