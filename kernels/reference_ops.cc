// Reference matmul family: obviously-correct loops, float64 compensated accumulation, error bounds.
#include "kernels/reference_ops.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <thread>

#include "kernels/dot_math.h"
#include "kernels/ops_detail.h"
#include "kernels/value_set.h"

namespace mmref {

using detail::BroadcastStrides;
using detail::kInf;
using detail::SetInteger;
using detail::TwoTermSum;

namespace detail {

std::vector<int64_t> BroadcastStrides(const std::vector<int64_t>& shape,
                                      const std::vector<int64_t>& to) {
  std::vector<int64_t> st(to.size(), 0);
  int64_t s = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    size_t j = i + (to.size() - shape.size());
    st[j] = (shape[i] == 1 && to[j] != 1) ? 0 : s;
    s *= shape[i];
  }
  return st;
}

void SetInteger(int64_t v, Format out, double& val, double& err) {
  int64_t w = WrapTo(out, v);
  val = static_cast<double>(w);
  err = (w > (int64_t{1} << 53) || w < -(int64_t{1} << 53)) ? kInf : 0.0;
}

}  // namespace detail

// Bound of one output element with a finite result: error inherited from the operands,
// accumulation rounding (gamma_K in the accumulation format, plus float64's own), and the final
// rounding to `out`. Whether the element may overflow instead is DotOverflow's question.
double MatmulBound(const DotAcc& d, double value, long k, Arith arith) {
  if (d.unknown) return kInf;
  double acc = (Gamma(k, UnitRoundoff(arith.acc)) + Gamma(k, UnitRoundoff(Format::kF64))) * d.mag;
  double before_round = d.propagated + acc;
  return before_round + UnitRoundoff(arith.out) * (std::fabs(value) + before_round) +
         MinSubnormal(arith.out);
}

void DotOverflow(const DotAcc& d, double value, double bound, Arith arith, bool& pos, bool& neg) {
  // mag bounds the sum of |terms|, so (mag + value) / 2 bounds the sum of the positive terms and
  // (mag - value) / 2 that of the negative ones: every partial sum, in any order, lies between.
  double pos_part = (d.mag + value) / 2 + bound, neg_part = (d.mag - value) / 2 + bound;
  pos = pos_part > MaxFinite(arith.acc) / 4 || value + bound > MaxFinite(arith.out);
  neg = neg_part > MaxFinite(arith.acc) / 4 || value - bound < -MaxFinite(arith.out);
}

void FinishDot(const DotAcc& d, const SumOutcomes& specials, long k, Arith arith, double& val,
               double& err, uint8_t& also) {
  if (d.unknown) {
    val = std::numeric_limits<double>::quiet_NaN();
    err = kInf;
    also = 0;
    return;
  }
  double fv = DotValue(d), fe = MatmulBound(d, fv, k, arith);
  SumOutcomes s = specials;
  if (!std::isfinite(fv) || !std::isfinite(fe)) {
    // The finite terms overflow float64 itself (near-max float64 operands): a finite result is not
    // known, and both infinities and NaN are possible.
    if (s.fin) {
      val = std::numeric_limits<double>::quiet_NaN();
      err = kInf;
      also = 0;
      return;
    }
    s.Overflow(true, true);
    EncodeOutcomes(s, 0, 0, val, err, also);
    return;
  }
  bool pos, neg;
  DotOverflow(d, fv, fe, arith, pos, neg);
  s.Overflow(pos, neg);
  EncodeOutcomes(s, fv, fe, val, err, also);
}

