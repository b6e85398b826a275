// ProgramBuilder: draws one program from a ChoiceSource under a GenPolicy (the generator's
// builders; generator.cc holds the op table and the entry points, attention_builder.cc the
// attention builders, addmm_builder.cc the addmm family's).
#pragma once

#include <algorithm>
#include <cmath>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <tuple>
#include <vector>

#include "src/gen/generator.h"

namespace mmdiff {

// The fixed odds: fair coins between two forms of one feature, neither worth a knob of its own.
inline constexpr double kSwarmOff =
    0.5;  // swarm testing's coin: every subset of features as likely
inline constexpr double kExpandUnitDim =
    0.5;  // every subset of an expand's broadcast dims as likely
inline constexpr double kMaskUnbatched =
    0.5;  // an (L, S) mask or a batched one: one mask, two shapes
inline constexpr double kRsqrtScale =
    0.5;  // 1/sqrt(E) or a plain constant: either is just a scalar
inline constexpr double kCastRoundTrip =
    0.5;  // a cast pair back to where it started, or on: both common
inline constexpr double kDropoutTrainsAtZero =
    0.5;                                        // a dropout that keeps all: p = 0 training, or eval
inline constexpr double kMergeByReshape = 0.5;  // merged heads: reshape or view, both common

// Each dtype the generator draws and the policy weight it is drawn by, in the order of the draws
// (the order is part of what a seed means): the floating dtypes, then the others.
struct DTypeWeight {
  DType dtype;
  double GenPolicy::* weight;
};
inline constexpr DTypeWeight kFloatWeights[] = {{DType::kFloat64, &GenPolicy::w_float64},
                                                {DType::kFloat32, &GenPolicy::w_float32},
                                                {DType::kFloat16, &GenPolicy::w_float16},
                                                {DType::kBFloat16, &GenPolicy::w_bfloat16}};
inline constexpr DTypeWeight kOtherWeights[] = {{DType::kInt8, &GenPolicy::w_int8},
                                                {DType::kUInt8, &GenPolicy::w_uint8},
                                                {DType::kInt32, &GenPolicy::w_int32},
                                                {DType::kInt64, &GenPolicy::w_int64},
                                                {DType::kBool, &GenPolicy::w_bool}};

class ProgramBuilder {
 public:
  ProgramBuilder(ChoiceSource& c, const GenPolicy& p) : c_(c), p_(p) {}

  GeneratedCase Build() {
    if (p_.swarm) Swarm();
    size_t where = c_.Weighted({1.0 - p_.p_meta - p_.p_cuda, p_.p_meta, p_.p_cuda});
    device_ = where == 1 ? Device::kMeta : where == 2 ? Device::kCuda : Device::kCpu;
    int ops = static_cast<int>(c_.Int(std::min(p_.min_ops, p_.max_ops), p_.max_ops));
    for (int i = 0; i < ops; ++i) AddOp();
    // Every result nobody consumed is an output.
    std::set<std::string> used;
    for (const auto& n : prog_.nodes)
      for (const auto& a : n.args) used.insert(a);
    for (const auto& n : prog_.nodes)
      if (!used.count(n.name) && n.op != OpKind::kCast && !IsView(n.op))
        prog_.outputs.push_back(n.name);
    if (prog_.outputs.empty()) prog_.outputs.push_back(prog_.nodes.back().name);
    for (const auto& name : extra_outputs_)  // in the order they were made
      if (std::find(prog_.outputs.begin(), prog_.outputs.end(), name) == prog_.outputs.end())
        prog_.outputs.push_back(name);
    GeneratedCase out{prog_, Recipe()};
    Train(out.program);  // drawn after the program: the forward and its values stay what they were
    Autocast(out.program);
    Weights(out.program);
    return out;
  }

  // A model (p_module): each input that is a product's weight operand becomes one of the module's
  // weights with p_weight (at least one does), a buffer rather than a parameter with p_buffer where
  // it does not train.
  void Weights(Program& p) {
    if (!c_.Coin(p_.p_module)) return;
    const std::vector<size_t> operands = WeightOperandInputs(p);
    bool any = false;
    for (size_t i : operands) {
      if (!c_.Coin(p_.p_weight)) continue;
      p.inputs[i].role = InputRole::kParameter;
      any = true;
    }
    if (!any && !operands.empty()) p.inputs[operands.front()].role = InputRole::kParameter;
    for (size_t i : operands)
      if (IsWeight(p.inputs[i]) && !p.inputs[i].requires_grad && c_.Coin(p_.p_buffer))
        p.inputs[i].role = InputRole::kBuffer;
  }

