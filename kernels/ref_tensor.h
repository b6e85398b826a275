// RefTensor: the reference engine's value — float64 values plus, per element, a bound on how far a
// correct implementation's result may lie from them.
#pragma once

#include <cstdint>
#include <vector>

namespace mmref {

struct RefTensor {
  std::vector<int64_t> shape;  // row-major, contiguous
  std::vector<double> val;     // the reference values (exact arithmetic on the same inputs, unrounded)
  std::vector<double> err;     // |correct result - val| <= err; +inf means "anything, even inf/NaN"
  int64_t numel() const {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    return n;
  }
};

// An input: exact values (err = 0).
RefTensor MakeExact(std::vector<int64_t> shape, std::vector<double> values);

}  // namespace mmref
