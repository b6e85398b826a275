// Reference backend: no LibTorch involved; follows oracles/contract and calls kernels/.
#include "src/backends/reference_backend.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>

#include "kernels/attention_ops.h"
#include "kernels/reference_ops.h"
#include "kernels/select_ops.h"
#ifdef MMDIFF_WITH_CUDA
#include "kernels/cuda/cuda_reference.h"
#endif
#include "oracles/accuracy.h"
#include "oracles/contract.h"
#include "oracles/judge.h"
#include "src/backends/reference_backward.h"
#include "src/backends/reference_formats.h"
#include "src/ir/attention_chain.h"
#include "src/ir/autocast.h"
#include "src/ir/paths.h"

namespace mmdiff {

static_assert(int{kAlsoPosInf} == int{mmref::kAlsoPosInf} &&
                  int{kAlsoNegInf} == int{mmref::kAlsoNegInf} &&
                  int{kAlsoNaN} == int{mmref::kAlsoNaN},
              "the reference's also bits travel as they are");

namespace {

int64_t Wrap(int64_t d, size_t rank) { return d < 0 ? d + static_cast<int64_t>(rank) : d; }

// A Python float stored into format f, as masked_fill and full store their value: truncated for
// integers, non-zero for bool (the contract rejects values out of an integer's range).
double StoredValue(mmref::Format f, double v) {
  if (f == mmref::Format::kBool) return v != 0 ? 1 : 0;
  if (mmref::IsInteger(f)) return std::trunc(v);
  return mmref::TorchConvertFromDouble(f, v);
}

// A final product (mm, bmm, matmul, mv, dot, linear without bias), rounded once to arith.out: on
// the GPU in a cuda program where possible, with the same per-element math.
mmref::RefTensor Product(const mmref::RefTensor& a, const mmref::RefTensor& b, mmref::Arith arith,
                         bool on_cuda) {
#ifdef MMDIFF_WITH_CUDA
  mmref::RefTensor gpu;
  if (on_cuda && mmref::MatmulOnCuda(a, b, arith, gpu, nullptr)) return gpu;
#else
  (void)on_cuda;
#endif
  return mmref::MatmulResult(a, b, arith);
}

// One node in the reference engine; `out` is the node's result format and `shape` its result shape,
// both per the contract.
mmref::RefTensor Evaluate(const Node& n, const std::map<std::string, mmref::RefTensor>& env,
                          const std::vector<mmref::Format>& in, mmref::Format out,
                          const Shape& shape, bool on_cuda) {
  auto arg = [&](size_t i) -> const mmref::RefTensor& { return env.at(n.args[i]); };
  size_t rank = arg(0).shape.size();
  // Integer tensors take float alpha and beta truncated toward zero, each on its own
  // (torch 2.15.0).
  double alpha = mmref::IsInteger(out) ? std::trunc(n.alpha) : n.alpha;
  double beta = mmref::IsInteger(out) ? std::trunc(n.beta) : n.beta;
  // A cuda program's products and softmax run on the GPU, with the same per-element math
  // (kernels/dot_math.h, kernels/softmax_math.h); the CPU loops wherever that is not possible.
  mmref::Stages stages;
#ifdef MMDIFF_WITH_CUDA
  if (on_cuda) stages = mmref::CudaStages();
#endif
  auto softmax = stages.softmax ? stages.softmax : mmref::Softmax;
  switch (n.op) {
    case OpKind::kTranspose: {
      if (rank == 0) return arg(0);
      std::vector<int64_t> dims(rank);
      for (size_t i = 0; i < rank; ++i) dims[i] = static_cast<int64_t>(i);
      std::swap(dims[Wrap(n.ints[0], rank)], dims[Wrap(n.ints[1], rank)]);
      return mmref::Permute(arg(0), dims);
    }
    case OpKind::kPermute: {
      std::vector<int64_t> dims;
      for (int64_t d : n.ints) dims.push_back(Wrap(d, rank));
      return mmref::Permute(arg(0), dims);
    }
    case OpKind::kReshape:
    case OpKind::kView:
      return mmref::Reshape(arg(0), shape);
    case OpKind::kSlice: {
      int64_t dim = Wrap(n.ints[0], rank), size = arg(0).shape[dim];
      int64_t start = std::min(n.ints[1], size), end = std::min(n.ints[2], size);
      return mmref::Slice(arg(0), dim, start, end, n.ints[3]);
    }
    case OpKind::kToDevice:
      return arg(0);
    case OpKind::kSoftmax:  // with dtype=, the input is converted first
      return softmax(mmref::Cast(arg(0), out, in[0]), rank == 0 ? 0 : Wrap(n.ints[0], rank),
                     ArithFor(out));
    case OpKind::kSdpa: {
      mmref::AttentionArgs a;
      if (n.args.size() == 4) {
        a.mask = &arg(3);
        a.mask_is_bool = in[3] == mmref::Format::kBool;
      }
      a.is_causal = n.is_causal;
      a.scale = n.scale;
      a.enable_gqa = n.enable_gqa;
      return mmref::ScaledDotProductAttention(arg(0), arg(1), arg(2), a, ArithFor(out), stages);
    }
    case OpKind::kExpand:
      return mmref::Expand(arg(0), shape);
    case OpKind::kNarrow: {
      int64_t dim = Wrap(n.ints[0], rank);
      int64_t start = n.ints[1] < 0 ? n.ints[1] + arg(0).shape[dim] : n.ints[1];
      return mmref::Narrow(arg(0), dim, start, n.ints[2]);
    }
    case OpKind::kContiguous:
      return arg(0);
    case OpKind::kMulScalar:
      return mmref::Scale(arg(0), n.alpha, out);
    case OpKind::kDivScalar:  // x * (1 / d) in double is within a double rounding of x / d
      return mmref::Scale(arg(0), 1.0 / n.alpha, out);
    // An integer or bool input of sigmoid or tanh is computed in float32 (the result's dtype).
    case OpKind::kRelu:
    case OpKind::kGelu:
    case OpKind::kSilu:
    case OpKind::kSigmoid:
    case OpKind::kTanh:
    case OpKind::kClamp:
      return mmref::Unary(mmref::Cast(arg(0), out, in[0]), PointwiseOf(n), out, n.alpha, n.beta);
    case OpKind::kDropout: {  // training with p > 0 zeroes elements at random: any value is right
      if (!n.train || n.dropout_p == 0) return arg(0);
      mmref::RefTensor any = arg(0);
      any.err.assign(any.val.size(), std::numeric_limits<double>::infinity());
      return any;
    }
    // Operands are converted to `out` first, as eager's common dtype does: exact where promotion
    // widens; a 0-d operand of a wider dtype of the same category rounds (the cast's bound).
    case OpKind::kAdd:
      return mmref::Add(mmref::Cast(arg(0), out, in[0]), mmref::Cast(arg(1), out, in[1]), shape,
                        out);
    case OpKind::kMul:
      return mmref::Mul(mmref::Cast(arg(0), out, in[0]), mmref::Cast(arg(1), out, in[1]), shape,
                        out);
    case OpKind::kDiv:
      return mmref::Div(mmref::Cast(arg(0), out, in[0]), mmref::Cast(arg(1), out, in[1]), shape,
                        out);
    case OpKind::kWhere:
      return mmref::Where(arg(0), mmref::Cast(arg(1), out, in[1]), mmref::Cast(arg(2), out, in[2]),
                          shape);
    case OpKind::kMaskedFill:
      return mmref::MaskedFill(arg(0), arg(1), StoredValue(out, n.alpha), shape);
    case OpKind::kEqScalar: {  // in x's dtype, or float32 (the default) for integers and bool
      const mmref::Format common = mmref::IsInteger(in[0]) ? mmref::Format::kF32 : in[0];
      return mmref::EqScalar(mmref::Cast(arg(0), common, in[0]), StoredValue(common, n.alpha));
    }
    case OpKind::kTril:
      return mmref::Tril(arg(0), n.ints[0]);
    case OpKind::kFull: {
      std::vector<double> values(static_cast<size_t>(Numel(shape)), StoredValue(out, n.alpha));
      return mmref::MakeExact(shape, std::move(values));
    }
    case OpKind::kCast:
      return mmref::Cast(arg(0), out, in[0]);
    case OpKind::kMm:
    case OpKind::kBmm:
    case OpKind::kMatmul:
    case OpKind::kMv:
    case OpKind::kDot:
      return Product(arg(0), arg(1), ArithFor(out), on_cuda);
    case OpKind::kAddmm:
    case OpKind::kAddmv:
    case OpKind::kBaddbmm:
      // A bias of another dtype than the result (addmv before torch 2.12, an empty baddbmm) is
      // copied into the result first, as eager does.
      if (in[0] != out)
        return mmref::Addmm(mmref::Cast(arg(0), out, in[0]), arg(1), arg(2), alpha, beta,
                            ArithFor(out), stages);
      return mmref::Addmm(arg(0), arg(1), arg(2), alpha, beta, ArithFor(out), stages);
    case OpKind::kAddbmm: {
      // Eager on CPU adds the batches one at a time into the output, rounding to the output dtype
      // each time: the bound assumes accumulation in the output format.
      mmref::RefTensor a, b;
      mmref::FoldBatchIntoK(arg(1), arg(2), a, b);
      return mmref::Addmm(arg(0), a, b, alpha, beta, mmref::Arith{out, out}, stages);
    }
    case OpKind::kLinear: {
      if (n.args.size() == 3)
        return mmref::Addmm(arg(2), arg(0), mmref::TransposeLast2(arg(1)), 1.0, 1.0, ArithFor(out),
                            stages);
      return Product(arg(0), mmref::TransposeLast2(arg(1)), ArithFor(out), on_cuda);
    }
  }
  return arg(0);
}

// The reference: each op computed from its definition, rounded to its dtype as eager rounds, with
// a bound on the error eager may make. With `float64`, the program's math in float64 instead: every
// floating value computed in float64 and nothing rounded to float32, float16 or bfloat16 (inputs
// and cotangents keep the values the paths get), bounded by float64's error (+inf where anything
// goes); what PyTorch's accuracy rule measures the compiled and the eager result against
// (oracles/accuracy.h).
class ReferenceBackend : public Backend {
 public:
  explicit ReferenceBackend(bool float64) : float64_(float64) {}
  std::string name() const override { return float64_ ? kReferenceFloat64Path : kReferencePath; }
  // Computes a cuda program on the GPU where there is one, else on the CPU: it needs none.
  PathTraits traits() const override { return FindPath(name())->traits; }

