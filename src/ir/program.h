// Program: the IR of one test case — input tensor specs, a DAG of op nodes, and named outputs.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "src/ir/device.h"
#include "src/ir/dtype.h"
#include "src/ir/op.h"
#include "src/ir/shape.h"

namespace mmdiff {

// How an input's storage is laid out. kTransposed: the last two dims are stored swapped
// (a contiguous tensor of the swapped shape, viewed through .transpose(-1, -2)).
enum class Layout { kContiguous, kTransposed };
std::string_view LayoutName(Layout l);
std::optional<Layout> ParseLayout(std::string_view name);

struct InputSpec {
  std::string name;  // a Python identifier, unique in the program
  Shape shape;
  DType dtype = DType::kFloat32;
  Device device = Device::kCpu;
  Layout layout = Layout::kContiguous;
  bool operator==(const InputSpec&) const = default;
};

// One op application. args name inputs or earlier nodes.
struct Node {
  std::string name;
  OpKind op = OpKind::kMatmul;
  std::vector<std::string> args;
  std::optional<DType> dtype;  // cast target; softmax's optional dtype
  double alpha = 1.0;          // addmm: beta * args[0] + alpha * (args[1] @ args[2])
  double beta = 1.0;
  std::vector<int64_t>
      ints;  // views: dims, sizes or {dim, start, length} (see OpKind); softmax: {dim}
  std::optional<Device> device;  // to_device: the target
  bool method_spelling =
      false;  // cast: written .float()/.half()/.double()/.bfloat16() instead of .to()
  // scaled_dot_product_attention: is_causal, scale (absent: 1/sqrt(E)), enable_gqa.
  bool is_causal = false;
  std::optional<double> scale;
  bool enable_gqa = false;
  bool operator==(const Node&) const = default;
};

struct Program {
  std::vector<InputSpec> inputs;
  std::vector<Node> nodes;
  std::vector<std::string> outputs;
  bool operator==(const Program&) const = default;

  const InputSpec* FindInput(const std::string& name) const;
  const Node* FindNode(const std::string& name) const;
  // A one-line summary, e.g. "matmul(float16[2,4,8,8], float32[2,4,8,64])".
  std::string Summary() const;
};

}  // namespace mmdiff
