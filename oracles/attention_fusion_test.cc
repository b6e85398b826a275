// Tests for reading Inductor's attention fusions off a compiled path's rewrites: a rewrite's name
// gives its pattern, and a signature's `fused=` field is a list of whole pattern names.
#include "oracles/attention_fusion.h"

#include <gtest/gtest.h>

namespace mmdiff {
namespace {

TEST(AttentionFusion, ARewritesPatternIsItsNameUpToTheVariant) {
  EXPECT_EQ(AttentionFusionPattern("_sfdp_pattern_12_bs1_training"), "_sfdp_pattern_12");
  EXPECT_EQ(AttentionFusionPattern("_sfdp_pattern_5"), "_sfdp_pattern_5");
  EXPECT_EQ(AttentionFusionPattern("_sfdp_pattern_"), "");
  EXPECT_EQ(AttentionFusionPattern("joint_graph.pointless_convert"), "");
}

TEST(AttentionFusion, AFusedFieldIsAListOfWholePatternNames) {
  EXPECT_TRUE(AttentionFusionPatterns("_sfdp_pattern_5"));
  EXPECT_TRUE(AttentionFusionPatterns("_sfdp_pattern_5,_sfdp_pattern_6"));
  EXPECT_FALSE(AttentionFusionPatterns(""));
  EXPECT_FALSE(AttentionFusionPatterns("_sfdp_pattern_5_training"));
  EXPECT_FALSE(AttentionFusionPatterns("_sfdp_pattern_5,"));
  EXPECT_FALSE(AttentionFusionPatterns("_sfdp_pattern_5,decompose.mm"));
}

}  // namespace
}  // namespace mmdiff
