// libFuzzer target: the reference engine's CPU paths against each other on any shapes and values.
// Bytes choose a batched product's sizes, formats and values (special values included); the checks
// are relations that hold exactly in the reference (the same products summed in the same order):
// a batched product equals its stacked single products, (A B)^T equals B^T A^T, addmm with
// beta = 0 equals the product, a bit-for-bit result is the rounded exact value, and bounds are
// never NaN or negative. A violation traps (a crash artifact for libFuzzer).
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "kernels/attention_ops.h"
#include "kernels/reference_ops.h"

namespace {

using mmref::Arith;
using mmref::Format;
using mmref::RefTensor;

class Bytes {
 public:
  Bytes(const uint8_t* d, size_t n) : d_(d), n_(n) {}
  uint8_t Next() { return i_ < n_ ? d_[i_++] : 0; }
  int64_t Below(int64_t bound) { return static_cast<int64_t>(Next()) % bound; }
  // A value of format f: mostly small dyadic numbers, sometimes wide-range or special ones.
  double Value(Format f) {
    uint8_t kind = Next();
    double x;
    if (kind < 200) {
      x = (static_cast<int>(Next()) - 128) / 16.0;
    } else if (kind < 240) {
      uint64_t bits = 0;
      for (int b = 0; b < 8; ++b) bits = bits << 8 | Next();
      std::memcpy(&x, &bits, sizeof x);
      if (!std::isfinite(x)) x = 0;
    } else {
      const double specials[] = {NAN, INFINITY, -INFINITY, -0.0, 1e-310, 65504.0, 3e38, 1e300};
      x = specials[Next() % 8];
    }
    return IsInteger(f) ? static_cast<double>(static_cast<int64_t>(Next()) % 17 - 8)
                        : mmref::RoundTo(f, x);
  }

 private:
  const uint8_t* d_;
  size_t n_, i_ = 0;
};

RefTensor Make(Bytes& in, std::vector<int64_t> shape, Format f) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  std::vector<double> v(static_cast<size_t>(n));
  for (double& x : v) x = in.Value(f);
  return mmref::MakeExact(shape, v);
}

bool Same(double x, double y) { return (std::isnan(x) && std::isnan(y)) || x == y; }

// Says which relation broke, then traps.
#define Require(ok)                                                                       \
  do {                                                                                    \
    if (!(ok)) {                                                                          \
      std::fprintf(stderr, "reference_fuzzer: violated at line %d: %s\n", __LINE__, #ok); \
      __builtin_trap();                                                                   \
    }                                                                                     \
  } while (0)

void RequireSame(const RefTensor& x, const RefTensor& y) {
  Require(x.shape == y.shape && x.val.size() == y.val.size());
  for (size_t i = 0; i < x.val.size(); ++i)
    Require(Same(x.val[i], y.val[i]) && Same(x.err[i], y.err[i]));
}

void RequireSaneBounds(const RefTensor& t) {
  for (double e : t.err) Require(!std::isnan(e) && e >= 0);
}

// One matrix of a (batch, rows, cols) tensor.
RefTensor Slice(const RefTensor& t, int64_t b) {
  int64_t rows = t.shape[1], cols = t.shape[2];
  RefTensor r;
  r.shape = {rows, cols};
  r.val.assign(t.val.begin() + b * rows * cols, t.val.begin() + (b + 1) * rows * cols);
  r.err.assign(t.err.begin() + b * rows * cols, t.err.begin() + (b + 1) * rows * cols);
  return r;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Bytes in(data, size);
  const Format formats[] = {Format::kF64,  Format::kF32, Format::kF16,
                            Format::kBF16, Format::kI32, Format::kI8};
  Format f = formats[in.Below(6)];
  Arith arith{f, mmref::IsInteger(f) ? f : (f == Format::kF64 ? Format::kF64 : Format::kF32)};
  int64_t batch = 1 + in.Below(3), m = in.Below(6), k = in.Below(9), n = in.Below(6);
  RefTensor a = Make(in, {batch, m, k}, f), b = Make(in, {batch, k, n}, f);

  RefTensor prod = mmref::Matmul(a, b, arith), result = mmref::MatmulResult(a, b, arith);
  RequireSaneBounds(prod);
  RequireSaneBounds(result);
  // A bit-for-bit result is the once-rounded exact value; otherwise the same value and bound.
  for (size_t i = 0; i < prod.val.size(); ++i) {
    if (result.err[i] == 0 && prod.err[i] != 0 && !mmref::IsInteger(f))
      Require(Same(result.val[i], mmref::RoundTo(f, prod.val[i])));
    else
      Require(Same(result.val[i], prod.val[i]));
  }
  // bmm = stacked mm (a batch holding a NaN or an infinity is unjudged as a whole, in both).
  for (int64_t bi = 0; bi < batch; ++bi) {
    RefTensor one = mmref::Matmul(Slice(a, bi), Slice(b, bi), arith);
    for (size_t i = 0; i < one.val.size(); ++i) {
      size_t o = static_cast<size_t>(bi) * one.val.size() + i;
      Require(Same(one.val[i], prod.val[o]) && Same(one.err[i], prod.err[o]));
    }
  }
  // (A B)^T = B^T A^T: the same products summed in the same order.
  RequireSame(mmref::TransposeLast2(prod),
              mmref::Matmul(mmref::TransposeLast2(b), mmref::TransposeLast2(a), arith));
  // beta = 0 ignores the bias (NaN included): the value is the product's.
  RefTensor bias = Make(in, {n}, f);
  RefTensor addmm = mmref::Addmm(bias, a, b, 1.0, 0.0, arith);
  RequireSaneBounds(addmm);
  for (size_t i = 0; i < prod.val.size(); ++i)
    if (!std::isinf(addmm.err[i]) && !mmref::IsInteger(f))
      Require(Same(addmm.val[i], prod.val[i]) || std::isnan(prod.val[i]));
  // Softmax rows: sane bounds, and probabilities of a finite row sum to 1 within their bounds.
  if (!mmref::IsInteger(f) && m > 0 && k > 0) {
    RefTensor s = mmref::Softmax(Slice(a, 0), 1, arith);
    RequireSaneBounds(s);
    for (int64_t r = 0; r < m; ++r) {
      double sum = 0, slack = 0;
      bool finite = true;
      for (int64_t c = 0; c < k; ++c) {
        double v = s.val[r * k + c];
        finite &= std::isfinite(v) && std::isfinite(s.err[r * k + c]);
        sum += v;
        slack += s.err[r * k + c];
      }
      if (finite) Require(std::fabs(sum - 1) <= slack + 1e-12);
    }
  }
  return 0;
}
