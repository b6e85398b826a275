// Rounding to narrow formats by scaling: exact for every double input, including subnormal results.
#include "kernels/precision.h"

#include <cmath>
#include <limits>

namespace mmref {

namespace {
struct Params {
  int mantissa_bits;  // explicit fraction bits
  int min_exp;        // exponent of the smallest normal (2^min_exp)
  double max_finite;
};
Params Get(Format f) {
  switch (f) {
    case Format::kF64:
      return {52, -1022, std::numeric_limits<double>::max()};
    case Format::kF32:
      return {23, -126, 3.4028234663852886e38};
    case Format::kF16:
      return {10, -14, 65504.0};
    case Format::kBF16:
      return {7, -126, 3.3895313892515355e38};
    default:
      break;
  }
  return {52, -1022, std::numeric_limits<double>::max()};
}
}  // namespace

bool IsInteger(Format f) {
  return f == Format::kI8 || f == Format::kU8 || f == Format::kI32 || f == Format::kI64 ||
         f == Format::kBool;
}

double UnitRoundoff(Format f) {
  return IsInteger(f) ? 0.0 : std::ldexp(1.0, -(Get(f).mantissa_bits + 1));
}

double MaxFinite(Format f) {
  switch (f) {
    case Format::kI8:
      return 127;
    case Format::kU8:
      return 255;
    case Format::kI32:
      return 2147483647.0;
    case Format::kI64:
      return 9223372036854775807.0;
    case Format::kBool:
      return 1;
    default:
      return Get(f).max_finite;
  }
}

double MinValue(Format f) {
  switch (f) {
    case Format::kI8:
      return -128;
    case Format::kU8:
      return 0;
    case Format::kI32:
      return -2147483648.0;
    case Format::kI64:
      return -9223372036854775808.0;
    case Format::kBool:
      return 0;
    default:
      return -Get(f).max_finite;
  }
}

double MinSubnormal(Format f) {
  if (IsInteger(f)) return 0.0;
  Params p = Get(f);
  return std::ldexp(1.0, p.min_exp - p.mantissa_bits);
}

double MinNormal(Format f) {
  if (IsInteger(f)) return 0.0;
  return std::ldexp(1.0, Get(f).min_exp);
}

int64_t WrapTo(Format f, int64_t x) {
  switch (f) {
    case Format::kI8:
      return static_cast<int8_t>(static_cast<uint8_t>(static_cast<uint64_t>(x) & 0xFFu));
    case Format::kU8:
      return static_cast<int64_t>(static_cast<uint64_t>(x) & 0xFFu);
    case Format::kI32:
      return static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(x) & 0xFFFFFFFFu));
    case Format::kBool:
      return x != 0;
    default:
      return x;
  }
}

double RoundTo(Format f, double x) {
  if (f == Format::kBool) return x != 0 ? 1.0 : 0.0;  // NaN != 0: true
  if (IsInteger(f)) return std::trunc(x);
  if (f == Format::kF64 || !std::isfinite(x) || x == 0) return x;
  Params p = Get(f);
  int e;
  std::frexp(x, &e);  // x = m * 2^e, 0.5 <= |m| < 1, so the leading bit has weight 2^(e-1)
  int lead = std::max(e - 1, p.min_exp);  // subnormals share the smallest normal's quantum
  int quantum_exp = lead - p.mantissa_bits;
  // x / 2^q rounded to an integer with ties to even, then scaled back: exact in double arithmetic.
  double scaled = std::ldexp(x, -quantum_exp);
  double r = std::nearbyint(scaled);  // default rounding mode: to nearest, ties to even
  double out = std::ldexp(r, quantum_exp);
  if (std::fabs(out) > p.max_finite)
    return std::copysign(std::numeric_limits<double>::infinity(), x);
  return out;
}

double TorchConvertFromDouble(Format f, double x) {
  if (f == Format::kF16 || f == Format::kBF16) return RoundTo(f, RoundTo(Format::kF32, x));
  return RoundTo(f, x);
}

double Gamma(long n, double u) {
  double nu = static_cast<double>(n) * u;
  if (nu >= 1) return std::numeric_limits<double>::infinity();
  return nu / (1 - nu);
}

}  // namespace mmref
