// The one seeded RNG (SplitMix64): deterministic across platforms, cheap to mirror in Python.
#pragma once

#include <cstdint>

namespace mmdiff {

inline constexpr uint64_t kSplitMixGolden = 0x9E3779B97F4A7C15ULL;

// One step of SplitMix64 on a state value; the output mixing function used everywhere. Inline:
// input values draw it several times per element.
inline uint64_t SplitMix64(uint64_t x) {
  uint64_t z = x + kSplitMixGolden;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

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