  // An autocast region around a run of nodes (p_autocast), perhaps with a nested one around a
  // shorter run inside it that switches autocast off or to the other 16-bit dtype.
  void Autocast(Program& p) {
    if (p.nodes.empty() || !c_.Coin(p_.p_autocast)) return;
    const Device type = device_ == Device::kCuda ? Device::kCuda : Device::kCpu;
    const DType dtype = c_.Coin(p_.p_autocast_bfloat16) ? DType::kBFloat16 : DType::kFloat16;
    const int64_t last = static_cast<int64_t>(p.nodes.size()) - 1;
    const int64_t begin = c_.Int(0, last), end = c_.Int(begin, last);
    p.autocast.push_back({type, dtype, true, std::nullopt});
    for (int64_t i = begin; i <= end; ++i) p.nodes[i].autocast = 0;
    if (!c_.Coin(p_.p_autocast_nested)) return;
    const bool off = c_.Coin(p_.p_autocast_disabled);
    const DType other = dtype == DType::kBFloat16 ? DType::kFloat16 : DType::kBFloat16;
    p.autocast.push_back({type, off ? dtype : other, !off, 0});
    const int64_t inner_begin = c_.Int(begin, end), inner_end = c_.Int(inner_begin, end);
    for (int64_t i = inner_begin; i <= inner_end; ++i) p.nodes[i].autocast = 1;
  }

  // A training program (p_train): each floating input requires grad with p_requires_grad (an
  // attention mask's with p_mask_grad; at least one input does), and, deliberately, a non-floating
  // one with p_grad_violation.
  void Train(Program& p) {
    if (!c_.Coin(p_.p_train)) return;
    InputSpec* first = nullptr;
    bool any = false;
    for (auto& in : p.inputs) {
      if (!IsFloating(in.dtype)) {
        in.requires_grad = c_.Coin(p_.p_grad_violation);
        continue;
      }
      if (!first) first = &in;
      const bool mask = mask_inputs_.count(in.name) > 0;
      in.requires_grad = c_.Coin(mask ? p_.p_mask_grad : p_.p_requires_grad);
      any |= in.requires_grad;
    }
    if (!any && first) first->requires_grad = true;
  }

  // The value class of the inputs, drawn after the program.
  InputRecipe Recipe() { return GenerateRecipe(c_, p_); }

  friend const std::vector<GenOp>& GenOps();  // the op table, of the builders below

 private:
  struct Value {
    std::string name;
    Shape shape;
    DType dtype;
  };

  int64_t Dim() { return c_.Coin(p_.p_zero_dim) ? 0 : c_.Pick(p_.dims); }
  // A contracted dim of a 2-D op: sometimes large.
  int64_t KDim() {
    static const std::vector<int64_t> kLarge = {128, 255, 1024, 4097};
    return c_.Coin(p_.p_large_k) ? c_.Pick(kLarge) : Dim();
  }

  // Switches features off for this program (see GenPolicy::swarm).
  void Swarm() {
    auto thin = [&](std::vector<double*> weights) {
      std::vector<double> before;
      for (double* w : weights) before.push_back(*w);
      bool any = false;
      for (double* w : weights) {
        if (c_.Coin(kSwarmOff)) *w = 0;
        any |= *w > 0;
      }
      if (!any) {  // keep one that was on
        size_t keep = c_.Weighted(before);
        *weights[keep] = before[keep];
      }
    };
    std::vector<double*> ops;
    for (const GenOp& op : GenOps()) ops.push_back(&(p_.*op.weight));
    thin(ops);
    std::vector<double*> floats;
    for (const DTypeWeight& f : kFloatWeights) floats.push_back(&(p_.*f.weight));
    thin(floats);
    for (const DTypeWeight& o : kOtherWeights)
      if (c_.Coin(kSwarmOff)) p_.*o.weight = 0;
    thin({&p_.w_grid16, &p_.w_exact, &p_.w_uniform, &p_.w_normal});
    for (double* feature : {&p_.p_cast, &p_.p_mixed_dtype, &p_.p_transposed, &p_.p_chain,
                            &p_.p_view, &p_.p_move, &p_.p_special, &p_.p_zero_dim, &p_.p_large_k})
      if (c_.Coin(kSwarmOff)) *feature = 0;
  }

