// EscapeMarkup: entities, line breaks in attributes, forbidden control characters.
#include "src/support/markup.h"

#include <gtest/gtest.h>

namespace mmdiff {
namespace {

TEST(Markup, EscapesEntitiesAndDropsForbiddenControlCharacters) {
  EXPECT_EQ(EscapeMarkup("a<b & \"c\" 'd'>"), "a&lt;b &amp; &quot;c&quot; &#39;d&#39;&gt;");
  EXPECT_EQ(EscapeMarkup(std::string("x\x01y\ny", 5)), "xy\ny");
  EXPECT_EQ(EscapeMarkup("l1\nl2\tz", false), "l1&#10;l2&#9;z");
}

}  // namespace
}  // namespace mmdiff
