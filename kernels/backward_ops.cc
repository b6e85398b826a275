// Backward building blocks (see backward_ops.h): sums are products with a ones vector, so that the
// matmul's bound, special-value rules and exactness test apply to them unchanged.
#include "kernels/backward_ops.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace mmref {

namespace {

RefTensor Ones(int64_t n) {
  return MakeExact({n}, std::vector<double>(static_cast<size_t>(n), 1.0));
}

// The row-major rows of `t` (shape [rows, cols]) each summed: [rows].
RefTensor SumRows(const RefTensor& t, Arith arith) {
  return MatmulResult(t, Ones(t.shape[1]), arith);
}

int64_t Product(const std::vector<int64_t>& dims, size_t from, size_t to) {
  int64_t n = 1;
  for (size_t i = from; i < to; ++i) n *= dims[i];
  return n;
}

}  // namespace

RefTensor SumTerms(const std::vector<RefTensor>& terms, Arith arith) {
  if (terms.size() == 1) return terms[0];
  // [numel, n]: element i's terms in a row.
  const int64_t n = static_cast<int64_t>(terms.size()), numel = terms[0].numel();
  RefTensor stacked;
  stacked.shape = {numel, n};
  stacked.val.resize(static_cast<size_t>(numel * n));
  stacked.err.resize(stacked.val.size());
  for (int64_t t = 0; t < n; ++t)
    for (int64_t i = 0; i < numel; ++i) {
      size_t at = static_cast<size_t>(i * n + t);
      stacked.val[at] = terms[t].val[i];
      stacked.err[at] = terms[t].err[i];
      if (terms[t].Also(i)) stacked.SetAlso(at, terms[t].Also(i));
    }
  RefTensor r = SumRows(stacked, arith);
  r.shape = terms[0].shape;
  return r;
}

RefTensor SumTo(const RefTensor& g, const std::vector<int64_t>& shape, Arith arith) {
  const size_t rank = g.shape.size(), lead = rank - shape.size();
  std::vector<int64_t> kept, summed;
  for (size_t d = 0; d < rank; ++d) {
    bool sums = d < lead || (shape[d - lead] == 1 && g.shape[d] != 1);
    (sums ? summed : kept).push_back(static_cast<int64_t>(d));
  }
  if (summed.empty()) return Reshape(g, shape);
  std::vector<int64_t> order = kept;
  order.insert(order.end(), summed.begin(), summed.end());
  RefTensor t = Permute(g, order);
  std::vector<int64_t> sizes = t.shape;
  t = Reshape(t, {Product(sizes, 0, kept.size()), Product(sizes, kept.size(), sizes.size())});
  return Reshape(SumRows(t, arith), shape);
}

RefTensor SliceBackward(const RefTensor& g, const std::vector<int64_t>& in_shape, int64_t dim,
                        int64_t start, int64_t step) {
  RefTensor r = MakeExact(
      in_shape,
      std::vector<double>(static_cast<size_t>(Product(in_shape, 0, in_shape.size())), 0.0));
  const size_t d = static_cast<size_t>(dim);
  const int64_t outer = Product(g.shape, 0, d), inner = Product(g.shape, d + 1, g.shape.size());
  const int64_t taken = g.shape[d], size = in_shape[d];
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t j = 0; j < taken; ++j)
      for (int64_t i = 0; i < inner; ++i) {
        size_t from = static_cast<size_t>((o * taken + j) * inner + i);
        size_t to = static_cast<size_t>((o * size + start + j * step) * inner + i);
        r.val[to] = g.val[from];
        r.err[to] = g.err[from];
        if (g.Also(from)) r.SetAlso(to, g.Also(from));
      }
  return r;
}

RefTensor SoftmaxBackward(const RefTensor& y_in, const RefTensor& g_in, int64_t dim, Arith arith) {
  const bool scalar = y_in.shape.empty();
  RefTensor y = scalar ? Reshape(y_in, {1}) : y_in, g = scalar ? Reshape(g_in, {1}) : g_in;
  const size_t rank = y.shape.size(), d = static_cast<size_t>(dim);
  // The softmax dim last: rows of n.
  std::vector<int64_t> order;
  for (size_t i = 0; i < rank; ++i)
    if (i != d) order.push_back(static_cast<int64_t>(i));
  order.push_back(dim);
  RefTensor yp = Permute(y, order), gp = Permute(g, order);
  const int64_t n = y.shape[d], rows = n == 0 ? 0 : yp.numel() / n;
  // Σ_j g_j y_j per row: [rows, 1, n] @ [rows, n, 1].
  RefTensor s = Matmul(Reshape(gp, {rows, 1, n}), Reshape(yp, {rows, n, 1}), arith);
  RefTensor r = yp;
  const double u = UnitRoundoff(arith.out), tiny = MinSubnormal(arith.out),
               big = MaxFinite(arith.out);
  for (int64_t row = 0; row < rows; ++row)
    for (int64_t j = 0; j < n; ++j) {
      const size_t i = static_cast<size_t>(row * n + j), si = static_cast<size_t>(row);
      const double yv = yp.val[i], ye = yp.err[i], gv = gp.val[i], ge = gp.err[i];
      const double sv = s.val[si], se = s.err[si];
      const double t = gv - sv;
      const double te = ge + se + u * (std::fabs(gv) + std::fabs(sv) + ge + se);
      const double v = yv * t;
      double e = std::fabs(yv) * te + std::fabs(t) * ye + ye * te;
      e += u * (std::fabs(v) + e) + tiny;
      bool known = std::isfinite(yv) && std::isfinite(gv) && std::isfinite(sv) &&
                   std::isfinite(e) && !yp.Also(i) && !gp.Also(i) && !s.Also(si) &&
                   std::fabs(v) + e <= big && std::fabs(gv) + std::fabs(sv) + te <= big;
      r.val[i] = known ? v : std::numeric_limits<double>::quiet_NaN();
      r.err[i] = known ? e : std::numeric_limits<double>::infinity();
      if (!r.also.empty()) r.also[i] = 0;
    }
  std::vector<int64_t> inverse(rank);
  for (size_t i = 0; i < rank; ++i)
    inverse[static_cast<size_t>(order[i])] = static_cast<int64_t>(i);
  RefTensor out = Permute(r, inverse);
  return scalar ? Reshape(out, {}) : out;
}

