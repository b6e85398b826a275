// Tests for static type inference.
#include "src/ir/static_types.h"

#include <gtest/gtest.h>

namespace mmdiff {
namespace {

TEST(StaticTypes, ShapesAndDtypesFollowTheOps) {
  Program p;
  p.inputs = {{"a", {2, 3}, DType::kFloat16},
              {"b", {3, 4}, DType::kFloat16},
              {"c", {4}, DType::kBFloat16},
              {"d", {5, 5}, DType::kFloat32}};
  p.nodes = {{"v0", OpKind::kMm, {"a", "b"}},
             {"v1", OpKind::kAdd, {"v0", "c"}},
             {"v2", OpKind::kCast, {"v1"}, DType::kFloat64},
             {"v3", OpKind::kMm, {"v2", "d"}},  // shape violation: 2x4 @ 5x5
             {"v4", OpKind::kMm, {"v3", "d"}},  // its argument's shape is unknown
             {"v5", OpKind::kMm, {"ghost", "d"}}};
  auto t = InferStaticTypes(p);
  EXPECT_EQ(t.at("v0").shape, (Shape{2, 4}));
  EXPECT_EQ(t.at("v1").dtype, DType::kFloat32);  // float16 + bfloat16 promote to float32
  EXPECT_EQ(t.at("v2").dtype, DType::kFloat64);
  EXPECT_FALSE(t.at("v3").shape.has_value());
  EXPECT_EQ(t.at("v3").dtype, DType::kFloat64);
  EXPECT_FALSE(t.at("v4").shape.has_value());
  EXPECT_FALSE(t.count("v5"));
}

}  // namespace
}  // namespace mmdiff
