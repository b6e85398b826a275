// Tests for the rewrite catalogue: what the install's Python writes is read with checks, campaigns'
// coverage is summed from their summaries, and the family's unreached rewrites are listed.
#include "src/campaign/rewrite_catalogue.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "src/support/files.h"

namespace mmdiff {
namespace {

const char* kCatalogue = R"([
  {"name": "_sfdp_pattern_1_inference", "kind": "replacement", "family": true, "ops": ["bmm"], "note": ""},
  {"name": "post_grad.addmm", "kind": "graph", "family": true, "ops": ["add", "mm"], "note": ""},
  {"name": "post_grad.unfuse_bias_add_to_pointwise", "kind": "graph", "family": true, "ops": ["addmm"], "note": "GPU only"},
  {"name": "replace_random.replace_random", "kind": "graph", "family": false, "ops": ["rand"], "note": ""}
])";

TEST(RewriteCatalogue, UnreachedFamilyRewritesAreListedApartFromThoseACpuCannotReach) {
  auto cat = ParseRewriteCatalogue(kCatalogue);
  ASSERT_TRUE(cat.ok()) << cat.error();
  ASSERT_EQ(cat.value().size(), 4u);
  RewriteCoverage reached;
  reached.AddProgram({"post_grad.addmm"}, 0, 1, 1.0);
  const std::string text = UnreachedReport(cat.value(), reached, 10, /*all=*/false);
  EXPECT_NE(text.find("1 of 3 matmul/attention-family rewrites reached by 10 programs; 1 never "
                      "reached that a CPU program could reach, 1 that it cannot"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("never reached:\n  _sfdp_pattern_1_inference"), std::string::npos) << text;
  EXPECT_NE(text.find("unfuse_bias_add_to_pointwise  (GPU only)"), std::string::npos) << text;
  EXPECT_EQ(text.find("replace_random"), std::string::npos) << text;  // not the family's
  EXPECT_EQ(text.find("reached (programs)"), std::string::npos) << text;
  EXPECT_NE(UnreachedReport(cat.value(), reached, 10, true).find("post_grad.addmm  1"),
            std::string::npos);
}

TEST(RewriteCatalogue, ABadCatalogueIsAnErrorNamingTheEntry) {
  auto bad = [](const std::string& text, const std::string& needle) {
    auto r = ParseRewriteCatalogue(text);
    ASSERT_FALSE(r.ok()) << text;
    EXPECT_NE(r.error().find(needle), std::string::npos) << r.error();
  };
  bad("not json", "not JSON");
  bad("{}", "must be an array");
  bad(R"([{"name": "a b", "kind": "graph", "family": true, "ops": [], "note": ""}])",
      "catalogue entry 0: not a rewrite name");
  bad(R"([{"name": "a", "kind": "graph", "family": 1, "ops": [], "note": ""}])",
      "\"family\" must be true or false");
  bad(R"([{"name": "a", "kind": "graph", "family": true, "ops": [3], "note": ""}])",
      "\"ops\" must be an array of op names");
  bad(R"([{"name": "a", "kind": "graph", "family": true, "ops": []}])",
      "\"note\" must be a string");
  auto odd = ParseRewriteCatalogue(
      R"([{"name": "a", "kind": "graph", "family": true, "ops": [], "note": "x\u001b[2Jy"}])");
  ASSERT_TRUE(odd.ok());
  EXPECT_EQ(odd.value()[0].note, "x?[2Jy");  // printed as it is: no terminal escapes
}

TEST(RewriteCatalogue, CampaignsAndShardsAddUpAndABadSummaryIsNamed) {
  PrivateTempDir tmp("mmdiff-rewrite-catalogue-test");
  ASSERT_TRUE(tmp.ok());
  namespace fs = std::filesystem;
  fs::create_directories(tmp.File("run/shard-0"));
  fs::create_directories(tmp.File("run/shard-1"));
  const std::string summary =
      R"({"format": "mmdiff.fuzz-summary", "cases": 4, "rewrites": {"post_grad.addmm":
         {"programs": 2, "first_index": 3, "first_seed": 4, "first_found_s": 1.5}}})";
  ASSERT_TRUE(WriteFileAtomic(tmp.File("run/shard-0/summary.json"), summary).ok());
  ASSERT_TRUE(WriteFileAtomic(tmp.File("run/shard-1/summary.json"), summary).ok());
  int64_t programs = 0;
  auto sum = ReadCampaignRewrites({tmp.File("run")}, programs);
  ASSERT_TRUE(sum.ok()) << sum.error();
  EXPECT_EQ(programs, 8);
  EXPECT_EQ(sum.value().rewrites.at("post_grad.addmm").programs, 4);

  fs::create_directories(tmp.File("empty"));
  auto none = ReadCampaignRewrites({tmp.File("empty")}, programs);
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.error().find("holds no summary.json"), std::string::npos) << none.error();
  ASSERT_TRUE(WriteFileAtomic(tmp.File("run/shard-1/summary.json"),
                              R"({"format": "mmdiff.fuzz-summary", "cases": 1, "rewrites": 3})")
                  .ok());
  auto broken = ReadCampaignRewrites({tmp.File("run")}, programs);
  ASSERT_FALSE(broken.ok());
  EXPECT_NE(broken.error().find("shard-1/summary.json: \"rewrites\" must be an object"),
            std::string::npos)
      << broken.error();
  EXPECT_FALSE(ReadCampaignRewrites({tmp.File("nothing-here")}, programs).ok());
}

}  // namespace
}  // namespace mmdiff