  DType FloatDType() { return DrawDType(kFloatWeights, {}); }

  // The dtype of an op: a float or an integer dtype (or, deliberately, bool).
  DType BaseDType() { return DrawDType(kFloatWeights, kOtherWeights); }

  // One dtype of `first` and then `second`, by their policy weights.
  DType DrawDType(std::span<const DTypeWeight> first, std::span<const DTypeWeight> second) {
    std::vector<DType> dtypes;
    std::vector<double> weights;
    for (auto table : {first, second})
      for (const DTypeWeight& d : table) {
        dtypes.push_back(d.dtype);
        weights.push_back(p_.*d.weight);
      }
    return dtypes[c_.Weighted(weights)];
  }

  // The dtype of a fresh operand: the op's base dtype, or (deliberately) another one.
  DType OperandDType(DType base) {
    if (!c_.Coin(p_.p_mixed_dtype)) return base;
    DType d = BaseDType();
    for (int tries = 0; d == base && tries < 4; ++tries) d = BaseDType();
    return d;
  }

  // A fresh operand of the given shape: an input, sometimes seen through a view, sometimes cast.
  // A fresh operand: its dtype drawn from `base` (OperandDType), then its shape from `shape()`. C++
  // leaves open the order in which a call's arguments are evaluated (g++ goes right to left, clang
  // left to right), so Input(<shape that draws>, OperandDType(...)) would draw in a different order
  // under each compiler; here the two draws are statements of their own, in the order g++ gave, and
  // a seed gives the same program whichever compiler built mmdiff (CrossBuild.* in build-asan).
  template <typename F>
  Value Operand(DType base, F&& shape) {
    DType dtype = OperandDType(base);
    Shape s = shape();
    return Input(s, dtype);
  }

  Value Input(const Shape& shape, DType dtype) {
    if (!shape.empty() && c_.Coin(p_.p_view)) return MaybeCast(Viewed(shape, dtype));
    if (c_.Coin(p_.p_move)) return MaybeCast(Moved(shape, dtype));
    return MaybeCast(RawInput(shape, dtype));
  }

  // An input made on another device and moved to the program's with .to(device): cpu to meta or
  // cuda, or cuda to cpu (moving out of meta is a contract violation; the mutator makes those).
  Value Moved(const Shape& shape, DType dtype) {
    if (device_ == Device::kCpu && p_.p_cuda == 0) return RawInput(shape, dtype);
    Device from = device_ != Device::kCpu ? Device::kCpu : Device::kCuda;
    Value in = RawInput(shape, dtype, from);
    return Emit(OpKind::kToDevice, {in}, shape, dtype, [&](Node& n) { n.device = device_; });
  }

