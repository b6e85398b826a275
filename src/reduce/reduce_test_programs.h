// Programs the reduction tests (unit and end-to-end) share.
#pragma once

#include <string>
#include <vector>

#include "src/ir/program.h"

namespace mmdiff::reduce_test {

inline Node MakeNode(const std::string& name, OpKind op, std::vector<std::string> args) {
  Node n;
  n.name = name;
  n.op = op;
  n.args = std::move(args);
  return n;
}

// Ten cpu ops with a float16 @ float32 bmm (n4, which eager must reject) in the middle: glue before
// it, attention-like ops after.
inline Program BuriedMixedBmm() {
  Program p;
  p.inputs = {{"x", {4, 8, 16}, DType::kFloat32},
              {"w", {16, 16}, DType::kFloat32, Device::kCpu, Layout::kTransposed},
              {"h", {4, 8, 16}, DType::kFloat16},
              {"b", {4, 16, 8}, DType::kFloat32}};
  p.nodes.push_back(MakeNode("n0", OpKind::kMatmul, {"x", "w"}));
  p.nodes.push_back(MakeNode("n1", OpKind::kMulScalar, {"n0"}));
  p.nodes.back().alpha = 0.5;
  p.nodes.push_back(MakeNode("n2", OpKind::kCast, {"n1"}));
  p.nodes.back().dtype = DType::kFloat16;
  p.nodes.push_back(MakeNode("n3", OpKind::kAdd, {"n2", "h"}));
  p.nodes.push_back(MakeNode("n4", OpKind::kBmm, {"n3", "b"}));
  p.nodes.push_back(MakeNode("n5", OpKind::kSoftmax, {"n4"}));
  p.nodes.back().ints = {-1};
  p.nodes.push_back(MakeNode("n6", OpKind::kCast, {"n5"}));
  p.nodes.back().dtype = DType::kFloat32;
  p.nodes.push_back(MakeNode("n7", OpKind::kTranspose, {"n6"}));
  p.nodes.back().ints = {1, 2};
  p.nodes.push_back(MakeNode("n8", OpKind::kMatmul, {"n7", "x"}));
  p.nodes.push_back(MakeNode("n9", OpKind::kAdd, {"n8", "n0"}));
  p.outputs = {"n9"};
  return p;
}

}  // namespace mmdiff::reduce_test
