// The reference backward: reverse-mode over the program, each op's gradient from its definition
// (kernels/backward_ops.h), cast back to its operand's dtype as autograd does.
#include "src/backends/reference_backward.h"

#include <limits>
#include <set>

#include "kernels/attention_backward.h"
#include "kernels/backward_ops.h"
#include "kernels/select_ops.h"
#include "src/backends/reference_formats.h"

namespace mmdiff {

namespace {

int64_t Wrap(int64_t d, size_t rank) { return d < 0 ? d + static_cast<int64_t>(rank) : d; }

mmref::RefTensor Zeros(const Shape& shape) {
  return mmref::MakeExact(shape, std::vector<double>(static_cast<size_t>(Numel(shape)), 0.0));
}

class Backward {
 public:
  Backward(const Program& p, const Expectation& e,
           const std::map<std::string, mmref::RefTensor>& env, bool float64)
      : p_(p), e_(e), env_(env), tracked_(GradTrackedValues(p, e.types)), float64_(float64) {}

  std::vector<mmref::RefTensor> Run(const InputRecipe& r) {
    // d loss / d out_i = w_i, the recipe's cotangent in out_i's dtype.
    for (size_t i = 0; i < p_.outputs.size(); ++i) {
      const std::string& v = p_.outputs[i];
      if (!tracked_.count(v)) continue;
      const ValueType& t = e_.types.at(v);
      mmref::RefTensor w = mmref::MakeExact(
          t.shape, RecipeValues(r, CotangentIndex(p_, i), Numel(t.shape), t.dtype));
      for (double& x : w.val) x = mmref::TorchConvertFromDouble(ToFormat(t.dtype), x);
      grads_[v].push_back(std::move(w));
    }
    for (auto n = p_.nodes.rbegin(); n != p_.nodes.rend(); ++n)
      if (tracked_.count(n->name) && !grads_[n->name].empty()) Through(*n, Total(n->name));
    std::vector<mmref::RefTensor> out;
    for (size_t g : GradientInputs(p_)) {
      const std::string& name = p_.inputs[g].name;
      out.push_back(grads_[name].empty() ? Zeros(p_.inputs[g].shape) : Total(name));
    }
    return out;
  }

 private:
  mmref::Format Fmt(const std::string& v) const {
    return ComputedIn(ToFormat(e_.types.at(v).dtype), float64_);
  }
  const Shape& ShapeOf(const std::string& v) const { return e_.types.at(v).shape; }
  const mmref::RefTensor& Value(const std::string& v) const { return env_.at(v); }

  // A gradient contribution to value v, computed in format `from`: cast to v's dtype.
  void Give(const std::string& v, mmref::RefTensor g, mmref::Format from) {
    if (!tracked_.count(v)) return;
    if (Fmt(v) != from) g = mmref::Cast(g, Fmt(v), from);
    grads_[v].push_back(std::move(g));
  }

  // v's gradient: its contributions added in any order, in its dtype.
  mmref::RefTensor Total(const std::string& v) {
    mmref::Format f = Fmt(v);
    return mmref::SumTerms(grads_[v], {f, f});
  }

  // The addmm family's bias: beta * g (autograd's maybe_multiply: g itself for beta 1), summed
  // down to the bias's shape.
  void Bias(const std::string& bias, const mmref::RefTensor& g, double beta, mmref::Format out) {
    if (!tracked_.count(bias)) return;
    mmref::RefTensor scaled = beta == 1 ? g : mmref::Scale(g, beta, out);
    Give(bias, mmref::SumTo(scaled, ShapeOf(bias), {out, out}), out);
  }

  // alpha * a @ b: the gradients of the tracked operands.
  void Product(const std::string& a, const std::string& b, const mmref::RefTensor& bv,
               const mmref::RefTensor& g, double alpha, mmref::Format out, bool b_transposed) {
    mmref::RefTensor da, db;
    bool want_a = tracked_.count(a) > 0, want_b = tracked_.count(b) > 0;
    if (!want_a && !want_b) return;
    mmref::ProductBackward(Value(a), bv, g, alpha, ArithFor(out), want_a ? &da : nullptr,
                           want_b ? &db : nullptr);
    if (want_a) Give(a, std::move(da), out);
    if (want_b) Give(b, b_transposed ? mmref::TransposeLast2(db) : std::move(db), out);
  }

