// Tests for generation statistics: counts are per program and cover what the generator makes.
#include "src/gen/stats.h"

#include <gtest/gtest.h>

#include "src/ir/op.h"

namespace mmdiff {
namespace {

TEST(GenStats, EveryOpAndFloatDtypeAppearsAndCountsArePerProgram) {
  GenStats s = CollectStats(GenPolicy{}, 1, 2000);
  EXPECT_EQ(s.programs, 2000);
  for (OpKind k : AllOpKinds()) EXPECT_GT(s.programs_with["op"][std::string(GetOpSpec(k).name)], 0) << GetOpSpec(k).name;
  for (const char* d : {"float64", "float32", "float16", "bfloat16"}) EXPECT_GT(s.programs_with["dtype"][d], 0) << d;
  for (const auto& [category, features] : s.programs_with)
    for (const auto& [feature, count] : features) EXPECT_LE(count, s.programs) << category << "/" << feature;
  EXPECT_GT(s.programs_with["program"]["mixed_dtype_operands"], 100);
  EXPECT_GT(s.programs_with["layout"]["transposed"], 0);
  EXPECT_GT(s.programs_with["layout"]["k_1"], 0);
}

TEST(GenStats, PolicyChangesShowUp) {
  GenPolicy p;
  p.p_mixed_dtype = 0;
  p.p_cast = 0;
  p.w_attention = p.w_sdpa = 0;  // masks and attention's float32 softmax mix dtypes by design
  p.p_glue = 0;
  GenStats s = CollectStats(p, 1, 500);
  EXPECT_EQ(s.programs_with["program"].count("mixed_dtype_operands"), 0u);
  EXPECT_EQ(s.programs_with["op"].count("cast"), 0u);
  EXPECT_NE(StatsToText(s).find("500 programs"), std::string::npos);
  EXPECT_EQ(StatsToJson(s)["programs"], 500);
}

}  // namespace
}  // namespace mmdiff
