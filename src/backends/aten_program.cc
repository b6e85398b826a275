// ATen execution of programs.
#include "src/backends/aten_program.h"

#include <ATen/Parallel.h>
#include <ATen/autocast_mode.h>
#include <c10/util/Exception.h>
#include <torch/csrc/autograd/autograd.h>
#include <torch/csrc/autograd/custom_function.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>

#include "src/ir/autocast.h"
#include "src/ir/static_types.h"

namespace mmdiff {

at::ScalarType ToScalarType(DType d) {
  switch (d) {
    case DType::kFloat64:
      return at::kDouble;
    case DType::kFloat32:
      return at::kFloat;
    case DType::kFloat16:
      return at::kHalf;
    case DType::kBFloat16:
      return at::kBFloat16;
    case DType::kInt8:
      return at::kChar;
    case DType::kUInt8:
      return at::kByte;
    case DType::kInt32:
      return at::kInt;
    case DType::kInt64:
      return at::kLong;
    case DType::kBool:
      return at::kBool;
  }
  return at::kFloat;
}

DType FromScalarType(at::ScalarType s) {
  for (DType d : AllDTypes())
    if (ToScalarType(d) == s) return d;
  throw std::invalid_argument(std::string("result dtype not modelled by mmdiff: ") +
                              c10::toString(s));
}

namespace {
at::Device ToAtenDevice(Device d) {
  switch (d) {
    case Device::kCpu:
      return at::kCPU;
    case Device::kCuda:
      return at::Device(at::kCUDA, 0);
    case Device::kMeta:
      return at::kMeta;
  }
  return at::kCPU;
}
}  // namespace

bool MissingGpu(const Program& p) {
  bool cuda = false;
  for (const auto& in : p.inputs) cuda |= in.device == Device::kCuda;
  for (const auto& n : p.nodes) cuda |= n.device == Device::kCuda;
  return cuda && !at::hasCUDA();
}

PathResult NoGpuResult() {
  return UnsupportedResult(UnsupportedReason::kNoGpu,
                           "program uses cuda and this machine has no GPU");
}

std::vector<at::Tensor> MakeInputs(const Program& p, const InputRecipe& r, bool on_meta,
                                   std::string* marking) {
  std::vector<at::Tensor> out;
  for (size_t i = 0; i < p.inputs.size(); ++i) {
    const InputSpec& in = p.inputs[i];
    std::vector<double> values = InputValues(p, r, i);
    at::Tensor t = at::tensor(values, at::kDouble).reshape(in.shape);
    if (in.layout == Layout::kTransposed) t = t.transpose(-1, -2).contiguous().transpose(-1, -2);
    out.push_back(
        t.to(ToScalarType(in.dtype)).to(on_meta ? at::Device(at::kMeta) : ToAtenDevice(in.device)));
    // A leaf (also a transposed one: a view of a tensor without grad is a leaf). On a non-floating
    // dtype this raises, as it does in Python: the contract's grad_dtype rule.
    if (in.requires_grad) {
      if (marking) *marking = in.name;
      out.back().requires_grad_(true);
      if (marking) marking->clear();
    }
  }
  return out;
}

std::vector<at::Tensor> Cotangents(const Program& p, const InputRecipe& r,
                                   const std::vector<at::Tensor>& outs) {
  std::vector<at::Tensor> ws;
  for (size_t i = 0; i < outs.size(); ++i) {
    const at::Tensor& o = outs[i];
    if (!o.defined() || !o.requires_grad() || !at::isFloatingType(o.scalar_type())) {
      ws.emplace_back();
      continue;
    }
    std::vector<double> values =
        RecipeValues(r, CotangentIndex(p, i), o.numel(), FromScalarType(o.scalar_type()));
    ws.push_back(
        at::tensor(values, at::kDouble).reshape(o.sizes()).to(o.scalar_type()).to(o.device()));
  }
  return ws;
}

std::vector<at::Tensor> Gradients(const Program& p, const std::vector<at::Tensor>& inputs,
                                  const std::vector<at::Tensor>& outs,
                                  const std::vector<at::Tensor>& cotangents) {
  std::vector<at::Tensor> used_outs, ws, leaves, grads;
  for (size_t i = 0; i < outs.size() && i < cotangents.size(); ++i) {
    if (!cotangents[i].defined()) continue;
    used_outs.push_back(outs[i]);
    ws.push_back(cotangents[i]);
  }
  for (size_t g : GradientInputs(p)) leaves.push_back(inputs.at(g));
  if (!used_outs.empty())
    grads = torch::autograd::grad(used_outs, leaves, ws, /*retain_graph=*/false,
                                  /*create_graph=*/false, /*allow_unused=*/true);
  grads.resize(leaves.size());
  for (size_t i = 0; i < leaves.size(); ++i)
    if (!grads[i].defined()) grads[i] = at::zeros_like(leaves[i]).detach();
  return grads;
}

namespace {
// kDropGradTerm: a @ b forward; backward dA = G·bᵀ, dB = a'ᵀ·G' with a's and G's last row left
// out (same-rank matrices, M >= 2).
struct DropGradTermMatmul : torch::autograd::Function<DropGradTermMatmul> {
  static at::Tensor forward(torch::autograd::AutogradContext* ctx, const at::Tensor& a,
                            const at::Tensor& b) {
    ctx->save_for_backward({a, b});
    return at::matmul(a, b);
  }
  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list g) {
    auto saved = ctx->get_saved_variables();
    const at::Tensor &a = saved[0], &b = saved[1];
    int64_t kept = a.size(-2) - 1;
    return {at::matmul(g[0], b.transpose(-1, -2)),
            at::matmul(a.narrow(-2, 0, kept).transpose(-1, -2), g[0].narrow(-2, 0, kept))};
  }
};
}  // namespace

