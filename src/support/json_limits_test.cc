// Tests for the limits on untrusted JSON: what passes them parses, what does not is a clear error.
#include "src/support/json_limits.h"

#include <gtest/gtest.h>

#include <string>

#include "src/support/files.h"

namespace mmdiff {
namespace {

TEST(JsonLimits, NestingBeyondTheLimitIsRejectedBeforeParsing) {
  auto nested = [](int levels) { return std::string(levels, '[') + std::string(levels, ']'); };
  EXPECT_TRUE(ParseJsonBounded(nested(kMaxJsonDepth)).ok());
  auto deep = ParseJsonBounded(nested(kMaxJsonDepth + 1));
  ASSERT_FALSE(deep.ok());
  EXPECT_NE(deep.error().find("nested deeper than 64"), std::string::npos) << deep.error();
  EXPECT_FALSE(ParseJsonBounded(nested(100000)).ok());
  // Brackets inside strings, escaped quotes included, are text.
  std::string in_text = "{\"a\": \"\\\"" + std::string(1000, '[') + "\"}";
  auto text = ParseJsonBounded(in_text);
  ASSERT_TRUE(text.ok()) << text.error();
  EXPECT_EQ(text.value()["a"].get<std::string>().size(), 1001u);
}

TEST(JsonLimits, TooManyValuesOrBytesAreRejected) {
  std::string many = "[";
  for (size_t i = 0; i <= kMaxJsonValues; ++i) many += i ? ",0" : "0";
  many += "]";
  ASSERT_LT(many.size(), kMaxJsonBytes);
  auto r = ParseJsonBounded(many);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("values"), std::string::npos) << r.error();
  std::string fewer = "[";
  for (int i = 0; i < 1000; ++i) fewer += "1,";
  fewer += "true,null,\"x\",-2.5e3]";
  ASSERT_TRUE(ParseJsonBounded(fewer).ok());
  std::string big = "\"" + std::string(kMaxJsonBytes, 'x') + "\"";
  auto large = ParseJsonBounded(big);
  ASSERT_FALSE(large.ok());
  EXPECT_NE(large.error().find("MiB"), std::string::npos) << large.error();
}

TEST(JsonLimits, NumbersBeyondDoubleAndMalformedTextAreErrors) {
  EXPECT_FALSE(ParseJsonBounded("{\"x\": 1e400}").ok());
  EXPECT_FALSE(ParseJsonBounded("[" + std::string(400, '9') + "]").ok());
  EXPECT_FALSE(ParseJsonBounded("[-1e999]").ok());
  EXPECT_TRUE(ParseJsonBounded("[1e300, 18446744073709551615]").ok());
  EXPECT_FALSE(ParseJsonBounded("{\"x\": ").ok());
  EXPECT_FALSE(ParseJsonBounded("").ok());
}

TEST(JsonLimits, ReadFileRefusesFilesOverItsLimitAndNonRegularFiles) {
  auto dir = std::filesystem::temp_directory_path() / ("mmdiff_limits_" + std::to_string(getpid()));
  std::string path = (dir / "a.json").string();
  ASSERT_TRUE(WriteFileAtomic(path, std::string(2048, ' ')).ok());
  EXPECT_TRUE(ReadFile(path, 2048).ok());
  auto over = ReadFile(path, 1024);
  ASSERT_FALSE(over.ok());
  EXPECT_NE(over.error().find("larger than"), std::string::npos) << over.error();
  auto device = ReadFile("/dev/zero");
  ASSERT_FALSE(device.ok());
  EXPECT_NE(device.error().find("not a regular file"), std::string::npos);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace mmdiff
