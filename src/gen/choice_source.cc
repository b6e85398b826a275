// ChoiceSource implementations.
#include "src/gen/choice_source.h"

#include <cmath>

namespace mmdiff {

int64_t ChoiceSource::Int(int64_t lo, int64_t hi) {
  if (hi <= lo) return lo;
  uint64_t span = static_cast<uint64_t>(hi - lo) + 1;
  return lo + static_cast<int64_t>(Next() % span);
}

bool ChoiceSource::Coin(double p) {
  if (p <= 0) return false;
  if (p >= 1) return true;
  return static_cast<double>(Next() >> 11) * 0x1.0p-53 < p;
}

size_t ChoiceSource::Weighted(const std::vector<double>& weights) {
  double total = 0;
  for (double w : weights) total += w > 0 ? w : 0;
  double x = static_cast<double>(Next() >> 11) * 0x1.0p-53 * total;
  for (size_t i = 0; i < weights.size(); ++i) {
    if (weights[i] <= 0) continue;
    if (x < weights[i]) return i;
    x -= weights[i];
  }
  for (size_t i = weights.size(); i-- > 0;)
    if (weights[i] > 0) return i;
  return 0;
}

ByteChoices::ByteChoices(const uint8_t* data, size_t size, uint64_t fallback_seed)
    : bytes_(data, data + size), fallback_(fallback_seed) {}

uint64_t ByteChoices::Next() {
  if (exhausted()) return fallback_.Next();
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) {
    v <<= 8;
    if (pos_ < bytes_.size()) v |= bytes_[pos_++];
  }
  return v;
}

}  // namespace mmdiff
