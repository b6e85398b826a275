// What one element of a correct result may be, as IEEE 754 determines it: a finite range, +inf,
// -inf, NaN, or a set of these. The reference keeps it per element (RefTensor's val, err, also);
// these are the rules for products, sums and scaling of such sets.
#pragma once

#include <cmath>
#include <cstdint>

#include "kernels/ref_tensor.h"

namespace mmref {

// The possible outcomes of one element: finite (its range in v, e), +inf, -inf, NaN; and of the
// finite range, whether it holds positive values, negative values, zero.
struct Outcomes {
  bool fin = false, pos = false, neg = false, nan = false;
  bool fin_pos = false, fin_neg = false, fin_zero = false;
};

// The outcomes of an element val / err / also (see RefTensor).
inline Outcomes OutcomesOf(double v, double e, uint8_t also) {
  Outcomes o;
  if (std::isinf(e) || std::isnan(e)) {
    o.fin = o.pos = o.neg = o.nan = o.fin_pos = o.fin_neg = o.fin_zero = true;
    return o;
  }
  if (std::isfinite(v)) {
    o.fin = true;
    o.fin_pos = v + e > 0;
    o.fin_neg = v - e < 0;
    o.fin_zero = std::fabs(v) <= e;
  } else if (std::isnan(v)) {
    o.nan = true;
  } else {
    (v > 0 ? o.pos : o.neg) = true;
  }
  o.pos |= (also & kAlsoPosInf) != 0;
  o.neg |= (also & kAlsoNegInf) != 0;
  o.nan |= (also & kAlsoNaN) != 0;
  return o;
}

// x * y, for the special outcomes (a finite product's own overflow is the caller's magnitude
// check): inf * 0 and NaN * anything are NaN, inf * nonzero is an infinity of the product's sign.
inline Outcomes TimesOutcomes(const Outcomes& x, const Outcomes& y) {
  Outcomes t;
  t.fin = x.fin && y.fin;
  t.nan = x.nan || y.nan || ((x.pos || x.neg) && y.fin_zero) || ((y.pos || y.neg) && x.fin_zero);
  t.pos = (x.pos && (y.fin_pos || y.pos)) || (x.neg && (y.fin_neg || y.neg)) ||
          (y.pos && x.fin_pos) || (y.neg && x.fin_neg);
  t.neg = (x.pos && (y.fin_neg || y.neg)) || (x.neg && (y.fin_pos || y.pos)) ||
          (y.pos && x.fin_neg) || (y.neg && x.fin_pos);
  return t;
}

// A sum's special outcomes, term by term: the sum is finite only if every term is; any NaN term, or
// +inf and -inf terms together, give NaN; otherwise an infinite term gives its infinity.
struct SumOutcomes {
  bool fin = true, pos = false, neg = false, nan = false;
  // A term that is certainly NaN, +inf, -inf: the sum can then be nothing else (NaN beats both).
  bool must_nan = false, must_pos = false, must_neg = false;
  void Add(const Outcomes& t) {
    fin = fin && t.fin;
    pos = pos || t.pos;
    neg = neg || t.neg;
    nan = nan || t.nan;
    if (!t.fin) {
      must_nan = must_nan || (t.nan && !t.pos && !t.neg);
      must_pos = must_pos || (t.pos && !t.neg && !t.nan);
      must_neg = must_neg || (t.neg && !t.pos && !t.nan);
    }
  }
  // The finite terms' partial sums may overflow to +inf (pos_overflow) or -inf (neg_overflow).
  void Overflow(bool pos_overflow, bool neg_overflow) {
    pos = pos || pos_overflow;
    neg = neg || neg_overflow;
  }
  bool Special() const { return !fin || pos || neg || nan; }
};

// Writes the element: the finite range (fin_v, fin_e) where a finite result is possible, else
// the one special outcome in val (NaN first) with err 0; the other possible specials in also.
inline void EncodeOutcomes(const SumOutcomes& in, double fin_v, double fin_e, double& v, double& e,
                           uint8_t& also) {
  SumOutcomes s = in;
  bool nan = s.nan || (s.pos && s.neg);
  if (s.must_nan || (s.must_pos && s.must_neg)) {
    s.pos = s.neg = false;
    nan = true;
  } else if (s.must_pos) {
    s.neg = false;  // +inf + anything finite or +inf is +inf; with -inf it is NaN, never -inf
  } else if (s.must_neg) {
    s.pos = false;
  }
  also = static_cast<uint8_t>((s.pos ? kAlsoPosInf : 0) | (s.neg ? kAlsoNegInf : 0) |
                              (nan ? kAlsoNaN : 0));
  if (s.fin) {
    v = fin_v;
    e = fin_e;
    return;
  }
  e = 0;
  if (nan) {
    v = NAN;
    also &= static_cast<uint8_t>(~kAlsoNaN);
  } else if (s.pos) {
    v = INFINITY;
    also &= static_cast<uint8_t>(~kAlsoPosInf);
  } else if (s.neg) {
    v = -INFINITY;
    also &= static_cast<uint8_t>(~kAlsoNegInf);
  } else {  // nothing possible: cannot happen for a sum of terms; say unknown rather than guess
    v = NAN;
    e = INFINITY;
  }
}

// s * x for a finite scalar s, as special outcomes: a negative s swaps the infinities, s == 0 turns
// them into NaN.
inline uint8_t ScaledAlso(uint8_t also, double s) {
  uint8_t nan = also & kAlsoNaN, pos = also & kAlsoPosInf, neg = also & kAlsoNegInf;
  if (s > 0) return also;
  if (s < 0) return static_cast<uint8_t>(nan | (pos ? kAlsoNegInf : 0) | (neg ? kAlsoPosInf : 0));
  return (pos || neg) ? static_cast<uint8_t>(kAlsoNaN) : nan;
}

}  // namespace mmref
