// Tests for the backward building blocks: values against naive loops (matmul's gradients at every
// rank, broadcast batches summed), and bounds that hold for a float32 backward but not for one
// that leaves out a term.
#include "kernels/backward_ops.h"

#include <gtest/gtest.h>

#include <cmath>

#include "kernels/random_tensor_test_util.h"

namespace mmref {
namespace {

constexpr Arith kF32{Format::kF32, Format::kF32};

// Row-major index helpers for the naive loops.
double At(const RefTensor& t, std::vector<int64_t> idx) {
  int64_t off = 0;
  for (size_t d = 0; d < t.shape.size(); ++d) off = off * t.shape[d] + idx[d];
  return t.val[static_cast<size_t>(off)];
}

TEST(BackwardOps, MmGradientsAreGTimesBTransposedAndATransposedTimesG) {
  RefTensor a = RandomFloat32Tensor({3, 5}, 1), b = RandomFloat32Tensor({5, 4}, 2),
            g = RandomFloat32Tensor({3, 4}, 3);
  RefTensor da, db;
  ProductBackward(a, b, g, 1.0, kF32, &da, &db);
  ASSERT_EQ(da.shape, a.shape);
  ASSERT_EQ(db.shape, b.shape);
  for (int64_t i = 0; i < 3; ++i)
    for (int64_t k = 0; k < 5; ++k) {
      double s = 0;
      for (int64_t j = 0; j < 4; ++j) s += At(g, {i, j}) * At(b, {k, j});
      EXPECT_NEAR(At(da, {i, k}), s, 1e-12);
    }
  for (int64_t k = 0; k < 5; ++k)
    for (int64_t j = 0; j < 4; ++j) {
      double s = 0;
      for (int64_t i = 0; i < 3; ++i) s += At(a, {i, k}) * At(g, {i, j});
      EXPECT_NEAR(At(db, {k, j}), s, 1e-12);
    }
}

TEST(BackwardOps, BroadcastBatchIsSummedIntoTheOperandThatWasBroadcast) {
  // matmul([2, 3, 4], [4, 5]): b's gradient sums over the batch of 2.
  RefTensor a = RandomFloat32Tensor({2, 3, 4}, 4), b = RandomFloat32Tensor({4, 5}, 5),
            g = RandomFloat32Tensor({2, 3, 5}, 6);
  RefTensor da, db;
  ProductBackward(a, b, g, 0.5, kF32, &da, &db);
  ASSERT_EQ(da.shape, a.shape);
  ASSERT_EQ(db.shape, b.shape);
  for (int64_t k = 0; k < 4; ++k)
    for (int64_t j = 0; j < 5; ++j) {
      double s = 0;
      for (int64_t x = 0; x < 2; ++x)
        for (int64_t i = 0; i < 3; ++i) s += At(a, {x, i, k}) * At(g, {x, i, j});
      EXPECT_NEAR(At(db, {k, j}), 0.5 * s, 1e-12);
      // A backward that drops one term (batch 1, row 2) is outside the bound.
      double dropped = 0.5 * (s - At(a, {1, 2, k}) * At(g, {1, 2, j}));
      size_t e = static_cast<size_t>(k * 5 + j);
      if (std::fabs(At(a, {1, 2, k}) * At(g, {1, 2, j})) > 1e-3) {
        EXPECT_GT(std::fabs(dropped - db.val[e]), db.err[e]);
      }
      EXPECT_GT(db.err[e], 0);
    }
  for (int64_t x = 0; x < 2; ++x)
    for (int64_t i = 0; i < 3; ++i)
      for (int64_t k = 0; k < 4; ++k) {
        double s = 0;
        for (int64_t j = 0; j < 5; ++j) s += At(g, {x, i, j}) * At(b, {k, j});
        EXPECT_NEAR(At(da, {x, i, k}), 0.5 * s, 1e-12);
      }
}

TEST(BackwardOps, VectorOperandsKeepTheirShape) {
  // dot: g is a scalar; mv: b is 1-D.
  RefTensor a = RandomFloat32Tensor({6}, 7), b = RandomFloat32Tensor({6}, 8),
            g = MakeExact({}, {2.0});
  RefTensor da, db;
  ProductBackward(a, b, g, 1.0, kF32, &da, &db);
  ASSERT_EQ(da.shape, a.shape);
  for (size_t i = 0; i < 6; ++i) {
    EXPECT_EQ(da.val[i], 2.0 * b.val[i]);
    EXPECT_EQ(db.val[i], 2.0 * a.val[i]);
  }
  RefTensor m = RandomFloat32Tensor({3, 6}, 9), gv = RandomFloat32Tensor({3}, 10), dm, dv;
  ProductBackward(m, b, gv, 1.0, kF32, &dm, &dv);
  ASSERT_EQ(dm.shape, m.shape);
  ASSERT_EQ(dv.shape, b.shape);
  EXPECT_NEAR(dm.val[7], gv.val[1] * b.val[1], 1e-12);
}

TEST(BackwardOps, SumToSumsLeadingAndSizeOneDims) {
  RefTensor g = RandomFloat32Tensor({2, 3, 4}, 11);
  RefTensor r = SumTo(g, {3, 1}, kF32);
  ASSERT_EQ(r.shape, (std::vector<int64_t>{3, 1}));
  for (int64_t i = 0; i < 3; ++i) {
    double s = 0;
    for (int64_t x = 0; x < 2; ++x)
      for (int64_t j = 0; j < 4; ++j) s += At(g, {x, i, j});
    EXPECT_NEAR(r.val[static_cast<size_t>(i)], s, 1e-12);
  }
  RefTensor same = SumTo(g, {2, 3, 4}, kF32);
  EXPECT_EQ(same.val, g.val);
}

TEST(BackwardOps, SumTermsFollowsSpecialValues) {
  RefTensor a = MakeExact({2}, {INFINITY, 1.0}), b = MakeExact({2}, {-INFINITY, 2.0});
  RefTensor r = SumTerms({a, b}, kF32);
  EXPECT_TRUE(std::isnan(r.val[0]));
  EXPECT_EQ(r.val[1], 3.0);
  RefTensor exact = SumTerms({MakeExact({1}, {0.5}), MakeExact({1}, {0.25})}, kF32);
  EXPECT_EQ(exact.val[0], 0.75);
  EXPECT_EQ(exact.err[0], 0.0);  // exact terms whose every sum is exact: bit for bit
}

TEST(BackwardOps, SoftmaxBackwardIsYTimesGMinusItsWeightedSum) {
  // Rows of a softmax output (positive, each summing to 1) along dim 1 of [2, 3, 2].
  RefTensor y =
      MakeExact({2, 3, 2}, {0.2, 0.5, 0.3, 0.25, 0.5, 0.25, 0.1, 0.6, 0.6, 0.3, 0.3, 0.1});
  RefTensor g = RandomFloat32Tensor({2, 3, 2}, 13);
  RefTensor dx = SoftmaxBackward(y, g, 1, kF32);
  ASSERT_EQ(dx.shape, y.shape);
  for (int64_t a = 0; a < 2; ++a)
    for (int64_t c = 0; c < 2; ++c) {
      double s = 0;
      for (int64_t j = 0; j < 3; ++j) s += At(g, {a, j, c}) * At(y, {a, j, c});
      for (int64_t j = 0; j < 3; ++j) {
        size_t e = static_cast<size_t>((a * 3 + j) * 2 + c);
        double want = At(y, {a, j, c}) * (At(g, {a, j, c}) - s);
        EXPECT_NEAR(dx.val[e], want, 1e-12);
        EXPECT_LE(std::fabs(static_cast<float>(want) - want), dx.err[e]);
        // A backward that leaves one term out of the sum is outside the bound.
        double dropped =
            At(y, {a, j, c}) * (At(g, {a, j, c}) - (s - At(g, {a, 0, c}) * At(y, {a, 0, c})));
        if (std::fabs(At(y, {a, j, c}) * At(g, {a, 0, c}) * At(y, {a, 0, c})) > 1e-3) {
          EXPECT_GT(std::fabs(dropped - dx.val[e]), dx.err[e]);
        }
      }
    }
  RefTensor special = g;
  special.val[0] = INFINITY;
  RefTensor unjudged = SoftmaxBackward(y, special, 1, kF32);
  EXPECT_TRUE(std::isinf(unjudged.err[0]));
  EXPECT_TRUE(std::isinf(unjudged.err[2]));     // the same row: Σ is unknown
  EXPECT_TRUE(std::isfinite(unjudged.err[1]));  // another row
}

TEST(BackwardOps, SliceBackwardPlacesTheCotangentAndZerosTheRest) {
  RefTensor g = MakeExact({2, 2}, {1, 2, 3, 4});
  RefTensor r = SliceBackward(g, {2, 5}, 1, 1, 2);  // x[:, 1:5:2]
  EXPECT_EQ(r.val, (std::vector<double>{0, 1, 0, 2, 0, 0, 3, 0, 4, 0}));
  for (double e : r.err) EXPECT_EQ(e, 0.0);
}

}  // namespace
}  // namespace mmref
