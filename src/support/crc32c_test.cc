#include "src/support/crc32c.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace mmdiff {
namespace {

uint32_t Of(const std::string& s) {
  return Crc32c(reinterpret_cast<const uint8_t*>(s.data()), s.size());
}

TEST(Crc32c, MatchesThePublishedCheckValues) {
  EXPECT_EQ(Of("123456789"), 0xE3069283u);  // the CRC catalogue's check value for CRC-32C
  EXPECT_EQ(Of(""), 0u);
  // RFC 3720, B.4: 32 bytes of zeros, and 32 bytes of 0xFF.
  EXPECT_EQ(Of(std::string(32, '\0')), 0x8A9136AAu);
  EXPECT_EQ(Of(std::string(32, '\xff')), 0x62A8AB43u);
}

TEST(Crc32c, AnyOneFlippedBitChangesIt) {
  std::vector<uint8_t> body(300);
  for (size_t i = 0; i < body.size(); ++i) body[i] = static_cast<uint8_t>(i * 7);
  const uint32_t clean = Crc32c(body.data(), body.size());
  for (size_t i = 0; i < body.size(); ++i)
    for (int bit = 0; bit < 8; ++bit) {
      body[i] ^= static_cast<uint8_t>(1u << bit);
      ASSERT_NE(Crc32c(body.data(), body.size()), clean) << "byte " << i << " bit " << bit;
      body[i] ^= static_cast<uint8_t>(1u << bit);
    }
}

}  // namespace
}  // namespace mmdiff