namespace {

// Integer accumulation: exact, wrapping modulo 2^64 (and then to the output format), which is
// what any order of wrapping integer arithmetic gives.
struct IntDot {
  uint64_t sum = 0;
  bool unknown = false;
  void Add(double a, double ea, double b, double eb) {
    if (ea != 0 || eb != 0 || !(std::fabs(a) < 0x1p63) || !(std::fabs(b) < 0x1p63)) {
      unknown = true;
      return;
    }
    sum += static_cast<uint64_t>(static_cast<int64_t>(a)) *
           static_cast<uint64_t>(static_cast<int64_t>(b));
  }
};

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
  std::vector<int64_t> a_batch_st = BroadcastStrides(ab, p.batch),
                       b_batch_st = BroadcastStrides(bb, p.batch);
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

// Calls f(out_index, Acc) for each output element of a broadcast matmul (the integer path; the
// float one is FloatMatmul).
template <typename Acc, typename F>
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
        Acc dot;
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

// One k step of a row's plain sums: val += a * b_row, mag += |a| * |b_row|. Built for AVX2 as well
// where the CPU has it (no FMA: the separate multiply and add keep the results identical).
#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target_clones("avx2", "default")))
#endif
void PlainRowStep(double* __restrict val, double* __restrict mag, double a, double abs_a, const double* __restrict b,
                  int64_t n) {
  for (int64_t j = 0; j < n; ++j) {
    val[j] += a * b[j];
    mag[j] += abs_a * std::fabs(b[j]);
  }
}

// The float path of Matmul, row by row: for one row i of a batch, the sums of all n columns advance
// together over k (the same DotAdd/DotAddPlain steps in the same k order as one element at a time,
// so the same results), which keeps b's rows contiguous in the inner loop. Rows are split over
// threads.
void FloatMatmul(const RefTensor& a, const RefTensor& b, const MatmulPlan& p, Arith arith,
                 bool exact_results, RefTensor& r) {
  if (r.val.empty()) return;       // no output element (also: no row of b to point into)
  r.also.assign(r.val.size(), 0);  // sized before the threads write it; dropped again if all 0
  int64_t batches = 1;
  for (int64_t d : p.batch) batches *= d;
  std::vector<int64_t> a_off(static_cast<size_t>(batches)), b_off(static_cast<size_t>(batches));
  std::vector<char> special(static_cast<size_t>(batches)), exact(static_cast<size_t>(batches));
  // Every product of the batch is a multiple of quantum[bi] (0: unknown).
  std::vector<double> quantum(static_cast<size_t>(batches));
  std::vector<int64_t> idx(p.batch.size(), 0);
  for (int64_t bi = 0; bi < batches; ++bi) {
    for (size_t d = 0; d < idx.size(); ++d) {
      a_off[bi] += idx[d] * p.a_bstride[d];
      b_off[bi] += idx[d] * p.b_bstride[d];
    }
    special[bi] = HasSpecial(a, a_off[bi], p.m * p.k) || HasSpecial(b, b_off[bi], p.k * p.n);
    exact[bi] = NoErrors(a, a_off[bi], p.m * p.k) && NoErrors(b, b_off[bi], p.k * p.n);
    quantum[bi] = exact_results && exact[bi] && !special[bi]
                      ? Quantum(a, a_off[bi], p.m * p.k) * Quantum(b, b_off[bi], p.k * p.n)
                      : 0;
    for (size_t d = idx.size(); d-- > 0;) {
      if (++idx[d] < p.batch[d]) break;
      idx[d] = 0;
    }
  }
  // Compensated sums where the operands are float64; narrower operands multiply exactly in float64.
  const bool compensate = arith.acc == Format::kF64;
  auto rows = [&](int64_t first, int64_t last) {
    std::vector<DotAcc> acc(static_cast<size_t>(p.n));
    std::vector<SumOutcomes> specials(static_cast<size_t>(p.n));
    std::vector<double> val(static_cast<size_t>(p.n)), comp(val.size()), mag(val.size());
    for (int64_t row = first; row < last; ++row) {
      int64_t bi = row / p.m, i = row % p.m;
      if (!special[bi] && exact[bi]) {
        // Finite operands without errors (the common case): DotAdd's steps with its checks and
        // error terms dropped (they are no-ops here), on plain arrays the compiler can vectorise.
        std::fill(val.begin(), val.end(), 0.0);
        std::fill(comp.begin(), comp.end(), 0.0);
        std::fill(mag.begin(), mag.end(), 0.0);
        for (int64_t kk = 0; kk < p.k; ++kk) {
          const double av = a.val[a_off[bi] + i * p.a_rs + kk * p.a_cs], aa = std::fabs(av);
          const double* bv = &b.val[b_off[bi] + kk * p.b_rs];
          if (compensate) {
            for (int64_t j = 0; j < p.n; ++j) {
              double prod = av * bv[j], t = val[j] + prod;
              comp[j] +=
                  std::fabs(val[j]) >= std::fabs(prod) ? (val[j] - t) + prod : (prod - t) + val[j];
              val[j] = t;
              mag[j] += aa * std::fabs(bv[j]);
            }
          } else {
            PlainRowStep(val.data(), mag.data(), av, aa, bv, p.n);
          }
        }
        for (int64_t j = 0; j < p.n; ++j) {
          acc[j] = DotAcc{val[j], comp[j], 0.0, mag[j], false};
          specials[j] = SumOutcomes{};
        }
      } else {
        // Errors, special values or flagged elements: element by element. An element depends only
        // on its own row of a and column of b, so a special value decides only the elements it
        // meets, by IEEE rules (value_set.h); the finite terms accumulate as usual.
        std::fill(acc.begin(), acc.end(), DotAcc{});
        std::fill(specials.begin(), specials.end(), SumOutcomes{});
        for (int64_t kk = 0; kk < p.k; ++kk) {
          int64_t ia = a_off[bi] + i * p.a_rs + kk * p.a_cs, ib0 = b_off[bi] + kk * p.b_rs;
          const double av = a.val[ia], ae = a.err[ia];
          const uint8_t a_also = a.Also(static_cast<size_t>(ia));
          const bool a_plain = std::isfinite(av) && !std::isinf(ae) && a_also == 0;
          const Outcomes oa = OutcomesOf(av, ae, a_also);
          const double* bv = &b.val[ib0];
          const double* be = &b.err[ib0];
          for (int64_t j = 0; j < p.n; ++j) {
            const uint8_t b_also = b.Also(static_cast<size_t>(ib0 + j));
            if (a_plain && std::isfinite(bv[j]) && !std::isinf(be[j]) && b_also == 0) {
              compensate ? DotAdd(acc[j], av, ae, bv[j], be[j])
                         : DotAddPlain(acc[j], av, ae, bv[j], be[j]);
              continue;
            }
            if (std::isinf(ae) || std::isinf(be[j])) {
              acc[j].unknown = true;
              continue;
            }
            Outcomes t = TimesOutcomes(oa, OutcomesOf(bv[j], be[j], b_also));
            specials[j].Add(t);
            if (t.fin)  // both finite values (perhaps also allowed to be special): their finite
                        // term
              compensate ? DotAdd(acc[j], av, ae, bv[j], be[j])
                         : DotAddPlain(acc[j], av, ae, bv[j], be[j]);
          }
        }
      }
      for (int64_t j = 0; j < p.n; ++j) {
        int64_t o = row * p.n + j;
        // The unrounded value: the bound covers the rounding to arith.out a correct path performs.
        FinishDot(acc[j], specials[j], static_cast<long>(p.k), arith, r.val[o], r.err[o],
                  r.also[o]);
        if (exact_results)
          ApplyExactness(quantum[bi], acc[j], arith, r.val[o], r.err[o], r.also[o]);
      }
    }
  };
  int64_t total_rows = batches * p.m;
  double work =
      static_cast<double>(total_rows) * static_cast<double>(p.n) * static_cast<double>(p.k);
  unsigned threads = std::min<unsigned>(std::max(1u, std::thread::hardware_concurrency()), 16);
  if (work < 1 << 20 || threads < 2 || total_rows < 2) {
    rows(0, total_rows);
  } else {
    std::vector<std::thread> pool;
    int64_t per = (total_rows + threads - 1) / threads;
    for (int64_t first = 0; first < total_rows; first += per)
      pool.emplace_back(rows, first, std::min(total_rows, first + per));
    for (auto& t : pool) t.join();
  }
  if (std::all_of(r.also.begin(), r.also.end(), [](uint8_t x) { return x == 0; })) r.also.clear();
}

}  // namespace

