// Views (values copied with their bounds and special outcomes) and the elementwise glue: add,
// scale and casts, each element by the rules of kernels/value_set.h.
#include <algorithm>
#include <cmath>
#include <limits>

#include "kernels/ops_detail.h"
#include "kernels/reference_ops.h"
#include "kernels/value_set.h"

namespace mmref {

using detail::BroadcastStrides;
using detail::ElementwiseBound;
using detail::kInf;
using detail::SetInteger;
using detail::TwoTermSum;

RefTensor TransposeLast2(const RefTensor& a) {
  if (a.shape.size() < 2) return a;
  RefTensor r;
  r.shape = a.shape;
  std::swap(r.shape[r.shape.size() - 1], r.shape[r.shape.size() - 2]);
  r.val.resize(a.val.size());
  r.err.resize(a.val.size());
  int64_t rows = a.shape[a.shape.size() - 2], cols = a.shape.back();
  int64_t mats = rows * cols == 0 ? 0 : static_cast<int64_t>(a.val.size()) / (rows * cols);
  for (int64_t m = 0; m < mats; ++m)
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < cols; ++j) {
        r.val[m * rows * cols + j * rows + i] = a.val[m * rows * cols + i * cols + j];
        r.err[m * rows * cols + j * rows + i] = a.err[m * rows * cols + i * cols + j];
        if (!a.also.empty())
          r.SetAlso(m * rows * cols + j * rows + i, a.also[m * rows * cols + i * cols + j]);
      }
  return r;
}

void FoldBatchIntoK(const RefTensor& a, const RefTensor& b, RefTensor& a_out, RefTensor& b_out) {
  int64_t nb = a.shape[0], n = a.shape[1], k = a.shape[2], p = b.shape[2];
  a_out.shape = {n, nb * k};
  a_out.val.resize(a.val.size());
  a_out.err.resize(a.val.size());
  for (int64_t x = 0; x < nb; ++x)
    for (int64_t i = 0; i < n; ++i)
      for (int64_t kk = 0; kk < k; ++kk) {
        a_out.val[i * nb * k + x * k + kk] = a.val[(x * n + i) * k + kk];
        a_out.err[i * nb * k + x * k + kk] = a.err[(x * n + i) * k + kk];
        if (!a.also.empty()) a_out.SetAlso(i * nb * k + x * k + kk, a.also[(x * n + i) * k + kk]);
      }
  b_out = b;  // (b, k, p) row-major is already (b*k, p)
  b_out.shape = {nb * k, p};
}

namespace {
// out[i] = a[offset + Σ idx_d * strides[d]] over the row-major indices of `shape`.
RefTensor Strided(const RefTensor& a, const std::vector<int64_t>& shape,
                  const std::vector<int64_t>& strides, int64_t offset) {
  RefTensor r;
  r.shape = shape;
  int64_t n = r.numel();
  r.val.resize(static_cast<size_t>(n));
  r.err.resize(static_cast<size_t>(n));
  std::vector<int64_t> idx(shape.size(), 0);
  for (int64_t o = 0; o < n; ++o) {
    int64_t src = offset;
    for (size_t d = 0; d < idx.size(); ++d) src += idx[d] * strides[d];
    r.val[o] = a.val[src];
    r.err[o] = a.err[src];
    if (!a.also.empty()) r.SetAlso(o, a.also[src]);
    for (size_t d = idx.size(); d-- > 0;) {
      if (++idx[d] < shape[d]) break;
      idx[d] = 0;
    }
  }
  return r;
}

std::vector<int64_t> RowMajorStrides(const std::vector<int64_t>& shape) {
  std::vector<int64_t> st(shape.size(), 1);
  for (size_t i = shape.size(); i-- > 1;) st[i - 1] = st[i] * std::max<int64_t>(shape[i], 1);
  return st;
}
}  // namespace

RefTensor Permute(const RefTensor& a, const std::vector<int64_t>& dims) {
  std::vector<int64_t> st = RowMajorStrides(a.shape), shape, strides;
  for (int64_t d : dims) {
    shape.push_back(a.shape[d]);
    strides.push_back(st[d]);
  }
  return Strided(a, shape, strides, 0);
}

RefTensor Reshape(const RefTensor& a, const std::vector<int64_t>& shape) {
  RefTensor r = a;
  r.shape = shape;
  return r;
}

RefTensor Expand(const RefTensor& a, const std::vector<int64_t>& shape) {
  return Strided(a, shape, BroadcastStrides(a.shape, shape), 0);
}

RefTensor Narrow(const RefTensor& a, int64_t dim, int64_t start, int64_t length) {
  std::vector<int64_t> st = RowMajorStrides(a.shape), shape = a.shape;
  shape[dim] = length;
  return Strided(a, shape, st, start * st[dim]);
}

RefTensor Slice(const RefTensor& a, int64_t dim, int64_t start, int64_t end, int64_t step) {
  std::vector<int64_t> st = RowMajorStrides(a.shape), shape = a.shape, strides = st;
  shape[dim] = (end - start + step - 1) / step;
  strides[dim] *= step;
  return Strided(a, shape, strides, start * st[dim]);
}

namespace detail {
// The bound of one elementwise result: inherited error plus one rounding to `out`. A non-finite
// value computed from exact operands is exact (IEEE); an integer result wraps exactly. A finite
// result that may round beyond the format's range may also be that infinity (bits added to also).
double ElementwiseBound(double& v, double inherited, Format out, uint8_t& also) {
  if (std::isinf(inherited)) return kInf;
  if (IsInteger(out)) {
    if (inherited != 0 || !(std::fabs(v) < 0x1p62)) return kInf;
    double bound;
    SetInteger(static_cast<int64_t>(v), out, v, bound);
    return bound;
  }
  if (!std::isfinite(v)) return inherited == 0 ? 0 : kInf;
  double bound = inherited + UnitRoundoff(out) * (std::fabs(v) + inherited) + MinSubnormal(out);
  if (v + bound > MaxFinite(out)) also |= kAlsoPosInf;
  if (v - bound < -MaxFinite(out)) also |= kAlsoNegInf;
  return bound;
}
}  // namespace detail

