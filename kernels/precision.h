// Floating-point formats the reference engine models: exact rounding to each, unit roundoff, range.
#pragma once

#include <cstdint>

namespace mmref {

enum class Format { kF64, kF32, kF16, kBF16, kI8, kU8, kI32, kI64, kBool };

// True for the integer formats and bool: values are exact integers, arithmetic wraps.
bool IsInteger(Format f);

// Unit roundoff u = 2^-p (half an ulp at 1); 0 for integer formats.
double UnitRoundoff(Format f);
// Largest finite value (the largest integer for integer formats; 1 for bool).
double MaxFinite(Format f);
// Smallest value of an integer format (0 for uint8 and bool); -MaxFinite for floats.
double MinValue(Format f);
// Smallest positive subnormal (0 for integer formats).
double MinSubnormal(Format f);
// Smallest positive normal (0 for integer formats): 2^-126 in float32.
double MinNormal(Format f);
// Round-to-nearest-even of x into float format f, returned as a double (overflow gives ±inf, NaN
// stays NaN). For integer formats: the conversion torch performs from an in-range float (truncation
// toward zero; bool is x != 0) — callers check the range, out of range is undefined behaviour.
double RoundTo(Format f, double x);
// What torch's conversion of a float64 value to format f gives: float16 and bfloat16 go through
// float32 first (c10::Half and c10::BFloat16 are built from float), so they may round twice.
double TorchConvertFromDouble(Format f, double x);
// Two's-complement wrap of an exact integer into an integer format (what integer arithmetic in that
// format yields); bool is x != 0.
int64_t WrapTo(Format f, int64_t x);
// gamma_n = n*u / (1 - n*u): the classic bound on relative error of an n-term sum (inf if n*u >=
// 1).
double Gamma(long n, double u);

}  // namespace mmref