double MaxMagnitude(const RefTensor& t) {
  double m = 0;
  for (size_t i = 0; i < t.val.size(); ++i)
    if (std::isfinite(t.val[i]) && !std::isinf(t.err[i]))
      m = std::max(m, std::fabs(t.val[i]) + t.err[i]);
  return m;
}

RefTensor WithoutAlso(const RefTensor& t) {
  RefTensor r = t;
  for (size_t i = 0; i < r.also.size(); ++i)
    if (r.also[i]) r.err[i] = kInf;
  r.also.clear();
  return r;
}

RefTensor MakeExact(std::vector<int64_t> shape, std::vector<double> values) {
  RefTensor t;
  t.shape = std::move(shape);
  t.err.assign(values.size(), 0.0);
  t.val = std::move(values);
  return t;
}

bool HasSpecial(const RefTensor& t, int64_t offset, int64_t count) {
  for (int64_t i = offset; i < offset + count; ++i)
    if (!std::isfinite(t.val[i]) || std::isinf(t.err[i]) || t.Also(static_cast<size_t>(i)))
      return true;
  return false;
}

bool NoErrors(const RefTensor& t, int64_t offset, int64_t count) {
  for (int64_t i = offset; i < offset + count; ++i)
    if (t.err[i] != 0) return false;
  return true;
}