  // An input of another shape and a view node that turns it into `shape`.
  Value Viewed(const Shape& shape, DType dtype) {
    size_t rank = shape.size();
    std::vector<OpKind> kinds = {OpKind::kReshape, OpKind::kExpand, OpKind::kNarrow, OpKind::kSlice,
                                 OpKind::kView};
    if (rank >= 2) kinds.insert(kinds.end(), {OpKind::kTranspose, OpKind::kPermute});
    OpKind kind = c_.Pick(kinds);
    Shape base = shape;
    std::vector<int64_t> ints;
    auto maybe_negative = [&](int64_t d) {
      return c_.Coin(p_.p_negative_dim) ? d - static_cast<int64_t>(rank) : d;
    };
    switch (kind) {
      case OpKind::kTranspose: {
        int64_t i = c_.Int(0, static_cast<int64_t>(rank) - 1),
                j = c_.Int(0, static_cast<int64_t>(rank) - 1);
        std::swap(base[i], base[j]);
        ints = {maybe_negative(i), maybe_negative(j)};
        break;
      }
      case OpKind::kPermute: {
        std::vector<int64_t> perm(rank);
        for (size_t i = 0; i < rank; ++i) perm[i] = static_cast<int64_t>(i);
        for (size_t i = rank; i-- > 1;)
          std::swap(perm[i], perm[static_cast<size_t>(c_.Int(0, static_cast<int64_t>(i)))]);
        for (size_t k = 0; k < rank; ++k) base[perm[k]] = shape[k];
        for (int64_t d : perm) ints.push_back(maybe_negative(d));
        break;
      }
      case OpKind::kSlice: {  // every step-th element of a longer dim: x[..., start:end:step, ...]
        int64_t d = c_.Int(0, static_cast<int64_t>(rank) - 1), step = c_.Int(1, 3),
                start = c_.Int(0, 2);
        int64_t end = start + shape[d] * step;
        base[d] = end + c_.Int(0, 2);
        if (shape[d] > 0) end -= step - 1;  // the last element taken is end - 1
        ints = {maybe_negative(d), start, end, step};
        break;
      }
      case OpKind::kView:  // on a contiguous input (RawInput of rank 1 is never transposed)
      case OpKind::kReshape: {
        base = {Numel(shape)};
        ints = shape;
        if (c_.Coin(p_.p_size_minus_one))
          ints[static_cast<size_t>(c_.Int(0, static_cast<int64_t>(rank) - 1))] = -1;
        break;
      }
      case OpKind::kExpand: {  // stride-0 dims: some dims are 1 in the input, maybe fewer leading
                               // dims
        size_t drop = static_cast<size_t>(c_.Int(0, static_cast<int64_t>(rank) - 1));
        base.assign(shape.begin() + static_cast<long>(drop), shape.end());
        for (auto& d : base)
          if (c_.Coin(kExpandUnitDim)) d = 1;
        ints = shape;
        for (size_t i = drop; i < rank; ++i)
          if (base[i - drop] == shape[i] && c_.Coin(p_.p_size_minus_one)) ints[i] = -1;
        break;
      }
      default: {  // narrow: a non-contiguous slice out of a larger dim
        int64_t d = c_.Int(0, static_cast<int64_t>(rank) - 1), extra = c_.Int(1, 3);
        base[d] += extra;
        ints = {maybe_negative(d), c_.Int(0, extra), shape[d]};
        break;
      }
    }
    Value in = RawInput(base, dtype);
    Value v = Emit(kind, {in}, shape, dtype, [&](Node& n) { n.ints = ints; });
    if (c_.Coin(p_.p_contiguous)) v = Emit(OpKind::kContiguous, {v}, shape, dtype, [](Node&) {});
    return v;
  }

  Value RawInput(const Shape& shape, DType dtype) { return RawInput(shape, dtype, device_); }
  Value RawInput(const Shape& shape, DType dtype, Device device) {
    InputSpec in;
    in.name = "x" + std::to_string(prog_.inputs.size());
    in.shape = shape;
    in.dtype = dtype;
    in.device = device;
    if (c_.Coin(p_.p_device_mismatch))
      in.device = device == Device::kCpu ? Device::kMeta : Device::kCpu;
    if (shape.size() >= 2 && c_.Coin(p_.p_transposed)) in.layout = Layout::kTransposed;
    prog_.inputs.push_back(in);
    return {in.name, shape, dtype};
  }

  Value MaybeCast(Value v) {
    if (!c_.Coin(p_.p_cast)) return v;
    Value cast = CastTo(v, BaseDType());
    // A cast pair x.to(a).to(b) (the joint graph's pointless_convert takes some): back to the
    // operand's dtype (a round trip through a) or on to a floating dtype.
    if (!c_.Coin(p_.p_cast_pair)) return cast;
    return CastTo(cast, c_.Coin(kCastRoundTrip) ? v.dtype : FloatDType());
  }

  Value CastTo(const Value& v, DType to) {
    // x.float() / x.half() as users write it
    bool method = CastMethodName(to) && c_.Coin(p_.p_cast_method);
    return Emit(OpKind::kCast, {v}, v.shape, to, [&](Node& n) {
      n.dtype = to;
      n.method_spelling = method;
    });
  }

  template <typename F>
  Value Emit(OpKind op, const std::vector<Value>& args, const Shape& shape, DType dtype, F&& set) {
    Node n;
    n.name = "v" + std::to_string(prog_.nodes.size());
    n.op = op;
    for (const auto& a : args) n.args.push_back(a.name);
    set(n);
    prog_.nodes.push_back(n);
    last_ = Value{n.name, shape, dtype};
    last_args_ = args;
    has_last_ = true;
    return last_;
  }