  void Through(const Node& n, const mmref::RefTensor& g) {
    const mmref::Format out = Fmt(n.name);
    const std::string& x = n.args[0];
    const size_t rank = ShapeOf(x).size();
    switch (n.op) {
      case OpKind::kTranspose: {
        if (rank == 0) return Give(x, g, out);
        std::vector<int64_t> dims(rank);
        for (size_t i = 0; i < rank; ++i) dims[i] = static_cast<int64_t>(i);
        std::swap(dims[Wrap(n.ints[0], rank)], dims[Wrap(n.ints[1], rank)]);
        return Give(x, mmref::Permute(g, dims), out);  // a swap is its own inverse
      }
      case OpKind::kPermute: {
        std::vector<int64_t> inverse(rank);
        for (size_t i = 0; i < rank; ++i) inverse[Wrap(n.ints[i], rank)] = static_cast<int64_t>(i);
        return Give(x, mmref::Permute(g, inverse), out);
      }
      case OpKind::kReshape:
      case OpKind::kView:
        return Give(x, mmref::Reshape(g, ShapeOf(x)), out);
      case OpKind::kExpand:
        return Give(x, mmref::SumTo(g, ShapeOf(x), {out, out}), out);
      case OpKind::kNarrow: {
        int64_t dim = Wrap(n.ints[0], rank), size = ShapeOf(x)[dim];
        int64_t start = n.ints[1] < 0 ? n.ints[1] + size : n.ints[1];
        return Give(x, mmref::SliceBackward(g, ShapeOf(x), dim, start, 1), out);
      }
      case OpKind::kSlice: {
        int64_t dim = Wrap(n.ints[0], rank), size = ShapeOf(x)[dim];
        int64_t start = std::min(n.ints[1], size);
        return Give(x, mmref::SliceBackward(g, ShapeOf(x), dim, start, n.ints[3]), out);
      }
      case OpKind::kContiguous:
      case OpKind::kToDevice:
      case OpKind::kCast:  // Give casts back to the operand's dtype
        return Give(x, g, out);
      case OpKind::kMulScalar:
        return Give(x, mmref::Scale(g, n.alpha, out), out);
      case OpKind::kDivScalar:
        return Give(x, mmref::Scale(g, 1.0 / n.alpha, out), out);
      case OpKind::kRelu:   // a step: autograd selects g where it passes, 0 elsewhere (an infinite
      case OpKind::kClamp:  // or NaN g stays out of the 0s, as threshold_backward's where does)
        return Give(
            x,
            mmref::Where(mmref::UnaryDerivative(Value(x), PointwiseOf(n), out, n.alpha, n.beta), g,
                         Zeros(ShapeOf(n.name)), ShapeOf(n.name)),
            out);
      case OpKind::kGelu:  // g * f'(x), f' as autograd computes it
      case OpKind::kSilu:
      case OpKind::kSigmoid:
      case OpKind::kTanh:
        return Give(
            x,
            mmref::Mul(g, mmref::UnaryDerivative(Value(x), PointwiseOf(n), out, n.alpha, n.beta),
                       ShapeOf(n.name), out),
            out);
      case OpKind::kDropout: {  // the random mask's gradient: any value where it trains
        mmref::RefTensor any = g;
        if (n.train && n.dropout_p > 0)
          any.err.assign(any.val.size(), std::numeric_limits<double>::infinity());
        return Give(x, any, out);
      }
      case OpKind::kAdd:  // each operand's share summed to its shape, then cast to its dtype
        for (const auto& a : n.args)
          if (tracked_.count(a)) Give(a, mmref::SumTo(g, ShapeOf(a), {out, out}), out);
        return;
      case OpKind::kMul:  // g * y for x, g * x for y, each summed to its operand's shape
        for (size_t i = 0; i < 2; ++i) {
          const std::string& a = n.args[i];
          const std::string& other = n.args[1 - i];
          if (!tracked_.count(a)) continue;
          mmref::RefTensor ga =
              mmref::Mul(g, mmref::Cast(Value(other), out, Fmt(other)), ShapeOf(n.name), out);
          Give(a, mmref::SumTo(ga, ShapeOf(a), {out, out}), out);
        }
        return;
      case OpKind::kDiv: {  // g / y for x; y's gradient (-g x / y^2) is left unjudged
        const std::string& y = n.args[1];
        if (tracked_.count(x)) {
          mmref::RefTensor gx =
              mmref::Div(g, mmref::Cast(Value(y), out, Fmt(y)), ShapeOf(n.name), out);
          Give(x, mmref::SumTo(gx, ShapeOf(x), {out, out}), out);
        }
        if (tracked_.count(y)) Give(y, mmref::Unjudged(ShapeOf(y)), out);
        return;
      }
      case OpKind::kWhere: {  // g where the condition holds to x, elsewhere to y
        const mmref::RefTensor zeros = Zeros(ShapeOf(n.name));
        for (size_t i = 1; i < 3; ++i) {
          const std::string& a = n.args[i];
          if (!tracked_.count(a)) continue;
          mmref::RefTensor ga = i == 1 ? mmref::Where(Value(n.args[0]), g, zeros, ShapeOf(n.name))
                                       : mmref::Where(Value(n.args[0]), zeros, g, ShapeOf(n.name));
          Give(a, mmref::SumTo(ga, ShapeOf(a), {out, out}), out);
        }
        return;
      }
      case OpKind::kMaskedFill: {  // nothing where the mask filled
        mmref::RefTensor gx = mmref::MaskedFill(g, Value(n.args[1]), 0.0, ShapeOf(n.name));
        return Give(x, mmref::SumTo(gx, ShapeOf(x), {out, out}), out);
      }
      case OpKind::kTril:
        return Give(x, mmref::Tril(g, n.ints[0]), out);
      case OpKind::kEqScalar:  // no gradient flows through a comparison or a fill
      case OpKind::kFull:
        return;
      case OpKind::kMm:
      case OpKind::kBmm:
      case OpKind::kMatmul:
      case OpKind::kMv:
      case OpKind::kDot:
        return Product(n.args[0], n.args[1], Value(n.args[1]), g, 1.0, out, false);
      case OpKind::kAddmm:
      case OpKind::kAddmv:
      case OpKind::kBaddbmm:
        Bias(n.args[0], g, n.beta, out);
        return Product(n.args[1], n.args[2], Value(n.args[2]), g, n.alpha, out, false);
      case OpKind::kAddbmm: {  // the batch's products all get g
        Bias(n.args[0], g, n.beta, out);
        Shape batched = ShapeOf(n.args[1]);
        batched.back() = ShapeOf(n.args[2]).back();
        return Product(n.args[1], n.args[2], Value(n.args[2]), mmref::Expand(g, batched), n.alpha,
                       out, false);
      }
      case OpKind::kLinear:  // x @ wᵀ (+ bias)
        if (n.args.size() == 3) Bias(n.args[2], g, 1.0, out);
        return Product(n.args[0], n.args[1], mmref::TransposeLast2(Value(n.args[1])), g, 1.0, out,
                       true);
      case OpKind::kSoftmax:  // in the result's dtype (dtype=: the input converted first)
        return Give(x,
                    mmref::SoftmaxBackward(Value(n.name), g, rank == 0 ? 0 : Wrap(n.ints[0], rank),
                                           ArithFor(out)),
                    out);
      case OpKind::kSdpa: {  // from its definition (kernels/attention_backward.h)
        mmref::AttentionArgs args;
        const bool masked = n.args.size() == 4;
        if (masked) {
          args.mask = &Value(n.args[3]);
          args.mask_is_bool = Fmt(n.args[3]) == mmref::Format::kBool;
        }
        args.is_causal = n.is_causal;
        args.scale = n.scale;
        args.enable_gqa = n.enable_gqa;
        mmref::AttentionGrads d = mmref::ScaledDotProductAttentionBackward(
            Value(n.args[0]), Value(n.args[1]), Value(n.args[2]), g, args, ArithFor(out));
        if (tracked_.count(n.args[0])) Give(n.args[0], std::move(d.dq), out);
        if (tracked_.count(n.args[1])) Give(n.args[1], std::move(d.dk), out);
        if (tracked_.count(n.args[2])) Give(n.args[2], std::move(d.dv), out);
        if (masked && !args.mask_is_bool && tracked_.count(n.args[3]))
          Give(n.args[3], std::move(d.dmask), out);
        return;
      }
    }
  }

  const Program& p_;
  const Expectation& e_;
  const std::map<std::string, mmref::RefTensor>& env_;
  std::set<std::string> tracked_;
  bool float64_;
  std::map<std::string, std::vector<mmref::RefTensor>> grads_;
};

}  // namespace

std::vector<mmref::RefTensor> ReferenceGradients(const Program& p, const Expectation& e,
                                                 const InputRecipe& r,
                                                 const std::map<std::string, mmref::RefTensor>& env,
                                                 bool float64) {
  return Backward(p, e, env, float64).Run(r);
}

}  // namespace mmdiff