double Quantum(const RefTensor& t, int64_t offset, int64_t count) {
  // The lowest set bit of a finite double's significand, read off its bits: the significand
  // (with the implicit leading bit of a normal number) times 2^(exponent - 1075) is the value.
  int least = std::numeric_limits<int>::max();
  for (int64_t i = offset; i < offset + count; ++i) {
    uint64_t bits = std::bit_cast<uint64_t>(t.val[i]);
    uint64_t significand = bits & ((uint64_t{1} << 52) - 1);
    int biased = static_cast<int>((bits >> 52) & 0x7ff);
    if (biased != 0) significand |= uint64_t{1} << 52;
    if (significand == 0) continue;  // a zero
    least = std::min(least, std::max(biased, 1) - 1075 + std::countr_zero(significand));
  }
  return least == std::numeric_limits<int>::max() ? kInf : std::ldexp(1.0, least);
}

void ApplyExactness(double quantum, const DotAcc& d, Arith arith, double& val, double& err,
                    uint8_t also) {
  if (!(quantum > 0) || std::isinf(quantum) || std::isinf(err) || d.unknown || also != 0) return;
  if (d.mag / quantum > 1.0 / (2 * UnitRoundoff(arith.acc))) return;
  val = RoundTo(arith.out, val);
  err = std::isinf(val) ? kInf : 0.0;
}

namespace {
// bfloat16 products on CPU may treat subnormal operands as zero: oneDNN's AVX512-BF16 kernels use
// VDPBF16PS, which Intel defines to take input denormals as zero (DAZ) whatever MXCSR says. Seen on
// torch 2.15.0 (CPU with avx512_bf16): a 64x64 bfloat16 mm of 9.18e-41 and 1e38 gives 0 where a 1x1
// one gives 0.00916, and a bmm of a subnormal and an infinity gives NaN. Any path may run such a
// kernel, so every subnormal operand of a bfloat16 product is "itself or 0": its error covers both.
// Elements with 0 < |x| < below may be read as 0: their error covers both.
RefTensor TinyMayBeZero(const RefTensor& t, double below) {
  RefTensor r = t;
  for (size_t i = 0; i < r.val.size(); ++i)
    if (r.val[i] != 0 && std::fabs(r.val[i]) < below) r.err[i] += std::fabs(r.val[i]);
  return r;
}

bool HasTiny(const RefTensor& t, double below) {
  for (double v : t.val)
    if (v != 0 && std::fabs(v) < below) return true;
  return false;
}

constexpr double kBf16MinNormal = 0x1p-126;

RefTensor MatmulImpl(const RefTensor& a_in, const RefTensor& b_in, Arith arith,
                     bool exact_results) {
  const bool daz = arith.out == Format::kBF16 &&
                   (HasTiny(a_in, kBf16MinNormal) || HasTiny(b_in, kBf16MinNormal));
  RefTensor a_daz, b_daz;  // copies only where needed: both branches below are lvalues
  if (daz) {
    a_daz = TinyMayBeZero(a_in, kBf16MinNormal);
    b_daz = TinyMayBeZero(b_in, kBf16MinNormal);
  }
  const RefTensor& a = daz ? a_daz : a_in;
  const RefTensor& b = daz ? b_daz : b_in;
  MatmulPlan p = Plan(a, b);
  RefTensor r;
  r.shape = p.out_shape;
  r.val.resize(static_cast<size_t>(r.numel()));
  r.err.resize(r.val.size());
  if (IsInteger(arith.out)) {
    ForEachDot<IntDot>(a, b, p, [&](int64_t o, const IntDot& d) {
      SetInteger(static_cast<int64_t>(d.sum), arith.out, r.val[o], r.err[o]);
      if (d.unknown) r.err[o] = kInf;
    });
    return r;
  }
  FloatMatmul(a, b, p, arith, exact_results, r);
  return r;
}
}  // namespace

