// The one seeded RNG (SplitMix64): deterministic across platforms, cheap to mirror in Python.
#pragma once

#include <cstdint>

namespace mmdiff {

// One step of SplitMix64 on a state value; the output mixing function used everywhere.
uint64_t SplitMix64(uint64_t x);

// A counter-based stream: the i-th output is SplitMix64(seed + (i+1)*golden), as in SplitMix64.
class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  uint64_t Next();
  // Uniform integer in [lo, hi] (inclusive); lo <= hi.
  int64_t UniformInt(int64_t lo, int64_t hi);
  // Uniform double in [0, 1).
  double UniformDouble();

 private:
  uint64_t state_;
};

}  // namespace mmdiff
