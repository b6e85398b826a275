// OpKind and the per-op spec: name, arity, attributes, and the shape rule eager applies.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "src/ir/shape.h"
#include "src/support/status.h"

namespace mmdiff {

enum class OpKind { kMm, kBmm, kMatmul, kAddmm, kCast };

struct OpSpec {
  OpKind kind;
  std::string_view name;    // IR and JSON name: "mm", "bmm", "matmul", "addmm", "cast"
  int arity;                // number of tensor arguments
  std::string_view torch_call;  // what the Python emitter calls: "torch.mm", ...
  bool has_alpha_beta;      // addmm family
  bool has_dtype;           // cast
};

const OpSpec& GetOpSpec(OpKind k);
std::optional<OpKind> ParseOpKind(std::string_view name);
const std::vector<OpKind>& AllOpKinds();

// The result shape eager computes for the op's argument shapes, or the shape error it raises.
// Source: aten/src/ATen/native/LinearAlgebra.cpp (mm/bmm/addmm/matmul shape checks).
Result<Shape> InferShape(OpKind k, const std::vector<Shape>& args);

}  // namespace mmdiff
