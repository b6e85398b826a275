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

// Probed on torch 2.15.0 cpu: a 0-d operand takes part in promotion only when its category (bool,
// integer, floating) is higher than the dimensioned operand's.
TEST(StaticTypes, ZeroDimOperandsPromoteOnlyAcrossCategories) {
  using D = DType;
  EXPECT_EQ(PromoteOperands(D::kFloat16, false, D::kFloat32, true), D::kFloat16);
  EXPECT_EQ(PromoteOperands(D::kFloat32, true, D::kFloat16, false), D::kFloat16);
  EXPECT_EQ(PromoteOperands(D::kInt32, false, D::kFloat16, true), D::kFloat16);
  EXPECT_EQ(PromoteOperands(D::kBool, false, D::kInt8, true), D::kInt8);
  EXPECT_EQ(PromoteOperands(D::kUInt8, false, D::kInt8, true), D::kUInt8);
  EXPECT_EQ(PromoteOperands(D::kFloat16, false, D::kFloat32, false), D::kFloat32);
  EXPECT_EQ(PromoteOperands(D::kFloat16, true, D::kFloat32, true), D::kFloat32);
  EXPECT_FALSE(PromoteOperands(D::kUInt8, false, D::kInt8, false).has_value());

  Program p;
  p.inputs = {{"x", {2, 3}, D::kInt32}, {"h", {}, D::kFloat16}, {"i", {2, 3}, D::kInt8}};
  p.nodes = {{"v0", OpKind::kDiv, {"x", "i"}},  // true division of integers: float32
             {"v1", OpKind::kMul, {"x", "h"}},
             {"v2", OpKind::kEqScalar, {"x"}, std::nullopt, 0.0},
             {"v3", OpKind::kWhere, {"v2", "x", "h"}},
             {"v4", OpKind::kFull, {"x"}, std::nullopt, 1.5, 1.0, {4, 1}},
             {"v5", OpKind::kFull, {"x"}, D::kBool, 1.0, 1.0, {}},
             {"v6", OpKind::kMaskedFill, {"x", "v2"}, std::nullopt, 2.0}};
  auto t = InferStaticTypes(p);
  EXPECT_EQ(t.at("v0").dtype, D::kFloat32);
  EXPECT_EQ(t.at("v1").dtype, D::kFloat16);
  EXPECT_EQ(t.at("v2").dtype, D::kBool);
  EXPECT_EQ(t.at("v3").dtype, D::kFloat16);
  EXPECT_EQ(t.at("v4").dtype, D::kInt32);
  EXPECT_EQ(t.at("v4").shape, (Shape{4, 1}));
  EXPECT_EQ(t.at("v5").dtype, D::kBool);
  EXPECT_EQ(t.at("v5").shape, Shape{});
  EXPECT_EQ(t.at("v6").dtype, D::kInt32);
}

}  // namespace
}  // namespace mmdiff
