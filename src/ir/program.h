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

// What an input is to the module the compiled paths compile (a program with weights is a
// torch.nn.Module, src/ir/python_emitter.h): an argument of its forward, or one of its weights, a
// parameter (torch.nn.Parameter) or a buffer (register_buffer), which the module holds and which
// stays the same across the calls of a case. Eager, the reference and TorchScript take a weight as
// they take any input; torch.compile sees it as the module's state, so freezing folds it and
// Inductor's weight prepacking and C++ GEMM templates take it as a constant.
enum class InputRole { kInput, kParameter, kBuffer };
std::string_view InputRoleName(InputRole r);  // "input", "parameter", "buffer"
std::optional<InputRole> ParseInputRole(std::string_view name);

struct InputSpec {
  std::string name;  // a Python identifier, unique in the program
  Shape shape;
  DType dtype = DType::kFloat32;
  Device device = Device::kCpu;
  Layout layout = Layout::kContiguous;
  // A training input: every path returns its gradient after the program's outputs (see
  // GradientInputs). Eager rejects it on a non-floating dtype (a contract violation the generator
  // may plant).
  bool requires_grad = false;
  // A buffer never requires grad (the verifier's rule); a parameter may.
  InputRole role = InputRole::kInput;
  bool operator==(const InputSpec&) const = default;
};

inline bool IsWeight(const InputSpec& in) { return in.role != InputRole::kInput; }

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
  // gelu: approximate="tanh" (else "none"). (clamp: its min and max are alpha and beta.)
  bool gelu_tanh = false;
  // dropout: the probability of zeroing an element, in [0, 1), and whether it trains (zeroes).
  double dropout_p = 0.0;
  bool train = false;
  // The innermost autocast region the node runs in (an index into Program::autocast).
  std::optional<size_t> autocast;
  bool operator==(const Node&) const = default;
};

// An autocast region: its nodes run as under `with torch.autocast(device_type=device,
// dtype=dtype, enabled=enabled)`, inside the parent region's `with` (see src/ir/autocast.h for
// what that does to each op).
struct AutocastRegion {
  Device device = Device::kCpu;    // the device type: cpu or cuda
  DType dtype = DType::kBFloat16;  // float16 or bfloat16
  bool enabled = true;
  std::optional<size_t> parent;  // the enclosing region, an earlier index
  bool operator==(const AutocastRegion&) const = default;
};

struct Program {
  std::vector<InputSpec> inputs;
  std::vector<Node> nodes;
  std::vector<std::string> outputs;
  std::vector<AutocastRegion> autocast;
  bool operator==(const Program&) const = default;

  const InputSpec* FindInput(const std::string& name) const;
  const Node* FindNode(const std::string& name) const;
  // A one-line summary, e.g. "matmul(float16[2,4,8,8], float32[2,4,8,64])".
  std::string Summary() const;
};

// A program with weights: the compiled paths compile it as a module (src/ir/python_emitter.h).
bool HasWeights(const Program& p);
// The indices of the inputs that are arguments of the module's forward, in input order.
std::vector<size_t> ForwardInputs(const Program& p);
// The inputs a model would hold as weights, ascending: those that are, directly or through views,
// casts and device moves, a product's weight operand (linear's weight and bias; the second operand
// of mm, bmm, matmul, mv, addmm, addmv, baddbmm and addbmm; the bias of the last four).
std::vector<size_t> WeightOperandInputs(const Program& p);

// Training programs. Every path computes the scalar loss Σ_i (out_i · w_i).sum() over the floating
// outputs that depend on a requires_grad input, with the cotangent w_i made by the input recipe as
// input number inputs.size() + i (dtype, shape and device of out_i), and returns, after the
// outputs, the gradient of each requires_grad input in input order (zeros where the loss does not
// depend on it). In torch: torch.autograd.grad(outs, grad_inputs, grad_outputs=ws,
// allow_unused=True), unused gradients as zeros.
bool Trains(const Program& p);
std::vector<size_t> GradientInputs(const Program& p);  // indices of the requires_grad inputs
// The recipe index of output i's cotangent.
inline size_t CotangentIndex(const Program& p, size_t output) { return p.inputs.size() + output; }
// The name of result number i of a path (an output, or "grad(x)" for a gradient), for reports.
std::string ResultName(const Program& p, size_t i);
// True when result number i is a gradient, not a program output.
inline bool IsGradientResult(const Program& p, size_t i) { return i >= p.outputs.size(); }

}  // namespace mmdiff