  // The contracted size the second operand uses: K, or (a contract violation) K + 1.
  int64_t SecondK(int64_t k) { return c_.Coin(p_.p_shape_violation) ? k + 1 : k; }

  Shape BatchDims(int rank) {
    Shape b;
    for (int i = 0; i < rank; ++i) b.push_back(c_.Int(p_.min_batch, 4));
    return b;
  }

  // b itself, or b cast to `to` where adding the two would give a dtype mmdiff does not model
  // (int8 + uint8 gives int16).
  // The value `make` returns, its new inputs noted as an attention mask's (Train: p_mask_grad).
  template <typename F>
  Value MaskInput(F&& make) {
    const size_t first = prog_.inputs.size();
    Value v = make();
    for (size_t i = first; i < prog_.inputs.size(); ++i) mask_inputs_.insert(prog_.inputs[i].name);
    return v;
  }

  Value Addable(Value b, DType to) {
    if (PromoteTypes(to, b.dtype)) return b;
    return Emit(OpKind::kCast, {b}, b.shape, to, [&](Node& n) { n.dtype = to; });
  }

  // Elementwise glue on the last result, as between the matmuls of a model: a scaling such as
  // attention's 1/sqrt(d), or an added tensor (a bias row, or a same-shaped residual).
  void Glue() {
    if (!has_last_ || last_.shape.empty() || !c_.Coin(p_.p_glue)) return;
    Value v = last_;
    if (c_.Coin(p_.p_glue_scale)) {
      static const std::vector<double> kScales = {0.125, 0.25, 0.5, 2.0, -1.0};
      double s = c_.Pick(kScales);
      Emit(OpKind::kMulScalar, {v}, v.shape, IsFloating(v.dtype) ? v.dtype : DType::kFloat32,
           [&](Node& n) { n.alpha = s; });
      return;
    }
    Shape other = c_.Coin(p_.p_glue_residual) ? v.shape : Shape{v.shape.back()};
    Value b = Addable(Input(other, OperandDType(v.dtype)), v.dtype);
    Emit(OpKind::kAdd, {v, b}, v.shape, PromoteTypes(v.dtype, b.dtype).value_or(v.dtype),
         [](Node&) {});
  }

  // Glue, then one op drawn from the op table by the policy's weights, then perhaps its epilogue.
  void AddOp() {
    Glue();
    std::vector<double> weights;
    for (const GenOp& op : GenOps()) weights.push_back(p_.*op.weight);
    const GenOp& op = GenOps()[c_.Weighted(weights)];
    bool chain = has_last_ && c_.Coin(p_.p_chain);
    (this->*op.build)(chain);
    if (IsMatmulFamily(op.op)) Epilogue();
  }

  // A residual added to the product just made (p_residual), as mkldnn's binary fusion and the
  // templates' epilogues take it: the product's own first operand where it has the product's
  // shape and dtype (linear(x) + x) with p_residual_input, else a fresh input of its shape.
  void Residual() {
    if (!c_.Coin(p_.p_residual)) return;
    const Value product = last_;
    // The activation the product read (not an addmm-family op's bias, its first operand).
    const bool own = !last_args_.empty() && !GetOpSpec(prog_.nodes.back().op).has_alpha_beta &&
                     last_args_[0].shape == product.shape && last_args_[0].dtype == product.dtype;
    // A fresh input may come cast to another dtype: added only where the two promote.
    Value other = own && c_.Coin(p_.p_residual_input)
                      ? last_args_[0]
                      : Addable(Input(product.shape, product.dtype), product.dtype);
    Emit(OpKind::kAdd, {product, other}, product.shape,
         PromoteTypes(product.dtype, other.dtype).value_or(product.dtype), [](Node&) {});
  }

