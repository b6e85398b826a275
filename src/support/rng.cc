// SplitMix64 stream.
#include "src/support/rng.h"

namespace mmdiff {

namespace {
constexpr uint64_t kGolden = 0x9E3779B97F4A7C15ULL;
}

uint64_t SplitMix64(uint64_t x) {
  uint64_t z = x + kGolden;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

uint64_t Rng::Next() {
  uint64_t out = SplitMix64(state_);
  state_ += kGolden;
  return out;
}

int64_t Rng::UniformInt(int64_t lo, int64_t hi) {
  uint64_t span = static_cast<uint64_t>(hi - lo) + 1;
  if (span == 0) return static_cast<int64_t>(Next());  // full 64-bit range
  return lo + static_cast<int64_t>(Next() % span);
}

double Rng::UniformDouble() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }

}  // namespace mmdiff
