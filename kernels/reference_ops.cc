// Reference matmul family: obviously-correct loops, float64 compensated accumulation, error bounds.
#include "kernels/reference_ops.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace mmref {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Row-major strides; broadcast dims (size 1 against a larger size) get stride 0.
std::vector<int64_t> BroadcastStrides(const std::vector<int64_t>& shape, const std::vector<int64_t>& to) {
  std::vector<int64_t> st(to.size(), 0);
  int64_t s = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    size_t j = i + (to.size() - shape.size());
    st[j] = (shape[i] == 1 && to[j] != 1) ? 0 : s;
    s *= shape[i];
  }
  return st;
}

// Per-element accumulation: the reference value (compensated sum), the bound propagated from the
// operands' own errors, and the magnitude sum Σ(|a|+ea)(|b|+eb) that rounding errors scale with.
struct Dot {
  double val = 0, comp = 0, propagated = 0, mag = 0;
  bool any_inf_err = false;
  void Add(double a, double ea, double b, double eb) {
    if (std::isinf(ea) || std::isinf(eb)) any_inf_err = true;
    double p = a * b;
    double t = val + p;  // Neumaier's variant of Kahan summation
    comp += std::fabs(val) >= std::fabs(p) ? (val - t) + p : (p - t) + val;
    val = t;
    propagated += std::fabs(a) * eb + ea * std::fabs(b) + ea * eb;
    mag += (std::fabs(a) + ea) * (std::fabs(b) + eb);
  }
  double Value() const { return val + comp; }
};

// Final bound of one output element: error inherited from the operands, accumulation rounding
// (gamma_K in the accumulation format, plus float64's own), and the final rounding to `out`.
double Bound(const Dot& d, double value, long k, Arith arith, double extra_rounding_mag = 0) {
  if (d.any_inf_err) return kInf;
  double acc = (Gamma(k, UnitRoundoff(arith.acc)) + Gamma(k, UnitRoundoff(Format::kF64))) *
               (d.mag + extra_rounding_mag);
  double before_round = d.propagated + acc;
  double bound = before_round + UnitRoundoff(arith.out) * (std::fabs(value) + before_round) +
                 MinSubnormal(arith.out);
  if (std::fabs(value) + bound > MaxFinite(arith.out)) return kInf;  // may overflow: anything goes
  return bound;
}

struct MatmulPlan {
  std::vector<int64_t> batch, out_shape;
  std::vector<int64_t> a_bstride, b_bstride;
  int64_t m, k, n;
  int64_t a_rs, a_cs, b_rs, b_cs;  // row/col strides inside one matrix
};

MatmulPlan Plan(const RefTensor& a, const RefTensor& b) {
  std::vector<int64_t> as = a.shape, bs = b.shape;
  bool a_vec = as.size() == 1, b_vec = bs.size() == 1;
  if (a_vec) as.insert(as.begin(), 1);
  if (b_vec) bs.push_back(1);
  MatmulPlan p;
  p.m = as[as.size() - 2];
  p.k = as.back();
  p.n = bs.back();
  std::vector<int64_t> ab(as.begin(), as.end() - 2), bb(bs.begin(), bs.end() - 2);
  size_t nb = std::max(ab.size(), bb.size());
  p.batch.assign(nb, 1);
  for (size_t i = 0; i < nb; ++i) {
    int64_t da = i < nb - ab.size() ? 1 : ab[i - (nb - ab.size())];
    int64_t db = i < nb - bb.size() ? 1 : bb[i - (nb - bb.size())];
    p.batch[i] = std::max(da, db);
    if (da == 0 || db == 0) p.batch[i] = 0;
  }
  // Batch strides in units of whole matrices.
  std::vector<int64_t> a_batch_st = BroadcastStrides(ab, p.batch), b_batch_st = BroadcastStrides(bb, p.batch);
  for (auto& s : a_batch_st) s *= p.m * p.k;
  for (auto& s : b_batch_st) s *= p.k * p.n;
  p.a_bstride = a_batch_st;
  p.b_bstride = b_batch_st;
  p.a_rs = p.k;
  p.a_cs = 1;
  p.b_rs = p.n;
  p.b_cs = 1;
  p.out_shape = p.batch;
  if (!a_vec) p.out_shape.push_back(p.m);
  if (!b_vec) p.out_shape.push_back(p.n);
  return p;
}

// Calls f(out_index, Dot) for each output element of a broadcast matmul.
template <typename F>
void ForEachDot(const RefTensor& a, const RefTensor& b, const MatmulPlan& p, F&& f) {
  int64_t batches = 1;
  for (int64_t d : p.batch) batches *= d;
  std::vector<int64_t> idx(p.batch.size(), 0);
  int64_t out = 0;
  for (int64_t bi = 0; bi < batches; ++bi) {
    int64_t a_off = 0, b_off = 0;
    for (size_t d = 0; d < idx.size(); ++d) {
      a_off += idx[d] * p.a_bstride[d];
      b_off += idx[d] * p.b_bstride[d];
    }
    for (int64_t i = 0; i < p.m; ++i) {
      for (int64_t j = 0; j < p.n; ++j) {
        Dot dot;
        for (int64_t kk = 0; kk < p.k; ++kk) {
          int64_t ia = a_off + i * p.a_rs + kk * p.a_cs, ib = b_off + kk * p.b_rs + j * p.b_cs;
          dot.Add(a.val[ia], a.err[ia], b.val[ib], b.err[ib]);
        }
        f(out++, dot);
      }
    }
    for (size_t d = idx.size(); d-- > 0;) {
      if (++idx[d] < p.batch[d]) break;
      idx[d] = 0;
    }
  }
}

}  // namespace