  // A pointwise epilogue on the product just made (p_epilogue), by the policy's weights; the
  // product stays an output too with p_product_output. gelu and silu of an integer product are
  // contract violations, as eager rejects them.
  void Epilogue() {
    if (!has_last_) return;
    Residual();
    if (!c_.Coin(p_.p_epilogue)) return;
    const Value product = last_;
    struct Choice {
      OpKind op;
      bool tanh;
      double GenPolicy::* weight;
    };
    static const Choice kChoices[] = {{OpKind::kRelu, false, &GenPolicy::w_relu},
                                      {OpKind::kGelu, false, &GenPolicy::w_gelu},
                                      {OpKind::kGelu, true, &GenPolicy::w_gelu_tanh},
                                      {OpKind::kSilu, false, &GenPolicy::w_silu},
                                      {OpKind::kSigmoid, false, &GenPolicy::w_sigmoid},
                                      {OpKind::kTanh, false, &GenPolicy::w_tanh},
                                      {OpKind::kClamp, false, &GenPolicy::w_clamp}};
    std::vector<double> weights;
    for (const Choice& ch : kChoices) weights.push_back(p_.*ch.weight);
    double total = 0;
    for (double w : weights) total += w;
    if (total <= 0) return;
    const Choice& ch = kChoices[c_.Weighted(weights)];
    static const std::vector<std::pair<double, double>> kBounds = {
        {0, 6}, {-1, 1}, {0, 1}, {-2, 2}};
    const std::pair<double, double> bounds =
        ch.op == OpKind::kClamp ? c_.Pick(kBounds) : std::pair{1.0, 1.0};
    DType dtype = product.dtype;
    if ((ch.op == OpKind::kSigmoid || ch.op == OpKind::kTanh) && !IsFloating(dtype))
      dtype = DType::kFloat32;
    if (ch.op == OpKind::kClamp && dtype == DType::kBool) dtype = DType::kInt64;
    Emit(ch.op, {product}, product.shape, dtype, [&](Node& n) {
      n.gelu_tanh = ch.tanh;
      if (ch.op == OpKind::kClamp) std::tie(n.alpha, n.beta) = bounds;
    });
    if (c_.Coin(p_.p_product_output)) extra_outputs_.push_back(product.name);
  }

  // The op's dtype, then its first operand, an (M, K) matrix: the last result when chaining onto a
  // matrix, else a fresh one.
  Value FirstMatrix(bool chain) {
    DType base = BaseDType();
    return chain && last_.shape.size() == 2 ? last_
                                            : Operand(base, [&] { return Shape{Dim(), KDim()}; });
  }

  // The op's dtype, then the operands of a batched product: a (B, N, K), the last result when
  // chaining onto a 3-D one, and a fresh b (B, K, P).
  std::pair<Value, Value> BatchedOperands(bool chain) {
    DType base = BaseDType();
    Value a = chain && last_.shape.size() == 3
                  ? last_
                  : Operand(base, [&] { return Shape{c_.Int(1, 4), Dim(), Dim()}; });
    Value b = Operand(a.dtype, [&] { return Shape{a.shape[0], SecondK(a.shape[2]), Dim()}; });
    return {a, b};
  }

  // The builders of the op table (GenOps), one per op. Each draws the op's dtype and operands and
  // emits it; with `chain`, its first operand is the last result where that has the right rank.

  void Mm(bool chain) {
    Value a = FirstMatrix(chain);
    Value b = Operand(a.dtype, [&] { return Shape{SecondK(a.shape[1]), Dim()}; });
    Emit(OpKind::kMm, {a, b}, {a.shape[0], b.shape[1]}, a.dtype, [](Node&) {});
  }

  void Bmm(bool chain) {
    auto [a, b] = BatchedOperands(chain);
    Emit(OpKind::kBmm, {a, b}, {a.shape[0], a.shape[1], b.shape[2]}, a.dtype, [](Node&) {});
  }

  // A matmul operand's rank: uniform in [min_matmul_rank, max_matmul_rank] (the max where the min
  // is above it).
  int MatmulRank() {
    return static_cast<int>(
        c_.Int(std::min(p_.min_matmul_rank, p_.max_matmul_rank), p_.max_matmul_rank));
  }

