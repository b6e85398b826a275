// Tests for a worker's path announcement: round trip, and every malformed field an error naming it.
#include "src/exec/path_info.h"

#include <gtest/gtest.h>

namespace mmdiff {
namespace {

std::string Error(const nlohmann::json& j) {
  auto r = PathInfoFromJson(j);
  return r.ok() ? "accepted" : r.error();
}

TEST(PathInfo, RoundTripKeepsNameAvailabilityAndTraits) {
  PathInfo p{"aoti", false, "no C++ compiler",
             PathTraits{.compiled = true, .on_demand = true, .needs_gpu = true}};
  auto back = PathInfoFromJson(PathInfoToJson(p));
  ASSERT_TRUE(back.ok()) << back.error();
  EXPECT_EQ(back.value().name, "aoti");
  EXPECT_FALSE(back.value().available);
  EXPECT_EQ(back.value().why, "no C++ compiler");
  EXPECT_EQ(back.value().traits, p.traits);
  EXPECT_TRUE(back.value().traits.slow());
}

TEST(PathInfo, MalformedAnnouncementsAreErrorsNamingWhatIsWrong) {
  nlohmann::json good = PathInfoToJson({"inductor", true, "", PathTraits{.compiled = true}});
  ASSERT_EQ(Error(good), "accepted");
  nlohmann::json bad = good;
  bad["traits"]["compiled"] = 1;
  EXPECT_EQ(Error(bad), "path \"inductor\": path traits: \"compiled\" must be true or false");
  bad = good;
  bad["traits"]["quick"] = false;
  EXPECT_EQ(Error(bad), "path \"inductor\": path traits: unknown trait \"quick\"");
  bad = good;
  bad.erase("traits");
  EXPECT_EQ(Error(bad), "path \"inductor\": no \"traits\"");
  bad = good;
  bad["available"] = "yes";
  EXPECT_EQ(Error(bad), "path \"inductor\": \"available\" must be true or false");
  bad = good;
  bad["why"] = 3;
  EXPECT_EQ(Error(bad), "path \"inductor\": \"why\" must be a string");
  bad = good;
  bad["name"] = "";
  EXPECT_EQ(Error(bad), "a path needs a \"name\"");
  EXPECT_EQ(Error("inductor"), "a path must be an object");
  // "why" may be left out.
  bad = good;
  bad.erase("why");
  EXPECT_EQ(Error(bad), "accepted");
}

std::vector<PathInfo> Offered() {
  return {{"reference", true, "", {}},
          {"cuda_only", false, "no GPU", {}},
          {"aoti", true, "", PathTraits{.compiled = true, .on_demand = true}},
          {"planted_drop_k", true, "", PathTraits{.test_only = true}},
          {"planted_promote", true, "", PathTraits{.test_only = true}},
          {"eager", true, "", {}}};
}

TEST(SelectPaths, TheDefaultIsWhatRunsHereNotOnDemandAndOfTheTestPathsOnlyPlantedPromote) {
  auto r = SelectPaths(Offered(), "", true);
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.value(), (std::vector<std::string>{"reference", "planted_promote", "eager"}));
}

TEST(SelectPaths, AListIsTakenInItsOrderAndAnUnknownNameIsAnErrorSayingWhatIsOffered) {
  auto r = SelectPaths(Offered(), "eager,,aoti,cuda_only", false);
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.value(), (std::vector<std::string>{"eager", "aoti", "cuda_only"}));
  auto bad = SelectPaths(Offered(), "eager,planted_crash", false);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().find("unknown path \"planted_crash\""), std::string::npos) << bad.error();
  EXPECT_NE(bad.error().find("offers: reference cuda_only aoti"), std::string::npos) << bad.error();
  EXPECT_NE(bad.error().find("need --test-paths"), std::string::npos) << bad.error();
  EXPECT_EQ(SelectPaths(Offered(), "nope", true).error().find("need --test-paths"),
            std::string::npos);
}

}  // namespace
}  // namespace mmdiff
