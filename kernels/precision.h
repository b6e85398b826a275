// Floating-point formats the reference engine models: exact rounding to each, unit roundoff, range.
#pragma once

namespace mmref {

enum class Format { kF64, kF32, kF16, kBF16 };

// Unit roundoff u = 2^-p (half an ulp at 1).
double UnitRoundoff(Format f);
double MaxFinite(Format f);
// Smallest positive subnormal.
double MinSubnormal(Format f);
// Round-to-nearest-even of x into format f, returned as a double (overflow gives ±inf, NaN stays NaN).
double RoundTo(Format f, double x);
// gamma_n = n*u / (1 - n*u): the classic bound on relative error of an n-term sum (inf if n*u >= 1).
double Gamma(long n, double u);

}  // namespace mmref