  // matmul at any rank pairing, with broadcast batch dims.
  void Matmul(bool chain) {
    DType base = BaseDType();
    Value a;
    if (chain && !last_.shape.empty()) {
      a = last_;
    } else {
      int ra = MatmulRank();
      Shape s = BatchDims(std::max(ra - 2, 0));
      if (ra >= 2) s.push_back(Dim());
      s.push_back(Dim());
      a = Input(s, OperandDType(base));
    }
    int rb = MatmulRank();
    int64_t k = SecondK(a.shape.back());
    Shape b;
    if (rb == 1) {
      b = {k};
    } else {
      // Batch dims of b: the trailing batch dims of a (sometimes broadcast to 1), or fresh ones.
      Shape abatch(a.shape.begin(), a.shape.end() - std::min<size_t>(a.shape.size(), 2));
      int nb = rb - 2;
      for (int i = 0; i < nb; ++i) {
        int from_end = nb - i;
        bool shared = from_end <= static_cast<int>(abatch.size());
        int64_t d = shared ? abatch[abatch.size() - from_end] : c_.Int(1, 4);
        if (shared && c_.Coin(p_.p_broadcast_batch)) d = 1;
        b.push_back(d);
      }
      b.push_back(k);
      b.push_back(Dim());
    }
    Value bv = Input(b, OperandDType(a.dtype));
    auto shape = MatmulShape(a.shape, SecondKFree(bv.shape, a.shape.back(), rb));
    Emit(OpKind::kMatmul, {a, bv}, shape.ok() ? shape.value() : Shape{}, a.dtype, [](Node&) {});
  }

  void Mv(bool chain) {
    Value a = FirstMatrix(chain);
    Value v = Operand(a.dtype, [&] { return Shape{SecondK(a.shape[1])}; });
    Emit(OpKind::kMv, {a, v}, {a.shape[0]}, a.dtype, [](Node&) {});
  }

  void Dot(bool chain) {
    DType base = BaseDType();
    Value a =
        chain && last_.shape.size() == 1 ? last_ : Operand(base, [&] { return Shape{KDim()}; });
    Value b = Operand(a.dtype, [&] { return Shape{SecondK(a.shape[0])}; });
    Emit(OpKind::kDot, {a, b}, {}, a.dtype, [](Node&) {});
  }

  // The addmm family (addmm_builder.cc): the product plus a bias of one of its broadcast forms, or
  // with p_shape_violation or p_bias_violation one that does not expand to it (BiasShape).
  Shape BiasShape(const Shape& out, const std::vector<Shape>& forms);
  void Addmm(bool chain);
  void Addmv(bool chain);
  void Baddbmm(bool chain);
  void Addbmm(bool chain);

  // linear: x (..., in) @ w.T with w (out, in), with or without a bias (out).
  void Linear(bool chain) {
    DType base = BaseDType();
    Value x;
    if (chain && !last_.shape.empty()) {
      x = last_;
    } else {
      const int top = std::max(p_.min_linear_rank, p_.max_linear_rank);
      Shape s = BatchDims(static_cast<int>(c_.Int(p_.min_linear_rank - 1, top - 1)));
      s.push_back(KDim());
      x = Input(s, OperandDType(base));
    }
    int64_t out = Dim();
    Value w = Operand(x.dtype, [&] { return Shape{out, SecondK(x.shape.back())}; });
    Shape result(x.shape.begin(), x.shape.end() - 1);
    result.push_back(out);
    std::vector<Value> args = {x, w};
    const bool bias = c_.Coin(p_.p_linear_bias);
    if (bias) args.push_back(Input({out}, OperandDType(x.dtype)));
    // Siblings on the same input (freezing concatenates such linears), each with its own weight
    // (and bias where the first has one), of their own output sizes; emitted first, so that the
    // first linear stays the last result.
    if (c_.Coin(p_.p_linear_siblings)) {
      const int64_t siblings = c_.Coin(p_.p_two_siblings) ? 2 : 1;
      for (int64_t i = 0; i < siblings; ++i) {
        const int64_t n = c_.Coin(p_.p_siblings_equal) ? out : Dim();
        std::vector<Value> sib = {x, Input({n, x.shape.back()}, w.dtype)};
        if (bias) sib.push_back(Input({n}, args[2].dtype));
        Shape shape(x.shape.begin(), x.shape.end() - 1);
        shape.push_back(n);
        Emit(OpKind::kLinear, sib, shape, x.dtype, [](Node&) {});
      }
    }
    Emit(OpKind::kLinear, args, result, x.dtype, [](Node&) {});
  }

