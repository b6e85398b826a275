// SplitMix64 stream.
#include "src/support/rng.h"

namespace mmdiff {

uint64_t Rng::Next() {
  uint64_t out = SplitMix64(state_);
  state_ += kSplitMixGolden;
  return out;
}

int64_t Rng::UniformInt(int64_t lo, int64_t hi) {
  uint64_t span = static_cast<uint64_t>(hi - lo) + 1;
  if (span == 0) return static_cast<int64_t>(Next());  // full 64-bit range
  return lo + static_cast<int64_t>(Next() % span);
}

double Rng::UniformDouble() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }

}  // namespace mmdiff
