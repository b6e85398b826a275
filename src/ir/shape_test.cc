// Tests for shape rules: broadcasting and matmul at every rank pairing.
#include "src/ir/shape.h"

#include <gtest/gtest.h>

#include "src/ir/op.h"

namespace mmdiff {
namespace {

Shape MustMatmul(const Shape& a, const Shape& b) {
  auto r = MatmulShape(a, b);
  EXPECT_TRUE(r.ok()) << r.error();
  return r.ok() ? r.value() : Shape{};
}

TEST(Shape, MatmulFollowsTorchRankRules) {
  EXPECT_EQ(MustMatmul({3}, {3}), Shape{});                             // dot
  EXPECT_EQ(MustMatmul({2, 3}, {3}), Shape{2});                         // mv
  EXPECT_EQ(MustMatmul({3}, {3, 4}), Shape{4});                         // 1-D @ 2-D
  EXPECT_EQ(MustMatmul({2, 3}, {3, 4}), (Shape{2, 4}));                 // mm
  EXPECT_EQ(MustMatmul({5, 2, 3}, {3, 4}), (Shape{5, 2, 4}));           // folds into mm
  EXPECT_EQ(MustMatmul({3}, {5, 3, 4}), (Shape{5, 4}));                 // 1-D @ batched
  EXPECT_EQ(MustMatmul({2, 1, 2, 3}, {4, 3, 6}), (Shape{2, 4, 2, 6}));  // batch broadcast
}

// What eager's matmul reaches, as scripts/contract-probe.py saw it on torch 2.11.0 (cuda, where
// mm-path and bmm-path errors differ in class) and 2.15.0 (cpu, where their messages differ).
TEST(Shape, MatmulReachesTheFunctionEagerDispatchesTo) {
  EXPECT_EQ(MatmulReaches({4}, {4}), "dot");
  EXPECT_EQ(MatmulReaches({3, 4}, {4}), "mv");
  EXPECT_EQ(MatmulReaches({2, 3, 4}, {4}), "mv");  // folded
  EXPECT_EQ(MatmulReaches({4}, {4, 5}), "mm");
  EXPECT_EQ(MatmulReaches({3, 4}, {4, 5}), "mm");
  EXPECT_EQ(MatmulReaches({2, 3, 4}, {4, 5}), "mm");  // folded
  EXPECT_EQ(MatmulReaches({3, 4}, {2, 4, 5}), "bmm");
  EXPECT_EQ(MatmulReaches({2, 3, 4}, {2, 4, 5}), "bmm");
  EXPECT_EQ(MatmulReaches({4}, {2, 4, 5}), "bmm");  // the transposed batch is not one matrix
  EXPECT_EQ(MatmulReaches({1}, {2, 1, 5}), "mv");   // ... unless the row has one element
  EXPECT_EQ(MatmulReaches({4}, {2, 4, 0}), "mv");   // or the batch is empty: "addmv" errors
}

TEST(Shape, MatmulRejectsMismatchedInnerDimsAndScalars) {
  EXPECT_FALSE(MatmulShape({2, 3}, {4, 5}).ok());
  EXPECT_FALSE(MatmulShape({}, {3}).ok());
  EXPECT_FALSE(MatmulShape({2, 2, 3}, {3, 3, 4}).ok());  // batch 2 vs 3
}

TEST(Shape, OpShapeRules) {
  EXPECT_EQ(InferShape(OpKind::kBmm, {{2, 3, 4}, {2, 4, 5}}).value(), (Shape{2, 3, 5}));
  EXPECT_FALSE(InferShape(OpKind::kBmm, {{3, 4}, {4, 5}}).ok());
  EXPECT_FALSE(InferShape(OpKind::kMm, {{2, 3, 4}, {4, 5}}).ok());
  EXPECT_EQ(InferShape(OpKind::kAddmm, {{5}, {2, 3}, {3, 5}}).value(), (Shape{2, 5}));
  EXPECT_EQ(InferShape(OpKind::kAddmm, {{2, 1}, {2, 3}, {3, 5}}).value(), (Shape{2, 5}));
  EXPECT_FALSE(InferShape(OpKind::kAddmm, {{4}, {2, 3}, {3, 5}}).ok());
  EXPECT_FALSE(InferShape(OpKind::kAddmm, {{1, 2, 5}, {2, 3}, {3, 5}}).ok());
}

TEST(Shape, ContiguousStrides) {
  EXPECT_EQ(ContiguousStrides({2, 3, 4}), (std::vector<int64_t>{12, 4, 1}));
}

}  // namespace
}  // namespace mmdiff

