// Tests for pass coverage: rewrites read from compiled runs' internals, counted per program, merged
// across shards, written and read back, and shown as a table.
#include "src/report/rewrite_coverage.h"

#include <gtest/gtest.h>

namespace mmdiff {
namespace {

PathResult Compiled(std::vector<std::string> internals) {
  PathResult r;
  r.path = "inductor";
  r.kind = OutcomeKind::kOk;
  r.compile.present = true;
  r.compile.internals = std::move(internals);
  return r;
}

TEST(RewriteCoverage, OnlyInternalsNamedRewriteAreRewrites) {
  std::set<std::string> reached;
  AddRewrites({Compiled({"extern:mm", "fused:1", "rewrite:fuse_attention._sfdp_pattern_1"}),
               Compiled({"pattern:pattern_matcher_count", "rewrite:", "rewrite:joint_graph.x"}),
               PathResult{}},
              reached);
  EXPECT_EQ(reached, (std::set<std::string>{"fuse_attention._sfdp_pattern_1", "joint_graph.x"}));
}

TEST(RewriteCoverage, ProgramsAddUpAndTheFirstIsTheSmallestCaseIndex) {
  RewriteCoverage a, b;
  a.AddProgram({"x", "y"}, 7, 107, 3.5);
  a.AddProgram({"x"}, 4, 104, 9.0);  // counted later, but the smaller case
  b.AddProgram({"x", "z"}, 2, 102, 1.0);
  EXPECT_EQ(a.rewrites.at("x").programs, 2);
  EXPECT_EQ(a.rewrites.at("x").first_index, 4);
  EXPECT_EQ(a.rewrites.at("x").first_seed, 104u);
  a += b;
  EXPECT_EQ(a.rewrites.at("x").programs, 3);
  EXPECT_EQ(a.rewrites.at("x").first_index, 2);
  EXPECT_EQ(a.rewrites.at("x").first_found_s, 1.0);
  EXPECT_EQ(a.rewrites.at("y").first_index, 7);
  EXPECT_EQ(a.rewrites.at("z").programs, 1);
}

TEST(RewriteCoverage, JsonRoundTripsAndBadFieldsAreNamed) {
  RewriteCoverage a;
  a.AddProgram({"post_grad.unfuse_bias_add_to_pointwise", "decompose:mm"}, 3, 33, 12.25);
  auto back = RewriteCoverage::FromJson(a.ToJson());
  ASSERT_TRUE(back.ok()) << back.error();
  EXPECT_EQ(back.value().ToJson(), a.ToJson());

  auto bad = [&](nlohmann::json j, const std::string& needle) {
    auto r = RewriteCoverage::FromJson(j);
    ASSERT_FALSE(r.ok()) << j.dump();
    EXPECT_NE(r.error().find(needle), std::string::npos) << r.error();
  };
  nlohmann::json good = a.ToJson();
  bad(nlohmann::json::array(), "must be an object");
  nlohmann::json j = good;
  j["a b<script>"] = good.begin().value();
  bad(j, "is not a rewrite name");
  j = good;
  j["decompose:mm"]["programs"] = 0;
  bad(j, "rewrites.\"decompose:mm\".programs is out of range");
  j = good;
  j["decompose:mm"]["first_index"] = "3";
  bad(j, "first_index must be an integer");
  j = good;
  j["decompose:mm"]["first_found_s"] = -1;
  bad(j, "first_found_s is out of range");
  j = good;
  j["decompose:mm"].erase("first_seed");
  bad(j, "first_seed");
}

TEST(RewriteCoverage, TableListsMostReachedFirstWithTheBucketsThatReachedIt) {
  RewriteCoverage c;
  c.AddProgram({"rare"}, 9, 19, 40);
  c.AddProgram({"common"}, 1, 11, 2);
  c.AddProgram({"common"}, 2, 12, 3);
  auto rows = RewriteRows(c, {{"00000000000000aa", {"rare"}}, {"00000000000000bb", {"other"}}});
  const std::string table = RewriteTable(rows, 4);
  EXPECT_LT(table.find("common"), table.find("rare")) << table;
  EXPECT_NE(table.find("50.0%"), std::string::npos) << table;
  EXPECT_NE(table.find("19, 40"), std::string::npos) << table;
  EXPECT_NE(table.find("00000000000000aa"), std::string::npos) << table;
  EXPECT_EQ(table.find("00000000000000bb"), std::string::npos) << table;
  EXPECT_EQ(RewriteTable({}, 4), "no compiled program reported a rewrite\n");
}

TEST(RewriteCoverage, NamesAreShortPlainWords) {
  EXPECT_TRUE(ValidRewriteName("fuse_attention._sfdp_pattern_1"));
  EXPECT_TRUE(ValidRewriteName("decompose:addmm"));
  EXPECT_FALSE(ValidRewriteName(""));
  EXPECT_FALSE(ValidRewriteName("a/b"));
  EXPECT_FALSE(ValidRewriteName(std::string(201, 'a')));
}

}  // namespace
}  // namespace mmdiff
