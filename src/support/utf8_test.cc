// Tests for ValidUtf8: valid text unchanged, each kind of invalid byte replaced, the result dumps.
#include "src/support/utf8.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace mmdiff {
namespace {

TEST(Utf8, ValidTextIsUnchanged) {
  for (std::string s : {"", "plain ascii\n", "caf\xC3\xA9", "\xE2\x82\xAC 100", "\xF0\x9F\x98\x80",
                        "\xED\x9F\xBF", "\xF4\x8F\xBF\xBF"})
    EXPECT_EQ(ValidUtf8(s), s);
}

TEST(Utf8, InvalidBytesBecomeReplacementCharacters) {
  const std::string r = "\xEF\xBF\xBD";
  EXPECT_EQ(ValidUtf8("ab\xC3"), "ab" + r);             // cut inside a character (a stderr tail)
  EXPECT_EQ(ValidUtf8("\x80x"), r + "x");               // stray continuation byte
  EXPECT_EQ(ValidUtf8("\xC0\xAF"), r + r);              // overlong
  EXPECT_EQ(ValidUtf8("\xED\xA0\x80"), r + r + r);      // surrogate
  EXPECT_EQ(ValidUtf8("\xF4\x90\x80\x80"), r + r + r + r);  // beyond U+10FFFF
  EXPECT_EQ(ValidUtf8("\xE2\x82z"), r + r + "z");
  // What comes out is something a JSON writer accepts.
  std::string hostile = "tail \xE2\x82\xAC\xE2\x82";
  EXPECT_THROW(nlohmann::json(hostile).dump(), nlohmann::json::type_error);
  EXPECT_NO_THROW(nlohmann::json(ValidUtf8(hostile)).dump());
}

}  // namespace
}  // namespace mmdiff
