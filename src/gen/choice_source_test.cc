// Tests for ChoiceSource helpers.
#include "src/gen/choice_source.h"

#include <gtest/gtest.h>

namespace mmdiff {
namespace {

TEST(ChoiceSource, WeightedNeverPicksZeroWeight) {
  SeededChoices c(3);
  std::vector<int> counts(3);
  for (int i = 0; i < 3000; ++i) counts[c.Weighted({1, 0, 3})]++;
  EXPECT_EQ(counts[1], 0);
  EXPECT_GT(counts[2], counts[0] * 2);
}

TEST(ChoiceSource, CoinExtremes) {
  SeededChoices c(9);
  for (int i = 0; i < 100; ++i) {
    EXPECT_FALSE(c.Coin(0));
    EXPECT_TRUE(c.Coin(1));
  }
}

TEST(ChoiceSource, BytesAreReadBigEndianEightAtATime) {
  std::vector<uint8_t> b = {0, 0, 0, 0, 0, 0, 1, 2, 0xFF};
  ByteChoices c(b.data(), b.size(), 1);
  EXPECT_EQ(c.Next(), 0x0102u);
  EXPECT_EQ(c.Next(), 0xFF00000000000000ULL);
  EXPECT_TRUE(c.exhausted());
  EXPECT_EQ(c.Next(), Rng(1).Next());
}

}  // namespace
}  // namespace mmdiff
