// Tolerance floors: torch.testing.assert_close's per-dtype defaults, used as a minimum slack on top
// of the reference's per-element error bound.
#pragma once

#include <cstdint>

#include "src/ir/dtype.h"

namespace mmdiff {

struct Tolerance {
  double rtol;
  double atol;
};

// torch/testing/_comparison.py default_tolerances: float16 (1e-3, 1e-5), bfloat16 (1.6e-2, 1e-5),
// float32 (1.3e-6, 1e-5), float64 (1e-7, 1e-7); integers and bool compare exactly.
Tolerance AssertCloseDefaults(DType d);

// The largest |path - reference| accepted for one element: the reference bound, never less than
// the assert_close floor. +inf when the bound is infinite (possible overflow: anything goes); 0
// when the bound is 0: the reference knows the exact result every correct path must give bit for
// bit.
double AllowedError(DType d, double reference_value, double reference_bound);

// Whether a path's element `got` is one the reference allows: within `allowed` (AllowedError) of a
// finite `want`; exactly want's NaN or infinity; or a special value in `also` (kAlso* bits of
// src/ir/outcome.h: an overflow, inf * 0, ... that some correct evaluation gives).
bool AllowedValue(double got, double want, double allowed, uint8_t also);

}  // namespace mmdiff
