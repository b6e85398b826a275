// Shapes and the shape rules of the matmul family (broadcasting, matmul at every rank).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "src/support/status.h"

namespace mmdiff {

using Shape = std::vector<int64_t>;

// Product of the dims; saturates at INT64_MAX, -1 if a dim is negative.
int64_t Numel(const Shape& s);
std::string ShapeString(const Shape& s);  // "[2, 3]"
// NumPy/torch broadcasting of two shapes; error when a pair of dims is neither equal nor 1.
Result<Shape> BroadcastShapes(const Shape& a, const Shape& b);
// torch.matmul's result shape for operands of rank >= 1 (1-D promotion, batch broadcasting).
Result<Shape> MatmulShape(const Shape& a, const Shape& b);
// The function torch.matmul reaches for contiguous operands of these shapes ("dot", "mv", "mm",
// "bmm"), as aten/src/ATen/native/LinearAlgebra.cpp's _matmul_impl and should_fold choose it: a
// >= 3-D first operand with a 1-D or 2-D second is folded into one matrix (mv, mm); a 1-D first
// operand with a >= 3-D second folds (into mv of the transposed batch) only when it has one
// element or the batch is empty, else bmm; 1-D @ 2-D is mm of a row. Strided
// operands (views) may fold differently: the contiguous case is what this says. "?" for a scalar.
std::string MatmulReaches(const Shape& a, const Shape& b);
// Row-major strides of a contiguous tensor of shape s.
std::vector<int64_t> ContiguousStrides(const Shape& s);

}  // namespace mmdiff
