// Small programs that unit tests of several modules build (test code only: no library uses it).
#pragma once

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "src/ir/program.h"

namespace mmdiff::test_programs {

// One op `k` of every input in order; its result "v0" is the output.
inline Program OneOp(OpKind k, std::vector<InputSpec> inputs) {
  Program p;
  p.inputs = std::move(inputs);
  Node n{"v0", k};
  for (const auto& in : p.inputs) n.args.push_back(in.name);
  p.nodes = {n};
  p.outputs = {"v0"};
  return p;
}

// matmul(x0 float16[2, 4, 8], x1 float32[8, 3] transposed) cast to bfloat16, the output, and an
// unused addmm(x2, x2, x2) of float32[3] with alpha 0.5 and beta 0: the Python emitter's tests'
// program of mixed dtypes, a layout and scalars.
inline Program MatmulCastAddmm() {
  Program p;
  p.inputs = {{"x0", {2, 4, 8}, DType::kFloat16},
              {"x1", {8, 3}, DType::kFloat32, Device::kCpu, Layout::kTransposed},
              {"x2", {3}, DType::kFloat32}};
  p.nodes = {{"v0", OpKind::kMatmul, {"x0", "x1"}},
             {"v1", OpKind::kCast, {"v0"}, DType::kBFloat16},
             {"v2", OpKind::kAddmm, {"x2", "x2", "x2"}, std::nullopt, 0.5, 0.0}};
  p.outputs = {"v1"};
  return p;
}

// x[2, 3].masked_fill(m[3], value), float32 with a bool mask.
inline Program MaskedFill(double value) {
  Program p =
      OneOp(OpKind::kMaskedFill, {{"x", {2, 3}, DType::kFloat32}, {"m", {3}, DType::kBool}});
  p.nodes[0].alpha = value;
  return p;
}

// A float32 mm of x0[m, k] @ x1[k, n].
inline Program Mm(int64_t m, int64_t k, int64_t n) {
  return OneOp(OpKind::kMm, {{"x0", {m, k}, DType::kFloat32}, {"x1", {k, n}, DType::kFloat32}});
}

// addmv(b[1], m[0, 3], v[3]) with every input requiring grad: eager runs its forward (returning
// the bias's shape) and raises in its backward (torch 2.15.0).
inline Program EmptyAddmvTraining() {
  Program p = OneOp(
      OpKind::kAddmv,
      {{"b", {1}, DType::kFloat32}, {"m", {0, 3}, DType::kFloat32}, {"v", {3}, DType::kFloat32}});
  for (auto& in : p.inputs) in.requires_grad = true;
  return p;
}

// A model: linear(x[4, 8], w[16, 8], b[16]) in float32, its weight a parameter and its bias a
// buffer.
inline Program LinearModel() {
  Program p = OneOp(OpKind::kLinear, {{"x", {4, 8}, DType::kFloat32},
                                      {"w", {16, 8}, DType::kFloat32},
                                      {"b", {16}, DType::kFloat32}});
  p.inputs[1].role = InputRole::kParameter;
  p.inputs[2].role = InputRole::kBuffer;
  return p;
}

}  // namespace mmdiff::test_programs