RefTensor Matmul(const RefTensor& a, const RefTensor& b, Arith arith) {
  return MatmulImpl(a, b, arith, false);
}
RefTensor MatmulResult(const RefTensor& a, const RefTensor& b, Arith arith) {
  return MatmulImpl(a, b, arith, true);
}

namespace detail {
void TwoTermSum(double x, double ex, uint8_t ax, double y, double ey, uint8_t ay, double sum,
                double sum_bound, double limit, Format out, double& v, double& e, uint8_t& also) {
  if (std::isinf(ex) || std::isinf(ey)) {
    v = std::numeric_limits<double>::quiet_NaN();
    e = kInf;
    also = 0;
    return;
  }
  SumOutcomes s;
  s.Add(OutcomesOf(x, ex, ax));
  s.Add(OutcomesOf(y, ey, ay));
  bool pos = false, neg = false;
  const double terms[2][2] = {{x, ex}, {y, ey}};
  for (const auto& t : terms) {
    if (!std::isfinite(t[0])) continue;
    pos |= t[0] + t[1] > limit;
    neg |= t[0] - t[1] < -limit;
  }
  if (s.fin) {
    pos |= sum + sum_bound > MaxFinite(out);
    neg |= sum - sum_bound < -MaxFinite(out);
  }
  s.Overflow(pos, neg);
  EncodeOutcomes(s, sum, sum_bound, v, e, also);
}

}  // namespace detail