namespace {
// The autocast state a node runs under (src/ir/autocast.h AutocastDType), set on this thread as
// torch.autocast's __enter__ sets it (enabled flag and dtype per device type); the destructor
// turns autocast off again and drops its cast cache, as leaving the outermost region does.
class AutocastScope {
 public:
  AutocastScope() = default;
  AutocastScope(const AutocastScope&) = delete;
  AutocastScope& operator=(const AutocastScope&) = delete;
  void Enter(const Program& p, const Node& n) {
    for (Device d : {Device::kCpu, Device::kCuda}) {
      const c10::DeviceType type = d == Device::kCpu ? c10::DeviceType::CPU : c10::DeviceType::CUDA;
      std::optional<DType> dtype = AutocastDType(p, n, d);
      if (dtype) at::autocast::set_autocast_dtype(type, ToScalarType(*dtype));
      at::autocast::set_autocast_enabled(type, dtype.has_value());
      used_ |= dtype.has_value();
    }
  }
  ~AutocastScope() {
    if (!used_) return;
    at::autocast::set_autocast_enabled(c10::DeviceType::CPU, false);
    at::autocast::set_autocast_enabled(c10::DeviceType::CUDA, false);
    at::autocast::clear_cache();
  }

 private:
  bool used_ = false;
};
}  // namespace

