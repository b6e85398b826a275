// RefTensor: the reference engine's value — float64 values plus, per element, a bound on how far a
// correct implementation's result may lie from them, and the special values it may also be.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace mmref {

// Bits of RefTensor::also: special results a correct implementation may return besides the value
// range (a sum that may overflow, a product of an infinity and a value that may be 0, ...).
enum : uint8_t { kAlsoPosInf = 1, kAlsoNegInf = 2, kAlsoNaN = 4 };

// What a correct result may be, per element: with err = +inf anything; with a finite val, a value
// within err of it; with a non-finite val (err 0), exactly that NaN or infinity; and, besides, the
// specials in `also`.
struct RefTensor {
  std::vector<int64_t> shape;  // row-major, contiguous
  std::vector<double> val;  // the reference values (exact arithmetic on the same inputs, unrounded)
  std::vector<double> err;  // |correct result - val| <= err; +inf means "anything, even inf/NaN"
  std::vector<uint8_t> also;  // kAlso* bits per element; empty: none anywhere
  uint8_t Also(size_t i) const { return also.empty() ? 0 : also[i]; }
  void SetAlso(size_t i, uint8_t bits) {
    if (also.empty() && bits == 0) return;
    if (also.empty()) also.assign(val.size(), 0);
    also[i] = bits;
  }
  int64_t numel() const {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    return n;
  }
};

// An input: exact values (err = 0).
RefTensor MakeExact(std::vector<int64_t> shape, std::vector<double> values);

}  // namespace mmref
