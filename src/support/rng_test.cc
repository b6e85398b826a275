// Tests for the seeded RNG: determinism, ranges, known SplitMix64 outputs.
#include "src/support/rng.h"

#include <gtest/gtest.h>

#include "src/support/hash.h"

namespace mmdiff {
namespace {

TEST(Rng, SplitMix64MatchesReferenceValues) {
  // First outputs of the reference SplitMix64 generator seeded with 0.
  Rng r(0);
  EXPECT_EQ(r.Next(), 0xE220A8397B1DCDAFULL);
  EXPECT_EQ(r.Next(), 0x6E789E6AA1B965F4ULL);
}

TEST(Rng, SameSeedSameStreamDifferentSeedDifferentStream) {
  Rng a(42), b(42), c(43);
  for (int i = 0; i < 100; ++i) {
    uint64_t x = a.Next();
    EXPECT_EQ(x, b.Next());
    EXPECT_NE(x, c.Next());
  }
}

TEST(Rng, UniformIntStaysInRangeAndHitsBothEnds) {
  Rng r(7);
  bool lo = false, hi = false;
  for (int i = 0; i < 2000; ++i) {
    int64_t v = r.UniformInt(-3, 3);
    ASSERT_GE(v, -3);
    ASSERT_LE(v, 3);
    lo |= v == -3;
    hi |= v == 3;
  }
  EXPECT_TRUE(lo && hi);
}

TEST(Hash, Fnv1aKnownValue) {
  EXPECT_EQ(HashHex(""), "cbf29ce484222325");
  EXPECT_EQ(HashHex("a"), "af63dc4c8601ec8c");
}

TEST(Hash, IsHashHexTakesWhatHashHexWritesOnly) {
  EXPECT_TRUE(IsHashHex(HashHex("a")));
  EXPECT_FALSE(IsHashHex("AF63DC4C8601EC8C"));
  EXPECT_FALSE(IsHashHex("af63dc4c8601ec8"));
  EXPECT_FALSE(IsHashHex("af63dc4c8601ec8c0"));
  EXPECT_FALSE(IsHashHex("../../etc/passwd"));
  EXPECT_FALSE(IsHashHex(""));
}

}  // namespace
}  // namespace mmdiff
