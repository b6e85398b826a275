// Helpers the reference ops' source files share (not part of the engine's interface).
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

#include "kernels/precision.h"

namespace mmref::detail {

inline constexpr double kInf = std::numeric_limits<double>::infinity();

// Row-major strides of `shape` broadcast to `to`; broadcast dims (size 1 against a larger size)
// get stride 0.
std::vector<int64_t> BroadcastStrides(const std::vector<int64_t>& shape,
                                      const std::vector<int64_t>& to);

// An exact integer result as a RefTensor element: doubles hold integers exactly up to 2^53 only.
void SetInteger(int64_t v, Format out, double& val, double& err);

// The bound of one elementwise result v with `inherited` error from its operands, after one
// rounding to `out`; unbounded when the inherited error is. A non-finite value computed from exact
// operands is exact (IEEE); an integer result (|v| < 2^62, exact operands) wraps exactly, v
// becoming the wrapped value. A finite result that may round beyond the format's range may also be
// that infinity: the bits are added to `also`.
double ElementwiseBound(double& v, double inherited, Format out, uint8_t& also);

// The element x + y of two terms given as sets (value, error, also; see RefTensor), where the
// finite result of finite terms is `sum` within `sum_bound`: its outcomes by IEEE rules. A finite
// term beyond +-limit may itself have overflowed; a finite result beyond the output format's range
// may round to an infinity.
void TwoTermSum(double x, double ex, uint8_t ax, double y, double ey, uint8_t ay, double sum,
                double sum_bound, double limit, Format out, double& v, double& e, uint8_t& also);

}  // namespace mmref::detail