  // Attention's operands q (B, H, L, E) or (H, L, E), k (.., S, E), v (.., S, Ev) and the shape of
  // its mask, for sdpa (`fused`, which may group query heads) and the hand-written form.
  struct Qkv {
    Value q, k, v;
    Shape mask_shape;
    bool four, gqa;
    int64_t b, h, hk, l, s, e, ev;
    Shape Heads(int64_t heads, int64_t rows, int64_t cols) const {
      return HeadsShape(four, b, heads, rows, cols);
    }
  };
  // (B, heads, rows, cols) in 4-D attention, else (heads, rows, cols).
  static Shape HeadsShape(bool four, int64_t b, int64_t heads, int64_t rows, int64_t cols) {
    return four ? Shape{b, heads, rows, cols} : Shape{heads, rows, cols};
  }
  Qkv AttentionOperands(bool fused, bool chain);
  // A 4-D operand of shape s = (B, H, rows, cols), stored (B, rows, H, cols) and permuted.
  Value HeadsFirst(const Shape& s, DType dtype);
  // ... projected from x (B, rows, D): linear(x, W) with W (H * cols, D) (and a bias by
  // p_linear_bias), reshaped to (B, rows, H, cols) and permuted; x cast to dtype first if need be.
  Value Projected(const Value& x, const Shape& s, DType dtype);
  // torch's scaled_dot_product_attention.
  void Sdpa(bool chain);
  // Attention built by hand, the shape of the seed bug, in the spellings Inductor's attention
  // rewrites match (torch/_inductor/fx_passes/fuse_attention.py): q @ kᵀ (k transposed, or
  // permuted; torch.bmm for 3-D operands sometimes), scaled (multiplied by 1/sqrt(E) or a
  // constant, or divided by sqrt(E) or a constant; the scores, or q before the product, or not
  // at all), an optional additive mask, softmax in a chosen dtype (its dtype argument, or a cast
  // first; over the last dim, or sometimes another), dropout, a cast back (or the probabilities
  // and v both cast to a 16-bit dtype), @ v. Its table entry is its softmax.
  void Attention(bool chain);
  // MBart's attention (_sfdp_pattern_24) on 4-D contiguous inputs: heads merged by view (q) and
  // reshape (k, v) around torch.bmm, the scores back to 4-D for an added mask, a softmax, a cast
  // to float16 where the operands are float16 and the scores not, the result back to 4-D.
  void MergedHeadsAttention(const Qkv& a);
  // Whether q, k and v are 4-D contiguous inputs of one dtype (MergedHeadsAttention's operands).
  bool PlainQkv(const Qkv& a) const;
  // Hand-written attention's mask on its scores x: added, masked_fill'ed or torch.where'd (see
  // GenPolicy's p_mask_fill), from an input, a padding vector or a causal tril.
  Value Masked(const Qkv& a, const Value& x);
  // x + mask, the mask an input of x's dtype, or float32 (p_mask_float32) where x is 16-bit.
  Value AddedMask(const Qkv& a, const Value& x);
  // torch.tril(torch.full([l, s], True, device=like.device)): True on and below the diagonal.
  Value CausalMask(const Value& like, int64_t l, int64_t s);

  // An op of the addmm family, with alpha and beta drawn from values that matter (0, 1, others).
  void EmitScaled(OpKind op, const std::vector<Value>& args, const Shape& shape, DType dtype) {
    static const std::vector<double> kScalars = {1.0, 1.0, 0.0, 0.5, -1.0, 2.0};
    const double alpha = c_.Pick(kScalars);
    const double beta = p_.p_beta_zero > 0 && c_.Coin(p_.p_beta_zero) ? 0.0 : c_.Pick(kScalars);
    Emit(op, args, shape, dtype, [&](Node& node) {
      node.alpha = alpha;
      node.beta = beta;
    });
  }

  // For the result-shape bookkeeping of a (possibly violating) matmul, assume the intended K.
  static Shape SecondKFree(Shape b, int64_t k, int rb) {
    if (rb == 1)
      b[0] = k;
    else
      b[b.size() - 2] = k;
    return b;
  }

  ChoiceSource& c_;
  GenPolicy p_;  // a copy: swarm mode edits it per program
  Program prog_;
  std::set<std::string> mask_inputs_;  // the inputs that are attention masks (MaskInput)
  // Values a model returns besides its result (attention's permuted keys and values).
  std::vector<std::string> extra_outputs_;
  Value last_;
  std::vector<Value> last_args_;  // the operands of the node last_ names
  bool has_last_ = false;
  Device device_ = Device::kCpu;
};

}  // namespace mmdiff
