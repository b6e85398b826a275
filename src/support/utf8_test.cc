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
  EXPECT_EQ(ValidUtf8("ab\xC3"), "ab" + r);         // cut inside a character (a stderr tail)
  EXPECT_EQ(ValidUtf8("\x80x"), r + "x");           // stray continuation byte
  EXPECT_EQ(ValidUtf8("\xC0\xAF"), r + r);          // overlong
  EXPECT_EQ(ValidUtf8("\xED\xA0\x80"), r + r + r);  // surrogate
  EXPECT_EQ(ValidUtf8("\xF4\x90\x80\x80"), r + r + r + r);  // beyond U+10FFFF
  EXPECT_EQ(ValidUtf8("\xE2\x82z"), r + r + "z");
  // What comes out is something a JSON writer accepts.
  std::string hostile = "tail \xE2\x82\xAC\xE2\x82";
  EXPECT_THROW(nlohmann::json(hostile).dump(), nlohmann::json::type_error);
  EXPECT_NO_THROW(nlohmann::json(ValidUtf8(hostile)).dump());
}

TEST(Utf8, TerminalLinesCarryNoControlCharacters) {
  EXPECT_EQ(TerminalLine("eager accepts mm(float16, float32)"),
            "eager accepts mm(float16, float32)");
  EXPECT_EQ(TerminalLine("a\x1b[2Jb\x1b]0;title\x07"
                         "c\nd\x7f"),
            "a?[2Jb?]0;title?c?d?");
  EXPECT_EQ(TerminalLine("x\xC2\x9B"
                         "31m y"),
            "x?31m y");                                                     // C1 CSI
  EXPECT_EQ(TerminalLine("caf\xC3\xA9 \xC2\xA0"), "caf\xC3\xA9 \xC2\xA0");  // é, no-break space
}

}  // namespace
}  // namespace mmdiff