namespace {
// One element of beta * c + alpha * p (see AddScaled).
void ScaledSum(double c, double ec, uint8_t c_also, double p, double ep, uint8_t p_also,
               double alpha, double beta, Arith arith, bool exact_terms, double& v, double& bound,
               uint8_t& also) {
  also = 0;
  if (beta ==
      0) {  // beta == 0 ignores the bias, NaN and inf included (documented for addmm and friends)
    c = ec = 0;
    c_also = 0;
  }
  if (IsInteger(arith.out)) {
    if (ec != 0 || ep != 0 || !(std::fabs(c) < 0x1p62) || !(std::fabs(p) < 0x1p62)) {
      v = 0;
      bound = kInf;
      return;
    }
    bool exact = alpha == std::trunc(alpha) && beta == std::trunc(beta) &&
                 std::fabs(alpha) < 0x1p31 && std::fabs(beta) < 0x1p31;
    int64_t w = static_cast<int64_t>(static_cast<uint64_t>(static_cast<int64_t>(beta)) *
                                         static_cast<uint64_t>(static_cast<int64_t>(c)) +
                                     static_cast<uint64_t>(static_cast<int64_t>(alpha)) *
                                         static_cast<uint64_t>(static_cast<int64_t>(p)));
    SetInteger(w, arith.out, v, bound);
    if (!exact) bound = kInf;
    return;
  }
  // The two terms as sets. alpha == 0 with a product that may be NaN or infinite is not promised:
  // kernels skip the product (0) or compute it (0 * inf = NaN).
  double tc = beta == 0 ? 0.0 : beta * c, etc = std::isfinite(c) ? std::fabs(beta) * ec : ec;
  uint8_t atc = ScaledAlso(c_also, beta);
  double tp = alpha * p, etp = std::isfinite(p) ? std::fabs(alpha) * ep : ep;
  uint8_t atp = ScaledAlso(p_also, alpha);
  if (alpha == 0) {
    bool special = !std::isfinite(p) || p_also != 0 || std::isinf(ep);
    tp = etp = 0;
    atp = special ? kAlsoNaN : 0;
  }
  if ((std::isfinite(c) && !std::isfinite(tc)) || (std::isfinite(p) && !std::isfinite(tp))) {
    // A scaled term beyond float64 (near-max float64 values): a fused kernel may still be finite.
    v = std::numeric_limits<double>::quiet_NaN();
    bound = kInf;
    return;
  }
  double sum = 0, sum_bound = 0;
  if (std::isfinite(tc) && std::isfinite(tp) && !std::isinf(etc) && !std::isinf(etp)) {
    sum = tc + tp;
    double terms = std::fabs(tc) + std::fabs(tp);
    double before_round = etc + etp + Gamma(2, UnitRoundoff(arith.acc)) * terms;
    sum_bound = before_round + UnitRoundoff(arith.out) * (std::fabs(sum) + before_round) +
                MinSubnormal(arith.out);
    if (exact_terms && atc == 0 && atp == 0) {
      // p is the exact sum (see AddmmTermsExact). When p, both terms and their sum are
      // representable in the output format, every evaluation order, fused or not, rounds nothing:
      // bit for bit.
      double back = sum - tc,
             lost = (tc - (sum - back)) + (tp - back);  // TwoSum: sum + lost = tc + tp
      if (lost == 0 && RoundTo(arith.out, p) == p && RoundTo(arith.out, tc) == tc &&
          RoundTo(arith.out, tp) == tp && RoundTo(arith.out, sum) == sum)
        sum_bound = 0;
    }
  }
  TwoTermSum(tc, etc, atc, tp, etp, atp, sum, sum_bound, MaxFinite(arith.out) / 2, arith.out, v,
             bound, also);
}

RefTensor AddScaledImpl(const RefTensor& bias, const RefTensor& product, double alpha, double beta,
                        Arith arith, bool exact_terms) {
  RefTensor r;
  r.shape = product.shape;
  r.val.resize(product.val.size());
  r.err.resize(product.val.size());
  std::vector<int64_t> bst = BroadcastStrides(bias.shape, r.shape);
  std::vector<int64_t> idx(r.shape.size(), 0);
  for (size_t o = 0; o < r.val.size(); ++o) {
    int64_t bi = 0;
    for (size_t d = 0; d < idx.size(); ++d) bi += idx[d] * bst[d];
    uint8_t also;
    ScaledSum(bias.val[bi], bias.err[bi], bias.Also(static_cast<size_t>(bi)), product.val[o],
              product.err[o], product.Also(o), alpha, beta, arith, exact_terms, r.val[o], r.err[o],
              also);
    r.SetAlso(o, also);
    for (size_t d = idx.size(); d-- > 0;) {
      if (++idx[d] < r.shape[d]) break;
      idx[d] = 0;
    }
  }
  return r;
}

// 0 and ±2^e: scaling by them is exact (away from the subnormal range, checked by the caller).
bool PowerOfTwoOrZero(double x) {
  int e;
  return x == 0 || (std::isfinite(x) && std::frexp(std::fabs(x), &e) == 0.5);
}

// True when the addmm's float64 product values are the exact sums and every correct kernel computes
// every partial sum exactly, however it orders, blocks or fuses them: exact operands, alpha and
// beta 0 or powers of two, and every product, scaled product, scaled bias and partial sum a
// multiple of one quantum q (none lost below the subnormal range) with magnitudes within 2^p q of
// the accumulation format. amax, bmax: MaxMagnitude of a and b.
bool AddmmTermsExact(const RefTensor& bias, const RefTensor& a, const RefTensor& b, double amax,
                     double bmax, double alpha, double beta, Arith arith) {
  bool use_bias = beta != 0;
  if (!PowerOfTwoOrZero(alpha) || !PowerOfTwoOrZero(beta)) return false;
  if (!NoErrors(a) || !NoErrors(b) || HasSpecial(a) || HasSpecial(b)) return false;
  if (use_bias && (!NoErrors(bias) || HasSpecial(bias))) return false;
  double qa = Quantum(a), qb = Quantum(b), qc = use_bias ? Quantum(bias) : kInf;
  double cmax = use_bias ? MaxMagnitude(bias) : 0;
  double al = std::fabs(alpha), be = std::fabs(beta);
  double qp = alpha == 0 ? kInf : al * qa * qb, qt = use_bias ? be * qc : kInf,
         q = std::min(qp, qt);
  if (std::isinf(q)) return false;  // every term 0: the default bound is tight enough
  // alpha may be folded into an operand (in the output format) or into each product (in acc).
  if (alpha != 0 && (std::min(al, 1.0) * std::min(qa, qb) < MinSubnormal(arith.out) ||
                     qp < MinSubnormal(arith.acc)))
    return false;
  if (use_bias && qt < MinSubnormal(arith.out)) return false;
  int64_t k = a.shape.empty() ? 0 : a.shape.back();
  double mag = be * cmax + al * amax * bmax * static_cast<double>(k);
  return mag / q <= 1.0 / (2 * UnitRoundoff(arith.acc));
}
}  // namespace

