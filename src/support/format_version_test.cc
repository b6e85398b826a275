#include "src/support/format_version.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

namespace mmdiff {
namespace {

TEST(FormatVersion, ReadsAnIntegerInRange) {
  auto v = ReadFormatVersion({{"version", 2}}, "report", 1, 3);
  ASSERT_TRUE(v.ok()) << v.error();
  EXPECT_EQ(v.value(), 2);
  auto g = ReadFormatVersion({{"generator_version", 12}}, "summary", 12, 12, "generator_version");
  ASSERT_TRUE(g.ok()) << g.error();
  EXPECT_EQ(g.value(), 12);
}

TEST(FormatVersion, AnythingElseIsAnErrorNamingTheFieldOrTheValue) {
  for (const nlohmann::json& j : {nlohmann::json::object(), nlohmann::json{{"version", "1"}},
                                  nlohmann::json{{"version", 1.5}},
                                  nlohmann::json{{"version", nullptr}}, nlohmann::json::array()}) {
    auto v = ReadFormatVersion(j, "report", 1, 3);
    ASSERT_FALSE(v.ok()) << j.dump();
    EXPECT_EQ(v.error(), "report: \"version\" must be an integer") << j.dump();
  }
  const uint64_t huge = std::numeric_limits<uint64_t>::max();
  const uint64_t wraps_to_one = (uint64_t{1} << 32) + 1;
  for (const nlohmann::json& value :
       {nlohmann::json(0), nlohmann::json(4), nlohmann::json(-1), nlohmann::json(huge),
        nlohmann::json(wraps_to_one), nlohmann::json(std::numeric_limits<int64_t>::min())}) {
    auto v = ReadFormatVersion({{"version", value}}, "report", 1, 3);
    ASSERT_FALSE(v.ok()) << value.dump();
    EXPECT_EQ(v.error(), "report format version " + value.dump() +
                             " is not supported (this mmdiff reads versions 1 to 3)");
  }
  auto one = ReadFormatVersion({{"version", 2}}, "program", 1, 1);
  ASSERT_FALSE(one.ok());
  EXPECT_EQ(one.error(), "program format version 2 is not supported (this mmdiff reads version 1)");
}

}  // namespace
}  // namespace mmdiff