std::vector<at::Tensor> RunAten(const Program& p, const std::vector<at::Tensor>& inputs,
                                const AtenRunOptions& o, std::string* running) {
  std::map<std::string, at::Tensor> env;
  const bool wide = o.fault == PlantedFault::kWideIntermediates;
  // The dtype a node computes in: float32 for a 16-bit one in kWideIntermediates.
  auto computed = [&](DType d) {
    at::ScalarType s = ToScalarType(d);
    return wide && (s == at::kHalf || s == at::kBFloat16) ? at::kFloat : s;
  };
  for (size_t i = 0; i < p.inputs.size(); ++i)
    env[p.inputs[i].name] = inputs[i].to(computed(p.inputs[i].dtype));
  AutocastScope autocast;
  for (const auto& n : p.nodes) {
    if (running) *running = n.name;
    if (!p.autocast.empty() && o.fault != PlantedFault::kIgnoreAutocast) autocast.Enter(p, n);
    std::vector<at::Tensor> a;
    for (const auto& name : n.args) a.push_back(env.at(name));
    if (o.fault == PlantedFault::kPromote && IsMatmulFamily(n.op)) {
      at::ScalarType common = a[0].scalar_type();
      for (const auto& t : a) common = at::promote_types(common, t.scalar_type());
      for (auto& t : a) t = t.to(common);
    }
    bool plain_product = n.op == OpKind::kMm || n.op == OpKind::kBmm || n.op == OpKind::kMatmul;
    if (o.fault == PlantedFault::kDropK && plain_product && a[0].dim() >= 1 && a[1].dim() >= 1 &&
        a[0].size(-1) >= 2 && a[0].size(-1) == a[1].size(a[1].dim() >= 2 ? -2 : -1)) {
      int64_t k = a[0].size(-1);
      a[0] = a[0].narrow(-1, 0, k - 1);
      a[1] = a[1].narrow(a[1].dim() >= 2 ? -2 : -1, 0, k - 1);
    }
    bool half = o.fault == PlantedFault::kHalfAccumulate && IsMatmulFamily(n.op) &&
                std::all_of(a.begin(), a.end(),
                            [](const at::Tensor& t) { return t.scalar_type() == at::kFloat; });
    if (half)
      for (auto& t : a) t = t.to(at::kHalf);
    at::Tensor r;
    bool matrices = plain_product && a[0].dim() >= 2 && a[1].dim() >= 2;
    if (o.fault == PlantedFault::kDropGradTerm && matrices && a[0].dim() == a[1].dim() &&
        a[0].size(-2) >= 2 && a[1].requires_grad()) {
      env[n.name] = DropGradTermMatmul::apply(a[0], a[1]);
      continue;
    }
    if (o.fault == PlantedFault::kInfTimesZero && matrices) {
      // Every term a_ik * b_kj as its own element, those with a zero factor set to 0, then summed.
      at::Tensor terms = a[0].unsqueeze(-1) * a[1].unsqueeze(-3);
      at::Tensor zero = at::logical_or(a[0].unsqueeze(-1) == 0, a[1].unsqueeze(-3) == 0);
      env[n.name] = at::where(zero, at::zeros_like(terms), terms).sum(-2);
      continue;
    }
    if (o.fault == PlantedFault::kBiasTimesBeta && GetOpSpec(n.op).has_alpha_beta) {
      at::Tensor product = n.op == OpKind::kAddmm     ? at::mm(a[1], a[2])
                           : n.op == OpKind::kAddmv   ? at::mv(a[1], a[2])
                           : n.op == OpKind::kBaddbmm ? at::bmm(a[1], a[2])
                                                      : at::bmm(a[1], a[2]).sum(0);
      env[n.name] =
          at::add(at::mul(a[0], at::Scalar(n.beta)), at::mul(product, at::Scalar(n.alpha)));
      continue;
    }
    switch (n.op) {
      case OpKind::kMm:
        r = at::mm(a[0], a[1]);
        break;
      case OpKind::kBmm:
        r = at::bmm(a[0], a[1]);
        break;
      case OpKind::kMatmul:
        r = at::matmul(a[0], a[1]);
        break;
      case OpKind::kAddmm:
        r = at::addmm(a[0], a[1], a[2], n.beta, n.alpha);
        break;
      case OpKind::kCast:
        r = a[0].to(computed(*n.dtype));
        break;
      case OpKind::kMv:
        r = at::mv(a[0], a[1]);
        break;
      case OpKind::kDot:
        r = at::dot(a[0], a[1]);
        break;
      case OpKind::kAddmv:
        r = at::addmv(a[0], a[1], a[2], n.beta, n.alpha);
        break;
      case OpKind::kBaddbmm:
        r = at::baddbmm(a[0], a[1], a[2], n.beta, n.alpha);
        break;
      case OpKind::kAddbmm:
        r = at::addbmm(a[0], a[1], a[2], n.beta, n.alpha);
        break;
      case OpKind::kLinear:
        r = a.size() == 3 ? at::linear(a[0], a[1], a[2]) : at::linear(a[0], a[1]);
        break;
      case OpKind::kTranspose:
        r = a[0].transpose(n.ints.at(0), n.ints.at(1));
        break;
      case OpKind::kPermute:
        r = a[0].permute(n.ints);
        break;
      case OpKind::kReshape:
        r = a[0].reshape(n.ints);
        break;
      case OpKind::kExpand:
        r = a[0].expand(n.ints);
        break;
      case OpKind::kNarrow:
        r = a[0].narrow(n.ints.at(0), n.ints.at(1), n.ints.at(2));
        break;
      case OpKind::kContiguous:
        r = a[0].contiguous();
        break;
      case OpKind::kAdd:
        r = at::add(a[0], a[1]);
        break;
      case OpKind::kMulScalar:
        r = at::mul(a[0], at::Scalar(n.alpha));
        break;
      case OpKind::kDivScalar:
        r = at::div(a[0], at::Scalar(n.alpha));
        break;
      case OpKind::kMul:
        r = at::mul(a[0], a[1]);
        break;
      case OpKind::kDiv:
        r = at::div(a[0], a[1]);
        break;
      case OpKind::kEqScalar:
        r = at::eq(a[0], at::Scalar(n.alpha));
        break;
      case OpKind::kMaskedFill:
        r = at::masked_fill(a[0], a[1], at::Scalar(n.alpha));
        break;
      case OpKind::kWhere:
        r = at::where(a[0], a[1], a[2]);
        break;
      case OpKind::kTril:
        r = at::tril(a[0], n.ints.at(0));
        break;
      case OpKind::kFull:  // its argument gives the device and the default dtype only
        r = at::full(n.ints, at::Scalar(n.alpha),
                     a[0].options().dtype(n.dtype ? computed(*n.dtype) : a[0].scalar_type()));
        break;
      case OpKind::kDropout:
        r = at::dropout(a[0], n.dropout_p, n.train);
        break;
      case OpKind::kRelu:
        r = at::relu(a[0]);
        break;
      case OpKind::kGelu:
        r = at::gelu(a[0], n.gelu_tanh ? "tanh" : "none");
        break;
      case OpKind::kSilu:
        r = at::silu(a[0]);
        break;
      case OpKind::kSigmoid:
        r = at::sigmoid(a[0]);
        break;
      case OpKind::kTanh:
        r = at::tanh(a[0]);
        break;
      case OpKind::kClamp:  // integral bounds, as Python ints: an integer x stays integer
        r = at::clamp(a[0], at::Scalar(static_cast<int64_t>(n.alpha)),
                      at::Scalar(static_cast<int64_t>(n.beta)));
        break;
      case OpKind::kSoftmax:
        r = n.dtype ? at::softmax(a[0], n.ints.at(0), computed(*n.dtype))
                    : at::softmax(a[0], n.ints.at(0));
        break;
      case OpKind::kSdpa:
        r = at::scaled_dot_product_attention(
            a[0], a[1], a[2], a.size() == 4 ? std::optional<at::Tensor>(a[3]) : std::nullopt, 0.0,
            n.is_causal, n.scale, n.enable_gqa);
        break;
      case OpKind::kToDevice:
        r = o.on_meta ? a[0] : a[0].to(ToAtenDevice(*n.device));
        break;
      case OpKind::kSlice:
        r = a[0].slice(n.ints.at(0), n.ints.at(1), n.ints.at(2), n.ints.at(3));
        break;
      case OpKind::kView:
        r = a[0].view(n.ints);
        break;
    }
    if (half) r = r.to(at::kFloat);
    if (o.fault == PlantedFault::kSpreadNan && IsMatmulFamily(n.op) && r.dim() >= 2 &&
        r.is_floating_point() && !r.is_meta() && r.size(-1) >= 2)
      r = at::where(at::roll(at::logical_not(at::isfinite(r)), 1, -1), at::full_like(r, NAN), r);
    env[n.name] = r;
  }
  std::vector<at::Tensor> outs;
  const std::map<std::string, StaticType> types = wide ? InferStaticTypes(p) : decltype(types){};
  for (const auto& name : p.outputs) {
    at::Tensor t = env.at(name);
    if (wide) t = t.to(ToScalarType(types.at(name).dtype));
    if (o.fault == PlantedFault::kWrongDType && t.scalar_type() == at::kFloat)
      t = t.to(at::kDouble);
    if (o.fault == PlantedFault::kNanToNumber && t.is_floating_point() && !t.is_meta())
      t = at::where(at::isnan(t), at::zeros_like(t), t);
    outs.push_back(t);
  }
  return outs;
}

