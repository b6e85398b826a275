// Scaled dot-product attention's backward.
#include "kernels/attention_backward.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "kernels/backward_ops.h"

namespace mmref {

namespace {

// Gradients of heads repeated by RepeatHeads summed back to `heads` heads (dim rank-3): head h
// gets the sum over its group h·group … h·group + group − 1, bounded as SumTerms bounds a sum.
RefTensor SumRepeatedHeads(const RefTensor& t, int64_t heads, Arith arith) {
  const size_t rank = t.shape.size();
  if (rank < 3 || t.shape[rank - 3] == heads || heads == 0) return t;
  const int64_t all = t.shape[rank - 3], group = all / heads;
  const int64_t mat = t.shape[rank - 2] * t.shape[rank - 1];
  int64_t outer = 1;
  for (size_t i = 0; i + 3 < rank; ++i) outer *= t.shape[i];
  std::vector<RefTensor> terms;
  for (int64_t j = 0; j < group; ++j) {  // term j: repeated head h·group + j of each head h
    RefTensor part;
    part.shape = t.shape;
    part.shape[rank - 3] = heads;
    part.val.resize(static_cast<size_t>(outer * heads * mat));
    part.err.resize(part.val.size());
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t h = 0; h < heads; ++h)
        for (int64_t x = 0; x < mat; ++x) {
          const size_t src = static_cast<size_t>((o * all + h * group + j) * mat + x);
          const size_t dst = static_cast<size_t>((o * heads + h) * mat + x);
          part.val[dst] = t.val[src];
          part.err[dst] = t.err[src];
        }
    terms.push_back(std::move(part));
  }
  return SumTerms(terms, arith);
}

bool Unruly(const RefTensor& t, Arith arith) {
  return HasSpecial(t) || std::any_of(t.val.begin(), t.val.end(), [&](double x) {
           return std::fabs(x) > MaxFinite(arith.out) / 4;
         });
}

AttentionGrads AllUnjudged(const RefTensor& q, const RefTensor& k, const RefTensor& v,
                           const AttentionArgs& args) {
  AttentionGrads r{Unjudged(q.shape), Unjudged(k.shape), Unjudged(v.shape), {}};
  if (args.mask && !args.mask_is_bool) r.dmask = Unjudged(args.mask->shape);
  return r;
}

// The fused kernels (flash attention's backward) take softmax's Σ_j P_j dP_j of each row as
// rowsum(g ⊙ O) from the forward output O stored in arith.out, and the math kernel rounds P: with
// P near one-hot, dS = P ⊙ (dP − Σ) is a difference of nearly equal terms (seen on 2.15.0 cpu: a
// float16 dq of 9.2e-5 where float64 on the same rounded operands gives 0.0046, every path
// agreeing). Each dS element gets (P + its bound) times its row's difference between those sums:
// Σ_c |g_c| (bound of O_c + O_c rounded) + Σ_j |dP_j| (bound of P_j).
void AllowRowsumFromOutput(const AttentionStages& a, const RefTensor& g, const RefTensor& dp,
                           Arith arith, RefTensor& ds) {
  const RefTensor o = Matmul(a.probs, WithoutAlso(a.vv), arith);
  const int64_t s = ds.shape.empty() ? 1 : ds.shape.back();
  const int64_t ev = o.shape.empty() ? 1 : o.shape.back();
  const int64_t rows = s > 0 ? static_cast<int64_t>(ds.val.size()) / s : 0;
  if (static_cast<int64_t>(o.val.size()) != rows * ev || g.val.size() != o.val.size()) {
    for (double& e : ds.err) e = std::numeric_limits<double>::infinity();
    return;
  }
  const double u = UnitRoundoff(arith.out);
  for (int64_t r = 0; r < rows; ++r) {
    double slack = 0;
    for (int64_t c = 0; c < ev; ++c) {
      const size_t i = static_cast<size_t>(r * ev + c);
      slack += std::fabs(g.val[i]) * (o.err[i] + u * std::fabs(o.val[i]));
    }
    for (int64_t j = 0; j < s; ++j) {
      const size_t i = static_cast<size_t>(r * s + j);
      slack += std::fabs(dp.val[i]) * a.probs.err[i];
    }
    for (int64_t j = 0; j < s; ++j) {
      const size_t i = static_cast<size_t>(r * s + j);
      ds.err[i] += (std::fabs(a.probs.val[i]) + a.probs.err[i]) * slack;
    }
  }
}

}  // namespace

AttentionGrads ScaledDotProductAttentionBackward(const RefTensor& q, const RefTensor& k,
                                                 const RefTensor& v, const RefTensor& g,
                                                 const AttentionArgs& args, Arith arith) {
  const bool float_mask = args.mask && !args.mask_is_bool;
  if (q.shape.back() == 0 || k.shape.size() < 2 || k.shape[k.shape.size() - 2] == 0 ||
      Unruly(q, arith) || Unruly(k, arith) || Unruly(v, arith) || Unruly(g, arith) ||
      (float_mask && Unruly(*args.mask, arith)))
    return AllUnjudged(q, k, v, args);
  const AttentionStages a = AttentionProbabilities(q, k, v, args, arith);
  for (size_t i = 0; i < a.probs.val.size(); ++i)
    if (!std::isfinite(a.probs.val[i]) || std::isinf(a.probs.err[i]))
      return AllUnjudged(q, k, v, args);
  RefTensor dp, dvv, dqs, dkst;
  ProductBackward(a.probs, a.vv, g, 1.0, arith, &dp, &dvv);
  RefTensor ds =
      SoftmaxBackward(a.probs, dp, static_cast<int64_t>(a.probs.shape.size()) - 1, arith);
  AllowRowsumFromOutput(a, g, dp, arith, ds);
  ProductBackward(a.qs, TransposeLast2(a.ks), ds, 1.0, arith, &dqs, &dkst);
  AttentionGrads r;
  r.dq = Scale(dqs, a.q_factor, arith.out);
  const size_t rank = k.shape.size();
  const int64_t kv_heads = rank >= 3 ? k.shape[rank - 3] : 0;
  r.dk = SumRepeatedHeads(Scale(TransposeLast2(dkst), a.k_factor, arith.out), kv_heads, arith);
  r.dv = SumRepeatedHeads(dvv, v.shape.size() >= 3 ? v.shape[v.shape.size() - 3] : 0, arith);
  if (float_mask) r.dmask = SumTo(ds, args.mask->shape, arith);
  return r;
}

}  // namespace mmref
