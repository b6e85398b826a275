// Tests for path traits and unsupported reasons: round trips, and malformed values from a worker
// rejected with an error that names them.
#include "src/ir/path_traits.h"

#include <gtest/gtest.h>

namespace mmdiff {
namespace {

TEST(PathTraits, RoundTripEveryTraitOnItsOwn) {
  for (bool PathTraits::* field :
       {&PathTraits::compiled, &PathTraits::on_demand, &PathTraits::variant, &PathTraits::test_only,
        &PathTraits::needs_gpu, &PathTraits::keeps_state}) {
    PathTraits t;
    t.*field = true;
    auto back = PathTraitsFromJson(PathTraitsToJson(t));
    ASSERT_TRUE(back.ok()) << back.error();
    EXPECT_EQ(back.value(), t);
    EXPECT_NE(back.value(), PathTraits{});
  }
  auto none = PathTraitsFromJson(PathTraitsToJson({}));
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(none.value(), PathTraits{});
}

TEST(PathTraits, SlowIsOnDemandForItsCostNotAsAVariant) {
  EXPECT_TRUE((PathTraits{.compiled = true, .on_demand = true}).slow());
  EXPECT_FALSE((PathTraits{.compiled = true, .on_demand = true, .variant = true}).slow());
  EXPECT_FALSE((PathTraits{.compiled = true}).slow());
}

TEST(PathTraits, MalformedTraitsAreErrorsThatNameTheTrait) {
  nlohmann::json good = PathTraitsToJson({.compiled = true});
  auto error = [](const nlohmann::json& j) {
    auto r = PathTraitsFromJson(j);
    return r.ok() ? std::string("accepted") : r.error();
  };
  nlohmann::json bad = good;
  bad["compiled"] = "yes";
  EXPECT_NE(error(bad).find("\"compiled\" must be true or false"), std::string::npos) << error(bad);
  bad = good;
  bad.erase("needs_gpu");
  EXPECT_NE(error(bad).find("\"needs_gpu\" is missing"), std::string::npos) << error(bad);
  bad = good;
  bad["fast"] = true;
  EXPECT_NE(error(bad).find("unknown trait \"fast\""), std::string::npos) << error(bad);
  EXPECT_NE(error(nlohmann::json::array()).find("must be an object"), std::string::npos);
  EXPECT_NE(error(nullptr).find("must be an object"), std::string::npos);
}

TEST(UnsupportedReason, EveryReasonRoundTripsByNameAndOtherNamesAreRejected) {
  for (UnsupportedReason r : {UnsupportedReason::kNone, UnsupportedReason::kNoGpu,
                              UnsupportedReason::kDevice, UnsupportedReason::kUnavailable,
                              UnsupportedReason::kUnknownPath, UnsupportedReason::kRejected}) {
    auto back = ParseUnsupportedReason(UnsupportedReasonName(r));
    ASSERT_TRUE(back.ok()) << UnsupportedReasonName(r);
    EXPECT_EQ(back.value(), r);
  }
  EXPECT_EQ(UnsupportedReasonName(UnsupportedReason::kNoGpu), "no_gpu");
  auto bad = ParseUnsupportedReason("no GPU");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error(), "unknown unsupported reason \"no GPU\"");
  EXPECT_FALSE(ParseUnsupportedReason("").ok());
}

}  // namespace
}  // namespace mmdiff