RefTensor MakeExact(std::vector<int64_t> shape, std::vector<double> values) {
  RefTensor t;
  t.shape = std::move(shape);
  t.err.assign(values.size(), 0.0);
  t.val = std::move(values);
  return t;
}

RefTensor Matmul(const RefTensor& a, const RefTensor& b, Arith arith) {
  MatmulPlan p = Plan(a, b);
  RefTensor r;
  r.shape = p.out_shape;
  r.val.resize(static_cast<size_t>(r.numel()));
  r.err.resize(r.val.size());
  ForEachDot(a, b, p, [&](int64_t o, const Dot& d) {
    // The unrounded value: the bound covers the rounding to arith.out a correct path performs.
    r.val[o] = d.Value();
    r.err[o] = Bound(d, r.val[o], static_cast<long>(p.k), arith);
  });
  return r;
}

RefTensor AddScaled(const RefTensor& bias, const RefTensor& product, double alpha, double beta, Arith arith) {
  RefTensor r;
  r.shape = product.shape;
  r.val.resize(product.val.size());
  r.err.resize(product.val.size());
  std::vector<int64_t> bst = BroadcastStrides(bias.shape, r.shape);
  std::vector<int64_t> idx(r.shape.size(), 0);
  for (size_t o = 0; o < r.val.size(); ++o) {
    int64_t bi = 0;
    for (size_t d = 0; d < idx.size(); ++d) bi += idx[d] * bst[d];
    double c = beta == 0 ? 0.0 : bias.val[bi];
    double ec = beta == 0 ? 0.0 : bias.err[bi];
    double p = product.val[o], ep = product.err[o];
    double v = beta * c + alpha * p;
    double terms = std::fabs(beta * c) + std::fabs(alpha * p);
    double before_round = std::fabs(beta) * ec + std::fabs(alpha) * ep + Gamma(2, UnitRoundoff(arith.acc)) * terms;
    double bound = before_round + UnitRoundoff(arith.out) * (std::fabs(v) + before_round) + MinSubnormal(arith.out);
    if (std::isinf(ep) || std::isinf(ec) || std::isnan(c) || std::fabs(v) + bound > MaxFinite(arith.out)) bound = kInf;
    r.val[o] = v;
    r.err[o] = bound;
    for (size_t d = idx.size(); d-- > 0;) {
      if (++idx[d] < r.shape[d]) break;
      idx[d] = 0;
    }
  }
  return r;
}

RefTensor Addmm(const RefTensor& bias, const RefTensor& a, const RefTensor& b, double alpha, double beta,
                Arith arith) {
  return AddScaled(bias, Matmul(a, b, arith), alpha, beta, arith);
}

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
      }
  b_out = b;  // (b, k, p) row-major is already (b*k, p)
  b_out.shape = {nb * k, p};
}

namespace {
// out[i] = a[offset + Σ idx_d * strides[d]] over the row-major indices of `shape`.
RefTensor Strided(const RefTensor& a, const std::vector<int64_t>& shape, const std::vector<int64_t>& strides,
                  int64_t offset) {
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

namespace {
// The bound of one elementwise result: inherited error plus one rounding to `out`.
double ElementwiseBound(double v, double inherited, Format out) {
  if (std::isinf(inherited) || std::isnan(v)) return kInf;
  double bound = inherited + UnitRoundoff(out) * (std::fabs(v) + inherited) + MinSubnormal(out);
  return std::fabs(v) + bound > MaxFinite(out) ? kInf : bound;
}
}  // namespace

RefTensor Add(const RefTensor& a, const RefTensor& b, const std::vector<int64_t>& shape, Format out) {
  RefTensor x = Expand(a, shape), y = Expand(b, shape), r;
  r.shape = shape;
  r.val.resize(x.val.size());
  r.err.resize(x.val.size());
  for (size_t i = 0; i < x.val.size(); ++i) {
    r.val[i] = x.val[i] + y.val[i];
    r.err[i] = ElementwiseBound(r.val[i], x.err[i] + y.err[i], out);
  }
  return r;
}

RefTensor Scale(const RefTensor& a, double s, Format out) {
  RefTensor r = a;
  for (size_t i = 0; i < a.val.size(); ++i) {
    r.val[i] = s * a.val[i];
    r.err[i] = ElementwiseBound(r.val[i], std::fabs(s) * a.err[i], out);
  }
  return r;
}

RefTensor Cast(const RefTensor& a, Format to) {
  RefTensor r;
  r.shape = a.shape;
  r.val.resize(a.val.size());
  r.err.resize(a.val.size());
  for (size_t i = 0; i < a.val.size(); ++i) {
    double v = RoundTo(to, a.val[i]);
    double e = a.err[i];
    r.val[i] = v;
    // An exact input rounds identically everywhere; an inexact one may round to a neighbour.
    r.err[i] = e == 0 ? 0.0 : e + UnitRoundoff(to) * (2 * std::fabs(a.val[i]) + e) + MinSubnormal(to);
    if (std::isinf(v) && e != 0) r.err[i] = kInf;
  }
  return r;
}

}  // namespace mmref