  PathResult Run(const Program& p, const InputRecipe& recipe, StageReporter& stages) override {
    PathResult res;
    stages.Stage("contract");
    Expectation e = Expect(p);
    if (e.rejects) {
      res.kind = OutcomeKind::kError;
      res.error_class = e.violation.error_class;
      res.error_type = "contract:" + e.violation.rule;
      res.message = "node " + e.violation.node + ": " + e.violation.message;
      res.node = e.violation.node;
      res.backward = e.violation.backward;
      return res;
    }
    stages.Stage("compute");
    // Under autocast: the program with autocast's casts made explicit, as eager runs it, so that
    // each op is computed and bounded in the precision it runs in.
    const bool autocast = UsesAutocast(p);
    const Program lowered = autocast ? LowerAutocast(p).program : Program{};
    const Program& q = autocast ? lowered : p;
    // An attention chain's float16/bfloat16 results between its two products: a fusion into sdpa
    // may keep them in float32 (src/ir/attention_chain.h), so each is computed in float32 and its
    // rounding to the 16-bit dtype may or may not happen.
    const std::set<std::string> fusable =
        float64_ ? std::set<std::string>{} : FusableAttentionNodes(q);
    std::map<std::string, mmref::RefTensor> env;
    for (size_t i = 0; i < p.inputs.size(); ++i) {
      const InputSpec& in = p.inputs[i];
      mmref::Format f = ToFormat(in.dtype);
      // Inputs are converted to their dtype exactly as torch's .to() does (from float64).
      mmref::RefTensor t = mmref::MakeExact(in.shape, InputValues(p, recipe, i));
      for (double& v : t.val) v = mmref::TorchConvertFromDouble(f, v);
      env[in.name] = std::move(t);
    }
    auto format = [&](const std::string& v) {
      return ComputedIn(ToFormat(e.types.at(v).dtype), float64_);
    };
    for (const auto& n : q.nodes) {
      std::vector<mmref::Format> in;
      for (const auto& a : n.args) in.push_back(format(a));
      const mmref::Format out = format(n.name);
      // A cast autocast inserted: a compiler may fuse it into the op and skip its rounding (the op
      // then runs more precisely than autocast asks, which autocast allows).
      if (autocast && n.op == OpKind::kCast && !p.FindNode(n.name)) {
        env[n.name] = mmref::CastMaybeSkipped(env.at(n.args[0]), out, in[0]);
        continue;
      }
      const bool cuda = e.types.at(n.name).device == Device::kCuda;
      if ((out == mmref::Format::kF16 || out == mmref::Format::kBF16) && fusable.count(n.name)) {
        env[n.name] = mmref::CastMaybeSkipped(
            Evaluate(n, env, in, mmref::Format::kF32, e.types.at(n.name).shape, cuda), out,
            mmref::Format::kF32);
        continue;
      }
      env[n.name] = Evaluate(n, env, in, out, e.types.at(n.name).shape, cuda);
    }
    res.kind = OutcomeKind::kOk;
    auto add = [&](const ValueType& vt, mmref::RefTensor t) {
      const DType dtype = float64_ && IsFloating(vt.dtype) ? DType::kFloat64 : vt.dtype;
      res.outputs.push_back(
          {dtype, vt.shape, vt.device, std::move(t.val), std::move(t.err), std::move(t.also)});
    };
    for (size_t i = 0; i < p.outputs.size(); ++i) add(e.outputs[i], env.at(p.outputs[i]));
    if (!Trains(p)) return res;
    stages.Stage("backward");
    std::vector<mmref::RefTensor> grads = ReferenceGradients(q, e, recipe, env, float64_);
    for (size_t g = 0; g < grads.size(); ++g)
      add(e.outputs[p.outputs.size() + g], std::move(grads[g]));
    return res;
  }

 private:
  bool float64_;
};

}  // namespace

std::unique_ptr<Backend> MakeReferenceBackend(bool float64) {
  return std::make_unique<ReferenceBackend>(float64);
}

}  // namespace mmdiff