TensorValue ToTensorValue(const at::Tensor& t) {
  TensorValue v;
  v.dtype = FromScalarType(t.scalar_type());
  v.shape = Shape(t.sizes().begin(), t.sizes().end());
  v.device = t.is_meta() ? Device::kMeta : t.is_cuda() ? Device::kCuda : Device::kCpu;
  if (!t.is_meta()) {
    at::Tensor d = t.detach().to(at::kCPU).to(at::kDouble).contiguous();
    v.data.assign(d.data_ptr<double>(), d.data_ptr<double>() + d.numel());
  }
  return v;
}

namespace {
void SetError(PathResult& r, const char* error_class, const char* error_type, std::string message) {
  r.kind = OutcomeKind::kError;
  r.error_class = error_class;
  r.error_type = error_type;
  r.message = message.substr(0, message.find('\n'));
}
}  // namespace

void RecordCurrentException(PathResult& r) {
  // c10 exception types map to the Python classes torch raises for them; any other c10::Error
  // surfaces in Python as RuntimeError (or a subclass of it).
  try {
    throw;
  } catch (const c10::NotImplementedError& e) {
    SetError(r, "NotImplementedError", "c10::NotImplementedError", e.what_without_backtrace());
  } catch (const c10::TypeError& e) {
    SetError(r, "TypeError", "c10::TypeError", e.what_without_backtrace());
  } catch (const c10::ValueError& e) {
    SetError(r, "ValueError", "c10::ValueError", e.what_without_backtrace());
  } catch (const c10::IndexError& e) {
    SetError(r, "IndexError", "c10::IndexError", e.what_without_backtrace());
  } catch (const c10::Error& e) {
    SetError(r, "RuntimeError", "c10::Error", e.what_without_backtrace());
  } catch (const std::exception& e) {
    SetError(r, "RuntimeError", "std::exception", e.what());
  } catch (...) {
    SetError(r, "RuntimeError", "unknown", "unknown C++ exception");
  }
}