namespace mmdiff {
namespace {

TEST(Shape, VectorAndBatchReduceOps) {
  EXPECT_EQ(InferShape(OpKind::kMv, {{4, 3}, {3}}).value(), Shape{4});
  EXPECT_FALSE(InferShape(OpKind::kMv, {{2, 4, 3}, {3}}).ok());
  EXPECT_FALSE(InferShape(OpKind::kMv, {{4, 3}, {2}}).ok());
  EXPECT_EQ(InferShape(OpKind::kDot, {{5}, {5}}).value(), Shape{});
  EXPECT_FALSE(InferShape(OpKind::kDot, {{5}, {4}}).ok());
  EXPECT_FALSE(InferShape(OpKind::kDot, {{5, 1}, {5}}).ok());
  EXPECT_EQ(InferShape(OpKind::kAddmv, {{1}, {4, 3}, {3}}).value(), Shape{4});
  EXPECT_FALSE(InferShape(OpKind::kAddmv, {{3}, {4, 3}, {3}}).ok());
  EXPECT_EQ(InferShape(OpKind::kBaddbmm, {{2}, {3, 4, 5}, {3, 5, 2}}).value(), (Shape{3, 4, 2}));
  EXPECT_EQ(InferShape(OpKind::kBaddbmm, {{3, 1, 2}, {3, 4, 5}, {3, 5, 2}}).value(),
            (Shape{3, 4, 2}));
  EXPECT_FALSE(InferShape(OpKind::kBaddbmm, {{2, 4, 2}, {3, 4, 5}, {3, 5, 2}}).ok());
  EXPECT_EQ(InferShape(OpKind::kAddbmm, {{4, 1}, {3, 4, 5}, {3, 5, 2}}).value(), (Shape{4, 2}));
  EXPECT_FALSE(InferShape(OpKind::kAddbmm, {{3, 4, 2}, {3, 4, 5}, {3, 5, 2}}).ok());
}

TEST(Shape, LinearWithAndWithoutBias) {
  EXPECT_EQ(InferShape(OpKind::kLinear, {{5, 2, 3}, {4, 3}}).value(), (Shape{5, 2, 4}));
  EXPECT_EQ(InferShape(OpKind::kLinear, {{3}, {4, 3}, {4}}).value(), Shape{4});
  EXPECT_EQ(InferShape(OpKind::kLinear, {{5, 3}, {3}}).value(), Shape{5});
  EXPECT_FALSE(InferShape(OpKind::kLinear, {{5, 3}, {4, 3}, {5}}).ok());
  EXPECT_FALSE(InferShape(OpKind::kLinear, {{5, 3}, {4, 2}}).ok());
  EXPECT_FALSE(InferShape(OpKind::kLinear, {{5, 3}}).ok());
}

}  // namespace
}  // namespace mmdiff

namespace mmdiff {
namespace {

TEST(Shape, ViewRules) {
  EXPECT_EQ(InferShape(OpKind::kTranspose, {{2, 3, 4}}, {0, -1}).value(), (Shape{4, 3, 2}));
  EXPECT_EQ(InferShape(OpKind::kPermute, {{2, 3, 4}}, {2, 0, 1}).value(), (Shape{4, 2, 3}));
  EXPECT_FALSE(InferShape(OpKind::kPermute, {{2, 3, 4}}, {0, 0, 1}).ok());
  EXPECT_EQ(InferShape(OpKind::kReshape, {{2, 3, 4}}, {6, -1}).value(), (Shape{6, 4}));
  EXPECT_FALSE(InferShape(OpKind::kReshape, {{2, 3, 4}}, {5, -1}).ok());
  EXPECT_EQ(InferShape(OpKind::kExpand, {{1, 3}}, {5, 2, -1}).value(), (Shape{5, 2, 3}));
  EXPECT_FALSE(InferShape(OpKind::kExpand, {{2, 3}}, {4, 3}).ok());
  EXPECT_FALSE(InferShape(OpKind::kExpand, {{3}}, {-1, 3}).ok());
  EXPECT_EQ(InferShape(OpKind::kNarrow, {{2, 7}}, {-1, 2, 4}).value(), (Shape{2, 4}));
  EXPECT_FALSE(InferShape(OpKind::kNarrow, {{2, 7}}, {1, 5, 4}).ok());
  // A start beyond the dim is eager's IndexError "start out of range", checked before the length.
  auto far = InferShape(OpKind::kNarrow, {{3, 1, 63}}, {-2, 2, 5});
  ASSERT_FALSE(far.ok());
  EXPECT_EQ(
      far.error().rfind("start out of range (expected to be in range of [-1, 1], but got 2)", 0),
      0u)
      << far.error();
  EXPECT_EQ(InferShape(OpKind::kNarrow, {{2, 7}}, {1, 7, 0}).value(), (Shape{2, 0}));
  auto oor = InferShape(OpKind::kTranspose, {{2, 3}}, {0, 5});
  ASSERT_FALSE(oor.ok());
  EXPECT_EQ(oor.error().rfind("Dimension out of range", 0), 0u);
}

}  // namespace
}  // namespace mmdiff
