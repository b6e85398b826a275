// Reference backend: no LibTorch involved; follows oracles/contract and calls kernels/.
#include "src/backends/reference_backend.h"

#include <map>

#include "kernels/reference_ops.h"
#include "oracles/contract.h"

namespace mmdiff {

namespace {

bool ToFormat(DType d, mmref::Format& f) {
  switch (d) {
    case DType::kFloat64: f = mmref::Format::kF64; return true;
    case DType::kFloat32: f = mmref::Format::kF32; return true;
    case DType::kFloat16: f = mmref::Format::kF16; return true;
    case DType::kBFloat16: f = mmref::Format::kBF16; return true;
    default: return false;
  }
}

// How eager computes in dtype d: float64 in float64, everything narrower accumulates in float32.
mmref::Arith ArithFor(mmref::Format out) {
  return {out, out == mmref::Format::kF64 ? mmref::Format::kF64 : mmref::Format::kF32};
}

int64_t Wrap(int64_t d, size_t rank) { return d < 0 ? d + static_cast<int64_t>(rank) : d; }

// One node in the reference engine; `out` is the node's result format and `shape` its result shape,
// both per the contract.
mmref::RefTensor Evaluate(const Node& n, const std::map<std::string, mmref::RefTensor>& env, mmref::Format out,
                          const Shape& shape) {
  auto arg = [&](size_t i) -> const mmref::RefTensor& { return env.at(n.args[i]); };
  size_t rank = arg(0).shape.size();
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
      return mmref::Reshape(arg(0), shape);
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
    case OpKind::kAdd:  // operands are promoted to `out` first: exact, since promotion only widens
      return mmref::Add(mmref::Cast(arg(0), out), mmref::Cast(arg(1), out), shape, out);
    case OpKind::kCast:
      return mmref::Cast(arg(0), out);
    case OpKind::kMm:
    case OpKind::kBmm:
    case OpKind::kMatmul:
    case OpKind::kMv:
    case OpKind::kDot:
      return mmref::Matmul(arg(0), arg(1), ArithFor(out));
    case OpKind::kAddmm:
    case OpKind::kAddmv:
    case OpKind::kBaddbmm:
      return mmref::Addmm(arg(0), arg(1), arg(2), n.alpha, n.beta, ArithFor(out));
    case OpKind::kAddbmm: {
      // Eager on CPU adds the batches one at a time into the output, rounding to the output dtype
      // each time: the bound assumes accumulation in the output format.
      mmref::RefTensor a, b;
      mmref::FoldBatchIntoK(arg(1), arg(2), a, b);
      return mmref::Addmm(arg(0), a, b, n.alpha, n.beta, mmref::Arith{out, out});
    }
    case OpKind::kLinear: {
      mmref::RefTensor prod = mmref::Matmul(arg(0), mmref::TransposeLast2(arg(1)), ArithFor(out));
      return n.args.size() == 3 ? mmref::AddScaled(arg(2), prod, 1.0, 1.0, ArithFor(out)) : prod;
    }
  }
  return arg(0);
}

class ReferenceBackend : public Backend {
 public:
  std::string name() const override { return "reference"; }

  PathResult Run(const Program& p, const InputRecipe& recipe, StageReporter& stages) override {
    PathResult res;
    stages.Stage("contract");
    Expectation e = Expect(p);
    if (e.rejects) {
      res.kind = OutcomeKind::kError;
      res.error_class = e.violation.error_class;
      res.error_type = "contract:" + e.violation.rule;
      res.message = "node " + e.violation.node + ": " + e.violation.message;
      return res;
    }
    for (const auto& [name, t] : e.types) {
      mmref::Format f = mmref::Format::kF64;
      if (!ToFormat(t.dtype, f)) {
        res.kind = OutcomeKind::kUnsupported;
        res.message = "the reference does not model dtype " + std::string(DTypeName(t.dtype)) + " yet";
        return res;
      }
    }
    stages.Stage("compute");
    std::map<std::string, mmref::RefTensor> env;
    for (size_t i = 0; i < p.inputs.size(); ++i) {
      const InputSpec& in = p.inputs[i];
      mmref::Format f = mmref::Format::kF64;
      ToFormat(in.dtype, f);
      // Inputs are rounded to their dtype exactly as torch's .to() does.
      mmref::RefTensor t = mmref::MakeExact(in.shape, RecipeValues(recipe, i, Numel(in.shape)));
      for (double& v : t.val) v = mmref::RoundTo(f, v);
      env[in.name] = std::move(t);
    }
    for (const auto& n : p.nodes) {
      mmref::Format out = mmref::Format::kF64;
      ToFormat(e.types.at(n.name).dtype, out);
      env[n.name] = Evaluate(n, env, out, e.types.at(n.name).shape);
    }
    res.kind = OutcomeKind::kOk;
    for (size_t i = 0; i < p.outputs.size(); ++i) {
      const mmref::RefTensor& t = env.at(p.outputs[i]);
      const ValueType& vt = e.outputs[i];
      res.outputs.push_back({vt.dtype, vt.shape, vt.device, t.val, t.err});
    }
    return res;
  }
};

}  // namespace

std::unique_ptr<Backend> MakeReferenceBackend() { return std::make_unique<ReferenceBackend>(); }

}  // namespace mmdiff
