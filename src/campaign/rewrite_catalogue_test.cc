// Tests for the rewrite catalogue: what the install's Python writes is read with checks, and the
// family's unreached rewrites are listed.
#include "src/campaign/rewrite_catalogue.h"

#include <gtest/gtest.h>

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
  EXPECT_EQ(text.find("lowerings"), std::string::npos) << text;  // the catalogue has none
}

// The lowerings (kind "kernel") are counted on a line of their own and listed with the rewrites.
TEST(RewriteCatalogue, LoweringsAreCountedApartFromRewrites) {
  auto cat = ParseRewriteCatalogue(R"([
    {"name": "post_grad.addmm", "kind": "graph", "family": true, "ops": ["add", "mm"], "note": ""},
    {"name": "lowering:template.CppGemmTemplate", "kind": "kernel", "family": true,
     "ops": ["mm"], "note": ""},
    {"name": "lowering:micro_gemm.CppMicroGemmFP32Vec.VecAVX512.float32", "kind": "kernel",
     "family": true, "ops": ["mm"], "note": ""},
    {"name": "lowering:micro_gemm.CppMicroGemmAMX.VecAMX.bfloat16", "kind": "kernel",
     "family": true, "ops": ["mm"], "note": "needs AMX"}])");
  ASSERT_TRUE(cat.ok()) << cat.error();
  RewriteCoverage reached;
  reached.AddProgram({"lowering:template.CppGemmTemplate"}, 0, 1, 1.0);
  const std::string text = UnreachedReport(cat.value(), reached, 4, /*all=*/false);
  EXPECT_NE(text.find("0 of 1 matmul/attention-family rewrites reached by 4 programs; 1 never"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("1 of 3 lowerings (the kernels a product can get on this CPU) reached by 4 "
                      "programs; 1 never reached that a CPU program could reach, 1 that it cannot"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  lowering:micro_gemm.CppMicroGemmFP32Vec.VecAVX512.float32  (kernel)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("CppMicroGemmAMX.VecAMX.bfloat16  (needs AMX)"), std::string::npos) << text;
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

}  // namespace
}  // namespace mmdiff
