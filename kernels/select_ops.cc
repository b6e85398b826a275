// Selection, masking and comparison ops, and the elementwise product and quotient: each result
// element is decided from its operands' elements alone (value, error, special outcomes).
#include "kernels/select_ops.h"

#include <cassert>
#include <cmath>

#include "kernels/ops_detail.h"
#include "kernels/reference_ops.h"
#include "kernels/value_set.h"

namespace mmref {

using detail::ElementwiseBound;
using detail::kInf;
using detail::SetInteger;

namespace {

// One element of a RefTensor, as a value.
struct Element {
  double val = 0, err = 0;
  uint8_t also = 0;
};
// Anything at all: the element is not judged.
constexpr Element kUnknown{0, kInf, 0};

Element At(const RefTensor& t, size_t i) { return {t.val[i], t.err[i], t.Also(i)}; }

// Writes element i of r.
void Put(RefTensor& r, size_t i, const Element& e) {
  r.val[i] = e.val;
  r.err[i] = e.err;
  r.SetAlso(i, e.also);
}

// A result of `shape`, every element zero, to be filled by Put.
RefTensor Blank(const std::vector<int64_t>& shape) {
  RefTensor r;
  r.shape = shape;
  r.val.resize(static_cast<size_t>(r.numel()));
  r.err.resize(r.val.size());
  return r;
}

// An element exact and free of special outcomes: IEEE arithmetic on it decides alone.
bool IsExact(const Element& x) { return x.err == 0 && x.also == 0; }

enum class Truth { kFalse, kTrue, kUnknown };

// A boolean (any non-zero value true) for every value the element may be. NaN and the infinities
// are non-zero, so a condition known to avoid 0 is true even if it may also be special.
Truth TruthOf(const Element& x) {
  if (!(x.err < kInf)) return Truth::kUnknown;  // +inf, or a NaN error
  if (!std::isfinite(x.val)) return x.err == 0 ? Truth::kTrue : Truth::kUnknown;
  if (std::fabs(x.val) > x.err) return Truth::kTrue;
  return x.val == 0 && IsExact(x) ? Truth::kFalse : Truth::kUnknown;
}

// `if_true` or `if_false` by the condition; unknown when the condition is.
Element Select(Truth t, const Element& if_true, const Element& if_false) {
  if (t == Truth::kUnknown) return kUnknown;
  return t == Truth::kTrue ? if_true : if_false;
}

}  // namespace

RefTensor Where(const RefTensor& cond, const RefTensor& x, const RefTensor& y,
                const std::vector<int64_t>& shape) {
  RefTensor c = Expand(cond, shape), a = Expand(x, shape), b = Expand(y, shape), r = Blank(shape);
  for (size_t i = 0; i < r.val.size(); ++i)
    Put(r, i, Select(TruthOf(At(c, i)), At(a, i), At(b, i)));
  return r;
}

RefTensor MaskedFill(const RefTensor& x, const RefTensor& mask, double value,
                     const std::vector<int64_t>& shape) {
  RefTensor a = Expand(x, shape), m = Expand(mask, shape), r = Blank(shape);
  // The fill value is a constant every implementation writes as is: exact even when special.
  const Element fill{value, 0, 0};
  for (size_t i = 0; i < r.val.size(); ++i) Put(r, i, Select(TruthOf(At(m, i)), fill, At(a, i)));
  return r;
}

namespace {

// Whether a special outcome in `also` may equal c: an infinity equals only itself, NaN nothing.
bool AlsoMayEqual(uint8_t also, double c) {
  return ((also & kAlsoPosInf) && c == kInf) || ((also & kAlsoNegInf) && c == -kInf);
}

// x == c for every value the element may be, or unknown when some are equal and some not.
Truth EqualsScalar(const Element& x, double c) {
  if (std::isnan(c)) return Truth::kFalse;  // NaN equals nothing, whatever x is
  if (!(x.err < kInf)) return Truth::kUnknown;
  if (IsExact(x) && x.val == c) return Truth::kTrue;
  if (AlsoMayEqual(x.also, c)) return Truth::kUnknown;
  // A computed |val - c| rounds monotonically: it exceeds err only if the exact one does.
  if (std::isfinite(x.val)) return std::fabs(x.val - c) > x.err ? Truth::kFalse : Truth::kUnknown;
  // NaN or an infinity other than c, exactly.
  return x.err == 0 && x.val != c ? Truth::kFalse : Truth::kUnknown;
}

}  // namespace

RefTensor EqScalar(const RefTensor& x, double c) {
  RefTensor r = Blank(x.shape);
  for (size_t i = 0; i < r.val.size(); ++i)
    Put(r, i, Select(EqualsScalar(At(x, i), c), Element{1, 0, 0}, Element{0, 0, 0}));
  return r;
}

RefTensor Tril(const RefTensor& x, int64_t diagonal) {
  assert(x.shape.size() >= 2);
  const int64_t rows = x.shape[x.shape.size() - 2], cols = x.shape.back();
  RefTensor r = x;
  // Row-major: element o is in column o % cols and row (o / cols) % rows of its matrix (no
  // element at all when cols is 0).
  for (size_t o = 0; o < r.val.size(); ++o) {
    const int64_t n = static_cast<int64_t>(o), j = n % cols, i = (n / cols) % rows;
    if (j - i > diagonal) Put(r, o, Element{0, 0, 0});
  }
  return r;
}

namespace {

// The float64 product or quotient v of finite values may already be rounded before the rounding
// to `out` (float32 and narrower operands multiply exactly; their quotients do not): one float64
// rounding more, a negligible slack where it is exact.
double Float64Rounding(double v) {
  return UnitRoundoff(Format::kF64) * std::fabs(v) + MinSubnormal(Format::kF64);
}

// A bound computed in float64 in a few operations, each rounding within u64 (relative): widened
// so that it still bounds the exact expression.
double Widened(double bound) { return bound * (1 + 8 * UnitRoundoff(Format::kF64)); }

// The integer a holds, when it holds one that int64 can.
bool ToInt64(double a, int64_t& i) {
  if (!(std::fabs(a) < 0x1p63) || std::trunc(a) != a) return false;
  i = static_cast<int64_t>(a);
  return true;
}

// An integer product, as the format's multiplication wraps it: the product modulo 2^64 (unsigned
// arithmetic, exact where a float64 product would not be) wrapped to the narrower format is the
// same. An inexact, special or non-integral operand leaves it unknown.
Element IntegerProduct(const Element& a, const Element& b, Format out) {
  int64_t x = 0, y = 0;
  if (!IsExact(a) || !IsExact(b) || !ToInt64(a.val, x) || !ToInt64(b.val, y))
    return {a.val * b.val, kInf, 0};
  const uint64_t wrapped = static_cast<uint64_t>(x) * static_cast<uint64_t>(y);
  Element r;
  SetInteger(static_cast<int64_t>(wrapped), out, r.val, r.err);
  return r;
}

// A floating product: the operands' outcome sets multiplied by IEEE rules (TimesOutcomes, as the
// matmul does per term), the finite product within the inherited error |a|eb + |b|ea + ea*eb plus
// the roundings, and what the finite product may overflow to. Exact operands give the IEEE product
// of their values (inf * 0 is NaN) exactly.
Element FloatProduct(const Element& a, const Element& b, Format out) {
  if (!(a.err < kInf) || !(b.err < kInf)) return kUnknown;
  SumOutcomes s;
  s.Add(TimesOutcomes(OutcomesOf(a.val, a.err, a.also), OutcomesOf(b.val, b.err, b.also)));
  double fin_v = 0, fin_e = 0;
  if (s.fin) {  // both values finite
    fin_v = a.val * b.val;
    if (!std::isfinite(fin_v)) {  // beyond float64's range, so beyond every format's
      if (IsExact(a) && IsExact(b)) return {fin_v, 0, 0};
      return kUnknown;  // a product near float64's limit with errors: not worth judging
    }
    double inherited = Widened(std::fabs(a.val) * b.err + std::fabs(b.val) * a.err + a.err * b.err);
    uint8_t overflow = 0;
    fin_e = ElementwiseBound(fin_v, inherited + Float64Rounding(fin_v), out, overflow);
    s.Overflow((overflow & kAlsoPosInf) != 0, (overflow & kAlsoNegInf) != 0);
  }
  Element r;
  EncodeOutcomes(s, fin_v, fin_e, r.val, r.err, r.also);
  return r;
}

// A floating quotient. Exact operands follow IEEE (x / ±0 a signed infinity, 0 / 0 and inf / inf
// NaN, x / inf a zero). With errors, |a/b - (a+da)/(b+db)| = |da - (a/b) db| / |b + db| <=
// (ea + |a/b| eb) / (|b| - eb) while the denominator's interval avoids 0. Special values meeting
// uncertainty are not followed (unknown: correct, if conservative).
Element FloatQuotient(const Element& a, const Element& b, Format out) {
  Element r{a.val / b.val, kInf, 0};
  const bool exact = IsExact(a) && IsExact(b);
  if (exact && !std::isfinite(r.val)) return {r.val, 0, 0};
  if (!exact && (a.also || b.also || !std::isfinite(a.val) || !std::isfinite(b.val))) return r;
  if (!(a.err < kInf) || !(b.err < kInf) || !(std::fabs(b.val) > b.err)) return r;
  if (!std::isfinite(r.val)) return r;  // an inexact quotient beyond float64's range
  // (|q| for |a/b|: the quotient's own rounding is within Widened's margin.)
  double inherited =
      exact ? 0 : Widened((a.err + std::fabs(r.val) * b.err) / (std::fabs(b.val) - b.err));
  r.err = ElementwiseBound(r.val, inherited + Float64Rounding(r.val), out, r.also);
  return r;
}

// f(a_i, b_i) over the operands broadcast to `shape`.
template <typename F>
RefTensor Binary(const RefTensor& a, const RefTensor& b, const std::vector<int64_t>& shape, F f) {
  RefTensor x = Expand(a, shape), y = Expand(b, shape), r = Blank(shape);
  for (size_t i = 0; i < r.val.size(); ++i) Put(r, i, f(At(x, i), At(y, i)));
  return r;
}

}  // namespace

RefTensor Mul(const RefTensor& a, const RefTensor& b, const std::vector<int64_t>& shape,
              Format out) {
  return Binary(a, b, shape, [out](const Element& x, const Element& y) {
    return IsInteger(out) ? IntegerProduct(x, y, out) : FloatProduct(x, y, out);
  });
}

RefTensor Div(const RefTensor& a, const RefTensor& b, const std::vector<int64_t>& shape,
              Format out) {
  assert(!IsInteger(out));  // true division always gives a floating result
  return Binary(a, b, shape,
                [out](const Element& x, const Element& y) { return FloatQuotient(x, y, out); });
}

}  // namespace mmref