RefTensor Unjudged(const std::vector<int64_t>& shape) {
  RefTensor r;
  r.shape = shape;
  r.val.assign(static_cast<size_t>(Product(shape, 0, shape.size())),
               std::numeric_limits<double>::quiet_NaN());
  r.err.assign(r.val.size(), std::numeric_limits<double>::infinity());
  return r;
}

namespace {

// alpha * Σ over the summed batch dims of x @ y, for x: batch + [M, R] and y: batch + [R, N] with
// the full (broadcast) batch, reduced to `keep` (batch dims of the operand, right-aligned, 1 or
// absent where summed): the summed batch folded into R.
RefTensor FoldedProduct(const RefTensor& x, const RefTensor& y, const std::vector<int64_t>& keep,
                        double alpha, Arith arith) {
  const size_t nb = x.shape.size() - 2, lead = nb - keep.size();
  std::vector<int64_t> kept, summed;
  for (size_t d = 0; d < nb; ++d) {
    bool sums = d < lead || (keep[d - lead] == 1 && x.shape[d] != 1);
    (sums ? summed : kept).push_back(static_cast<int64_t>(d));
  }
  const int64_t m = x.shape[nb], r = x.shape[nb + 1], n = y.shape[nb + 1];
  int64_t s = 1;  // the summed batch's size
  for (int64_t d : summed) s *= x.shape[d];
  std::vector<int64_t> kept_sizes;
  for (int64_t d : kept) kept_sizes.push_back(x.shape[d]);
  // x: [kept..., M, summed..., R] -> [kept..., M, S*R]; y: [kept..., summed..., R, N] -> [kept...,
  // S*R, N].
  std::vector<int64_t> xo = kept, yo = kept;
  xo.push_back(static_cast<int64_t>(nb));
  xo.insert(xo.end(), summed.begin(), summed.end());
  xo.push_back(static_cast<int64_t>(nb + 1));
  yo.insert(yo.end(), summed.begin(), summed.end());
  yo.push_back(static_cast<int64_t>(nb));
  yo.push_back(static_cast<int64_t>(nb + 1));
  std::vector<int64_t> xs = kept_sizes, ys = kept_sizes;
  xs.insert(xs.end(), {m, s * r});
  ys.insert(ys.end(), {s * r, n});
  RefTensor xf = Reshape(Permute(x, xo), xs), yf = Reshape(Permute(y, yo), ys);
  Arith use = s > 1 ? Arith{arith.out, arith.out} : arith;
  return Addmm(MakeExact({}, {0.0}), xf, yf, alpha, 0.0, use);
}

std::vector<int64_t> Batch(const std::vector<int64_t>& shape) {
  return {shape.begin(), shape.end() - 2};
}

std::vector<int64_t> BroadcastBatch(const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
  std::vector<int64_t> out(std::max(a.size(), b.size()), 1);
  for (size_t i = 0; i < out.size(); ++i) {
    int64_t x = i < out.size() - a.size() ? 1 : a[i - (out.size() - a.size())];
    int64_t y = i < out.size() - b.size() ? 1 : b[i - (out.size() - b.size())];
    out[i] = x == 1 ? y : x;
  }
  return out;
}

std::vector<int64_t> With(std::vector<int64_t> batch, int64_t r, int64_t c) {
  batch.push_back(r);
  batch.push_back(c);
  return batch;
}

}  // namespace

void ProductBackward(const RefTensor& a, const RefTensor& b, const RefTensor& g, double alpha,
                     Arith arith, RefTensor* da, RefTensor* db) {
  const bool a1 = a.shape.size() == 1, b1 = b.shape.size() == 1;
  RefTensor a2 = a1 ? Reshape(a, {1, a.shape[0]}) : a;
  RefTensor b2 = b1 ? Reshape(b, {b.shape[0], 1}) : b;
  const int64_t m = a2.shape[a2.shape.size() - 2], k = a2.shape.back(), n = b2.shape.back();
  std::vector<int64_t> batch = BroadcastBatch(Batch(a2.shape), Batch(b2.shape));
  RefTensor g2 = Reshape(g, With(batch, m, n));
  RefTensor ax = Expand(a2, With(batch, m, k)), bx = Expand(b2, With(batch, k, n));
  if (da) {  // g @ bᵀ: [batch, M, N] @ [batch, N, K]
    RefTensor r = FoldedProduct(g2, TransposeLast2(bx), Batch(a2.shape), alpha, arith);
    *da = Reshape(r, a.shape);
  }
  if (db) {  // aᵀ @ g: [batch, K, M] @ [batch, M, N]
    RefTensor r = FoldedProduct(TransposeLast2(ax), g2, Batch(b2.shape), alpha, arith);
    *db = Reshape(r, b.shape);
  }
}

}  // namespace mmref
