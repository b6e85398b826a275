// Reference softmax and attention.
#include "kernels/attention_ops.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace mmref {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

}  // namespace

RefTensor RepeatHeads(const RefTensor& t, int64_t heads) {
  size_t rank = t.shape.size();
  if (rank < 3 || t.shape[rank - 3] == heads || t.shape[rank - 3] == 0) return t;
  int64_t h = t.shape[rank - 3], group = heads / h, mat = t.shape[rank - 2] * t.shape[rank - 1];
  int64_t outer = 1;
  for (size_t i = 0; i + 3 < rank; ++i) outer *= t.shape[i];
  RefTensor r;
  r.shape = t.shape;
  r.shape[rank - 3] = heads;
  r.val.resize(static_cast<size_t>(outer * heads * mat));
  r.err.resize(r.val.size());
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t hh = 0; hh < heads; ++hh)
      for (int64_t x = 0; x < mat; ++x) {
        int64_t src = (o * h + hh / group) * mat + x, dst = (o * heads + hh) * mat + x;
        r.val[dst] = t.val[src];
        r.err[dst] = t.err[src];
        if (!t.also.empty()) r.SetAlso(static_cast<size_t>(dst), t.also[static_cast<size_t>(src)]);
      }
  return r;
}

SoftmaxRounding SoftmaxRoundingFor(Arith arith) {
  return SoftmaxRounding{UnitRoundoff(arith.acc), UnitRoundoff(arith.out), MinNormal(arith.acc),
                         MinSubnormal(arith.out)};
}

SoftmaxRows SoftmaxRowsOf(const RefTensor& a, int64_t dim) {
  if (a.shape.empty()) return SoftmaxRows{1, 1, 1};  // a 0-d tensor: softmax of one element
  SoftmaxRows rows{a.shape[dim], 1, 1};
  for (size_t i = static_cast<size_t>(dim) + 1; i < a.shape.size(); ++i) rows.inner *= a.shape[i];
  for (size_t i = 0; i < static_cast<size_t>(dim); ++i) rows.outer *= a.shape[i];
  return rows;
}

RefTensor Softmax(const RefTensor& in, int64_t dim, Arith arith) {
  RefTensor unflagged;  // an element that may also be special: its row is unjudged
  if (!in.also.empty()) unflagged = WithoutAlso(in);
  const RefTensor& a = in.also.empty() ? in : unflagged;
  RefTensor r = a;
  SoftmaxRows rows = SoftmaxRowsOf(a, dim);
  SoftmaxRounding rounding = SoftmaxRoundingFor(arith);
  for (int64_t o = 0; o < rows.outer; ++o)
    for (int64_t in = 0; in < rows.inner; ++in)
      SoftmaxRowMath(a.val.data(), a.err.data(), r.val.data(), r.err.data(),
                     o * rows.n * rows.inner + in, rows.inner, rows.n, rounding);
  return r;
}