RefTensor Add(const RefTensor& a, const RefTensor& b, const std::vector<int64_t>& shape,
              Format out) {
  RefTensor x = Expand(a, shape), y = Expand(b, shape), r;
  r.shape = shape;
  r.val.resize(x.val.size());
  r.err.resize(x.val.size());
  for (size_t i = 0; i < x.val.size(); ++i) {
    double sum = x.val[i] + y.val[i];
    if (IsInteger(out)) {
      r.val[i] = sum;
      bool finite = std::isfinite(x.val[i]) && std::isfinite(y.val[i]);
      uint8_t unused = 0;
      r.err[i] = ElementwiseBound(r.val[i], finite ? x.err[i] + y.err[i] : kInf, out, unused);
      continue;
    }
    // Two sets (special operands decide by IEEE rules); the finite sum rounds once. TwoTermSum adds
    // the overflow outcomes itself.
    uint8_t also = 0, overflow_unused = 0;
    double bound = 0;
    if (std::isfinite(sum))
      bound = ElementwiseBound(sum, x.err[i] + y.err[i], out, overflow_unused);
    TwoTermSum(x.val[i], x.err[i], x.Also(i), y.val[i], y.err[i], y.Also(i), sum, bound, kInf, out,
               r.val[i], r.err[i], also);
    r.SetAlso(i, also);
  }
  return r;
}

RefTensor Scale(const RefTensor& a, double s, Format out) {
  RefTensor r = a;
  for (size_t i = 0; i < a.val.size(); ++i) {
    r.val[i] = s * a.val[i];  // IEEE: s * inf is an infinity (NaN for s == 0), s * NaN is NaN
    uint8_t also = IsInteger(out) ? 0 : ScaledAlso(a.Also(i), s);
    r.err[i] = ElementwiseBound(
        r.val[i], std::isfinite(a.val[i]) ? std::fabs(s) * a.err[i] : a.err[i], out, also);
    r.SetAlso(i, also);
  }
  return r;
}

namespace {
// One element converted to an integer format: exact when every value within the error interval
// converts to the same integer; out of range (undefined behaviour in C++ and in torch) is unknown.
void CastToInteger(double x, double e, Format to, double& v, double& bound) {
  if (to == Format::kBool) {
    bool known = std::isnan(x) ? e == 0 : (std::fabs(x) > e || (x == 0 && e == 0));
    v = RoundTo(to, x);
    bound = known ? 0 : kInf;
    return;
  }
  double lo = std::trunc(x - e), hi = std::trunc(x + e);
  bool known =
      std::isfinite(x) && !std::isinf(e) && lo == hi && lo >= MinValue(to) && lo <= MaxFinite(to);
  v = known ? lo : std::trunc(x);
  bound = known ? 0 : kInf;
}
}  // namespace

RefTensor Cast(const RefTensor& a, Format to, Format from) {
  RefTensor r;
  r.shape = a.shape;
  r.val.resize(a.val.size());
  r.err.resize(a.val.size());
  for (size_t i = 0; i < a.val.size(); ++i) {
    double e = a.err[i];
    if (IsInteger(to) && IsInteger(from) && e == 0) {  // integer to integer wraps
      double bound;
      SetInteger(static_cast<int64_t>(a.val[i]), to, r.val[i], bound);
      r.err[i] = bound;
      continue;
    }
    if (IsInteger(to)) {
      CastToInteger(a.val[i], e, to, r.val[i], r.err[i]);
      if (a.Also(i)) r.err[i] = kInf;  // a special value into an integer is undefined
      continue;
    }
    // Eager converts float64 through float32 (two roundings); a direct conversion is as correct.
    double x = a.val[i], v = from == Format::kF64 ? TorchConvertFromDouble(to, x) : RoundTo(to, x);
    uint8_t also = a.Also(i);  // NaN and the infinities convert to themselves
    if (std::isfinite(x) && e != 0) {
      // An inexact input may round to a neighbour, or beyond the range to an infinity.
      if (x + e > MaxFinite(to)) also |= kAlsoPosInf;
      if (x - e < -MaxFinite(to)) also |= kAlsoNegInf;
      if (!std::isfinite(v)) v = std::copysign(MaxFinite(to), x);
      r.err[i] = e + UnitRoundoff(to) * (2 * std::fabs(x) + e) + MinSubnormal(to);
    } else {
      // An exact input rounds identically everywhere but for that choice of roundings.
      r.err[i] = std::isinf(e) ? kInf : std::fabs(RoundTo(to, x) - v);
      if (std::isnan(r.err[i])) r.err[i] = 0;  // NaN or infinity: converts to itself
    }
    r.val[i] = v;
    r.SetAlso(i, also);
  }
  return r;
}

RefTensor CastMaybeSkipped(const RefTensor& a, Format to, Format from) {
  RefTensor r = Cast(a, to, from);
  for (size_t i = 0; i < r.val.size(); ++i) {
    const double x = a.val[i];
    if (!std::isfinite(x) || std::isinf(r.err[i])) continue;  // a special value: itself either way
    if (std::fabs(x) + a.err[i] > MaxFinite(to) || !std::isfinite(r.val[i]) || r.Also(i)) {
      r.err[i] = kInf;
      continue;
    }
    r.err[i] = std::max(r.err[i], std::fabs(x - r.val[i]) + a.err[i]);
  }
  return r;
}

}  // namespace mmref
