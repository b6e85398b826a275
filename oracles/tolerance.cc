// Tolerance floors.
#include "oracles/tolerance.h"

#include <algorithm>
#include <cmath>

#include "src/ir/outcome.h"

namespace mmdiff {

Tolerance AssertCloseDefaults(DType d) {
  switch (d) {
    case DType::kFloat16:
      return {1e-3, 1e-5};
    case DType::kBFloat16:
      return {1.6e-2, 1e-5};
    case DType::kFloat32:
      return {1.3e-6, 1e-5};
    case DType::kFloat64:
      return {1e-7, 1e-7};
    default:
      return {0, 0};
  }
}

double AllowedError(DType d, double reference_value, double reference_bound) {
  if (std::isinf(reference_bound) || std::isnan(reference_bound)) return INFINITY;
  if (reference_bound == 0) return 0;  // exact (a computed bound is never 0 otherwise): bit for bit
  Tolerance t = AssertCloseDefaults(d);
  return std::max(reference_bound, t.atol + t.rtol * std::fabs(reference_value));
}

bool AllowedValue(double got, double want, double allowed, uint8_t also) {
  if (std::isnan(got)) return std::isnan(want) || (also & kAlsoNaN) != 0;
  if (std::isinf(got)) return got == want || (also & (got > 0 ? kAlsoPosInf : kAlsoNegInf)) != 0;
  return std::isfinite(want) && std::fabs(got - want) <= allowed;
}

}  // namespace mmdiff