RefTensor AddScaled(const RefTensor& bias, const RefTensor& product, double alpha, double beta,
                    Arith arith) {
  return AddScaledImpl(bias, product, alpha, beta, arith, false);
}

RefTensor Addmm(const RefTensor& bias, const RefTensor& a_in, const RefTensor& b_in, double alpha,
                double beta, Arith arith, const Stages& stages) {
  // BLAS folds alpha into an operand (temp = alpha * b): with |alpha| < 1 a value whose scaled
  // magnitude falls below the smallest normal may round to 0 there, and then inf * it is NaN (seen
  // on torch 2.15.0: float32 addbmm, alpha 0.5, -inf * -1.4e-45 gives NaN). Such values "may be 0".
  const double min_normal = MinNormal(arith.out);
  const double below = std::fabs(alpha) < 1 && alpha != 0 && !IsInteger(arith.out)
                           ? min_normal / std::fabs(alpha)
                           : 0;
  const bool fold = below > 0 && (HasTiny(a_in, below) || HasTiny(b_in, below));
  RefTensor a_fold, b_fold;
  if (fold) {
    a_fold = TinyMayBeZero(a_in, below);
    b_fold = TinyMayBeZero(b_in, below);
  }
  const RefTensor& a = fold ? a_fold : a_in;
  const RefTensor& b = fold ? b_fold : b_in;
  RefTensor product = (stages.matmul ? stages.matmul : Matmul)(a, b, arith);
  if (IsInteger(arith.out)) return AddScaledImpl(bias, product, alpha, beta, arith, false);
  double amax = MaxMagnitude(a), bmax = MaxMagnitude(b);
  RefTensor r = AddScaledImpl(bias, product, alpha, beta, arith,
                              AddmmTermsExact(bias, a, b, amax, bmax, alpha, beta, arith));
  // Kernels may fold alpha into an operand or into each product before summing (BLAS does): then
  // alpha * |a| * |b| summed must stay clear of overflow too, not only the final value.
  int64_t k = a.shape.empty() ? 0 : a.shape.back();
  // With |alpha| <= 1 neither alpha * a nor alpha * a * b grows: the product's own outcomes hold.
  double worst = std::fabs(alpha) * std::max({amax, bmax, amax * bmax * static_cast<double>(k)});
  if (std::fabs(alpha) > 1 && !(worst < MaxFinite(arith.acc) / 4))
    for (double& e : r.err) e = kInf;
  return r;
}

}  // namespace mmref
