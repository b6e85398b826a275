// ChoiceSource: the one source of randomness for generation — a seeded RNG, or fuzzer bytes that
// fall back to a seeded RNG when they run out. Same source state, same choices.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "src/support/rng.h"

namespace mmdiff {

class ChoiceSource {
 public:
  virtual ~ChoiceSource() = default;
  virtual uint64_t Next() = 0;
  int64_t Int(int64_t lo, int64_t hi);  // uniform in [lo, hi]
  bool Coin(double p);                  // true with probability p
  // An index drawn with the given non-negative weights (at least one positive).
  size_t Weighted(const std::vector<double>& weights);
  template <typename T>
  const T& Pick(const std::vector<T>& v) {
    return v[static_cast<size_t>(Int(0, static_cast<int64_t>(v.size()) - 1))];
  }
};

class SeededChoices : public ChoiceSource {
 public:
  explicit SeededChoices(uint64_t seed) : rng_(seed) {}
  uint64_t Next() override { return rng_.Next(); }

 private:
  Rng rng_;
};

// Consumes 8 bytes per choice (fewer at the end, zero-padded), then the fallback RNG.
class ByteChoices : public ChoiceSource {
 public:
  ByteChoices(const uint8_t* data, size_t size, uint64_t fallback_seed);
  uint64_t Next() override;
  bool exhausted() const { return pos_ >= bytes_.size(); }

 private:
  std::vector<uint8_t> bytes_;
  size_t pos_ = 0;
  Rng fallback_;
};

}  // namespace mmdiff
