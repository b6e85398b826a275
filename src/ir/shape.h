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
// Row-major strides of a contiguous tensor of shape s.
std::vector<int64_t> ContiguousStrides(const Shape& s);

}  // namespace mmdiff