PathResult UnsupportedResult(UnsupportedReason reason, std::string why) {
  PathResult r;
  r.kind = OutcomeKind::kUnsupported;
  r.unsupported = reason;
  r.message = std::move(why);
  return r;
}

bool MakeInputsStage(const Program& p, const InputRecipe& r, StageReporter& stages,
                     std::vector<at::Tensor>& inputs, PathResult& error, bool on_meta) {
  std::string marking;
  try {
    stages.Stage("inputs");
    inputs = MakeInputs(p, r, on_meta, &marking);
    return true;
  } catch (...) {
    RecordCurrentException(error);
    error.node = marking;
    return false;
  }
}

void RunOutputsStage(PathResult& res, StageReporter& stages, const char* stage,
                     const std::function<std::vector<at::Tensor>()>& run) {
  try {
    stages.Stage(stage);
    std::vector<at::Tensor> outs = run();
    stages.Stage("results");
    res.kind = OutcomeKind::kOk;
    for (const auto& t : outs) res.outputs.push_back(ToTensorValue(t));
  } catch (...) {
    res.outputs.clear();
    RecordCurrentException(res);
  }
}

void RunBackwardStage(const Program& p, const InputRecipe& r, const std::vector<at::Tensor>& inputs,
                      const std::vector<at::Tensor>& outs, PathResult& res, StageReporter& stages,
                      void (*record)(PathResult&)) {
  try {
    stages.Stage("backward");
    std::vector<at::Tensor> grads = Gradients(p, inputs, outs, Cotangents(p, r, outs));
    stages.Stage("results");
    for (const auto& g : grads) res.outputs.push_back(ToTensorValue(g));
  } catch (...) {
    res.outputs.clear();
    record(res);
    res.backward = true;
  }
}

PathResult RunAtenPath(const Program& p, const InputRecipe& r, StageReporter& stages,
                       const AtenRunOptions& o) {
  if (MissingGpu(p)) return NoGpuResult();
  struct Threads {  // ATen's thread count for this run only (setting it costs milliseconds: only
                    // when asked)
    int before = 0;
    explicit Threads(int n) {
      if (n <= 0) return;
      before = at::get_num_threads();
      at::set_num_threads(n);
    }
    ~Threads() {
      if (before > 0) at::set_num_threads(before);
    }
  } threads(o.threads);
  PathResult res;
  std::vector<at::Tensor> in;
  if (!MakeInputsStage(p, r, stages, in, res, o.on_meta)) return res;
  std::string node;
  std::vector<at::Tensor> outs;
  RunOutputsStage(res, stages, "run", [&] {
    outs = RunAten(p, in, o, &node);
    node.clear();  // the nodes all ran: an error from here on is no node's
    return outs;
  });
  if (res.kind == OutcomeKind::kError) res.node = node;
  if (res.ok() && Trains(p)) RunBackwardStage(p, r, in, outs, res, stages);
  return res;
}

}  // namespace mmdiff