AttentionStages AttentionProbabilities(const RefTensor& q, const RefTensor& k, const RefTensor& v,
                                       const AttentionArgs& args, Arith arith,
                                       const Stages& stages) {
  auto matmul = stages.matmul ? stages.matmul : Matmul;
  auto softmax = stages.softmax ? stages.softmax : Softmax;
  int64_t e = q.shape.back();
  double scale = args.scale ? *args.scale : 1.0 / std::sqrt(static_cast<double>(e));
  double root = std::sqrt(std::fabs(scale));
  RefTensor kk = k, vv = v;
  if (args.enable_gqa && q.shape.size() >= 3) {
    int64_t heads = q.shape[q.shape.size() - 3];
    kk = RepeatHeads(k, heads);
    vv = RepeatHeads(v, heads);
  }
  // The math kernel scales q and k by sqrt(scale) in the input dtype; Scale's bound covers that
  // rounding, and its value is the fused kernel's exact product.
  RefTensor qs = Scale(q, root, arith.out), ks = Scale(kk, scale < 0 ? -root : root, arith.out);
  RefTensor scores = matmul(qs, TransposeLast2(ks), arith);
  // The fused kernels multiply q by k first and scale after: with |scale| < 1 that unscaled
  // product may overflow where the scaled one does not (float32 q 3, k 1.7e38, scale 0.125: +inf,
  // then NaN under a mask on torch 2.15.0 cpu). Where it may, the score may be special.
  // (Special values of q and k already make their scores special below.)
  RefTensor raw;  // only where the unscaled product can come near the range at all
  if (std::fabs(scale) < 1 &&
      MaxMagnitude(q) * MaxMagnitude(kk) * static_cast<double>(e) > MaxFinite(arith.acc) / 8)
    raw = Matmul(q, TransposeLast2(kk), arith);
  for (size_t i = 0; i < raw.val.size() && i < scores.val.size(); ++i)
    if (!std::isfinite(raw.val[i]) || std::isinf(raw.err[i]) || raw.Also(i))
      scores.SetAlso(i, kAlsoNaN);
  // The attention kernels (math, fused, flash) treat special scores differently (the math kernel's
  // -inf scores from values are not masks; online softmax rescales): a score that is or may be
  // special is unjudged, and so is its row below.
  for (size_t i = 0; i < scores.val.size(); ++i)
    if (!std::isfinite(scores.val[i]) || scores.Also(i)) {
      scores.val[i] = kNaN;
      scores.err[i] = kInf;
    }
  scores.also.clear();
  size_t rank = scores.shape.size();
  int64_t l = scores.shape[rank - 2], s = scores.shape[rank - 1];
  if (args.mask && !args.mask_is_bool) {
    RefTensor add = Expand(*args.mask, scores.shape);
    for (size_t i = 0; i < add.val.size();
         ++i)  // a mask of another dtype may be rounded to the query's first
      if (std::isfinite(add.val[i]) && add.err[i] == 0)
        add.err[i] = std::fabs(RoundTo(arith.out, add.val[i]) - add.val[i]);
    scores = Add(scores, add, scores.shape, arith.out);
  }
  if ((args.mask && args.mask_is_bool) || args.is_causal) {
    RefTensor keep = args.mask ? Expand(*args.mask, scores.shape) : scores;
    for (size_t i = 0; i < scores.val.size(); ++i) {
      int64_t row = static_cast<int64_t>(i) / s % l, col = static_cast<int64_t>(i) % s;
      bool masked = args.is_causal ? col > row : keep.val[i] == 0;
      if (!masked) continue;
      // Kernels fill masked scores with -inf or add -inf to them: a NaN or +inf score at a masked
      // place gives -inf one way and NaN the other.
      bool finite = std::isfinite(scores.val[i]) && !std::isinf(scores.err[i]);
      scores.val[i] = finite ? -kInf : kNaN;
      scores.err[i] = finite ? 0.0 : kInf;
    }
  }
  // A NaN or +inf score: the math kernel's softmax gives a NaN row, the fused kernel's online
  // softmax gives other values (0 on torch 2.15.0 cpu). Both are torch; the row is left unjudged.
  for (int64_t row = 0; s > 0 && row * s < static_cast<int64_t>(scores.val.size()); ++row) {
    bool odd = false;
    for (int64_t j = 0; j < s; ++j)
      odd |= std::isnan(scores.val[row * s + j]) || scores.val[row * s + j] == kInf;
    if (!odd) continue;
    for (int64_t j = 0; j < s; ++j) {
      scores.val[row * s + j] = kNaN;
      scores.err[row * s + j] = kInf;
    }
  }
  RefTensor probs = softmax(scores, static_cast<int64_t>(rank) - 1, arith);
  // A row with no key left to attend is 0 in torch's attention kernels (softmax alone gives NaN).
  for (int64_t row = 0; s > 0 && row * s < static_cast<int64_t>(probs.val.size()); ++row) {
    bool all_masked = true;
    for (int64_t j = 0; j < s && all_masked; ++j)
      all_masked = scores.val[row * s + j] == -kInf && scores.err[row * s + j] == 0;
    if (!all_masked) continue;
    for (int64_t j = 0; j < s; ++j) {
      probs.val[row * s + j] = 0;
      probs.err[row * s + j] = 0;
    }
  }
  return {qs, ks, vv, probs, root, scale < 0 ? -root : root};
}

RefTensor ScaledDotProductAttention(const RefTensor& q, const RefTensor& k, const RefTensor& v,
                                    const AttentionArgs& args, Arith arith, const Stages& stages) {
  auto matmul = stages.matmul ? stages.matmul : Matmul;
  const AttentionStages a = AttentionProbabilities(q, k, v, args, arith, stages);
  const int64_t e = q.shape.back(), s = a.probs.shape.empty() ? 0 : a.probs.shape.back();
  RefTensor out = matmul(a.probs, WithoutAlso(a.vv), arith);
  // A special value of v: the kernels may skip a masked key's product (0) or compute it (0 * inf).
  for (size_t i = 0; i < out.val.size(); ++i)
    if (!std::isfinite(out.val[i]) || out.Also(i)) out.err[i] = kInf;
  out.also.clear();
  // With no key (S = 0) or an empty head dim the products are empty, yet torch's kernels still
  // touch q: a NaN or an infinity there gives NaN outputs (torch 2.15.0 cpu, math and fused
  // kernels). So do near-max values: on torch 2.15.0 cpu, S = 0 with one element of q at -3.4e38
  // (float32) gives NaN in every output element, also in rows whose q is small.
  auto huge = [&](const RefTensor& t) {
    return std::any_of(t.val.begin(), t.val.end(),
                       [&](double x) { return std::fabs(x) > MaxFinite(arith.out) / 4; });
  };
  if ((s == 0 || e == 0) &&
      (HasSpecial(q) || HasSpecial(k) || HasSpecial(v) || huge(q) || huge(k) || huge(v)))
    for (double& err : out.err) err = kInf;
  return out;
}

}  // namespace mmref
