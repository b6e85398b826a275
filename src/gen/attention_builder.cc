// The attention builders of ProgramBuilder: torch's scaled_dot_product_attention and attention
// written by hand in the spellings Inductor's attention rewrites match.
#include <cmath>
#include <limits>
#include <vector>

#include "src/gen/program_builder.h"

namespace mmdiff {

ProgramBuilder::Qkv ProgramBuilder::AttentionOperands(bool fused, bool chain) {
  DType f = FloatDType();
  bool four = c_.Coin(p_.p_attention_4d);
  // 4-D attention whose operands are laid out (B, S, H, E), as models project them, and permuted
  // to heads first (by hand: the form of _sfdp_pattern_7 to 12 and 14 to 28; sdpa: 29 and 30,
  // which fold sdpa's own decomposition back).
  const bool heads_second = four && c_.Coin(p_.p_attention_bshd);
  // Self-attention projected from one input (a model's layer): q, k and v are linears of x.
  const bool projected = heads_second && !chain && c_.Coin(p_.p_attention_projection);
  int64_t b = c_.Int(p_.attention_batch_min, p_.attention_batch_max),
          h = c_.Int(p_.attention_heads_min, p_.attention_heads_max), l = Dim(), e = Dim();
  Value x;
  if (projected) x = RawInput({b, l, Dim()}, f);
  auto fresh = [&](const Shape& s, DType dtype) {
    if (projected) return Projected(x, s, dtype);
    return heads_second ? HeadsFirst(s, dtype) : Input(s, dtype);
  };
  Value q;
  if (chain && last_.shape.size() == (four ? 4u : 3u)) {
    q = last_;
    if (four) b = q.shape[0];
    h = q.shape[q.shape.size() - 3];
    l = q.shape[q.shape.size() - 2];
    e = q.shape.back();
  } else {
    q = fresh(four ? Shape{b, h, l, e} : Shape{h, l, e}, f);
  }
  int64_t s = projected ? l : Dim(), ev = c_.Coin(p_.p_ev_equal_e) ? e : Dim(), hk = h;
  bool gqa = fused && four && c_.Coin(p_.p_gqa);
  if (gqa) {  // k and v carry fewer heads: query heads are grouped onto them
    hk = c_.Int(1, 2);
    h = hk * c_.Int(2, 3);
    if (!chain || q.shape[1] != h) q = fresh({b, h, l, e}, f);
  }
  auto shape = [&](int64_t heads, int64_t rows, int64_t cols) {
    return HeadsShape(four, b, heads, rows, cols);
  };
  DType k_dtype = OperandDType(q.dtype);  // before the shape's draws (see Operand)
  Value k = fresh(shape(hk, s, SecondK(e)), k_dtype);
  Value v =
      fresh(shape(hk, s, ev), c_.Coin(p_.p_v_float32) ? DType::kFloat32 : OperandDType(q.dtype));
  Shape mask_shape = c_.Coin(kMaskUnbatched) ? Shape{l, s}
                     : four                  ? Shape{b, 1, l, s}
                                             : Shape{1, l, s};
  return {q, k, v, mask_shape, four, gqa, b, h, hk, l, s, e, ev};
}

ProgramBuilder::Value ProgramBuilder::HeadsFirst(const Shape& s, DType dtype) {
  Value in = RawInput({s[0], s[2], s[1], s[3]}, dtype);
  return Emit(OpKind::kPermute, {in}, s, dtype, [](Node& n) { n.ints = {0, 2, 1, 3}; });
}

ProgramBuilder::Value ProgramBuilder::Projected(const Value& x, const Shape& s, DType dtype) {
  const int64_t batch = s[0], heads = s[1], rows = s[2], cols = s[3];
  Value in = x.dtype == dtype ? x : CastTo(x, dtype);
  std::vector<Value> args = {in, RawInput({heads * cols, x.shape.back()}, dtype)};
  if (c_.Coin(p_.p_linear_bias)) args.push_back(RawInput({heads * cols}, dtype));
  Value y = Emit(OpKind::kLinear, args, {batch, rows, heads * cols}, dtype, [](Node&) {});
  const Shape split = {batch, rows, heads, cols};
  Shape sizes = split;  // .reshape(B, L, H, -1) as models write it, sometimes
  if (c_.Coin(p_.p_size_minus_one) && Numel(split) > 0)
    sizes[static_cast<size_t>(c_.Int(0, 3))] = -1;
  Value r = Emit(OpKind::kReshape, {y}, split, dtype, [&](Node& n) { n.ints = sizes; });
  return Emit(OpKind::kPermute, {r}, s, dtype, [](Node& n) { n.ints = {0, 2, 1, 3}; });
}

void ProgramBuilder::Sdpa(bool chain) {
  Qkv a = AttentionOperands(/*fused=*/true, chain);
  std::vector<Value> args = {a.q, a.k, a.v};
  bool mask = c_.Coin(p_.p_mask);
  if (mask) {
    const DType m = c_.Coin(p_.p_mask_bool)      ? DType::kBool
                    : c_.Coin(p_.p_mask_float32) ? DType::kFloat32
                                                 : a.q.dtype;
    args.push_back(MaskInput([&] { return RawInput(a.mask_shape, m); }));
  }
  bool causal = mask ? c_.Coin(p_.p_shape_violation) : c_.Coin(p_.p_causal);  // both: a violation
  std::optional<double> scale;
  static const std::vector<double> kScales = {0.125, 0.5, 1.0, 2.0};
  if (c_.Coin(p_.p_sdpa_scale)) scale = c_.Pick(kScales);
  Emit(OpKind::kSdpa, args, a.Heads(a.h, a.l, a.ev), a.q.dtype, [&](Node& n) {
    n.is_causal = causal;
    n.scale = scale;
    n.enable_gqa = a.gqa;
  });
}

ProgramBuilder::Value ProgramBuilder::CausalMask(const Value& like, int64_t l, int64_t s) {
  Value ones = Emit(OpKind::kFull, {like}, {l, s}, DType::kBool, [&](Node& n) {
    n.ints = {l, s};
    n.alpha = 1.0;
    n.dtype = DType::kBool;
  });
  return Emit(OpKind::kTril, {ones}, ones.shape, DType::kBool, [](Node& n) { n.ints = {0}; });
}

ProgramBuilder::Value ProgramBuilder::Masked(const Qkv& a, const Value& x) {
  const bool causal = c_.Coin(p_.p_causal_tril);
  if (c_.Coin(p_.p_mask_fill)) {  // True where masked
    Value mask;
    if (a.four && c_.Coin(p_.p_mask_padding)) {  // (pad == 0).view(B, 1, 1, S).expand_as(scores)
      Value pad = MaskInput([&] { return Input({a.b, a.s}, FloatDType()); });
      Value zero =
          Emit(OpKind::kEqScalar, {pad}, pad.shape, DType::kBool, [](Node& n) { n.alpha = 0.0; });
      const Shape spread = {a.b, 1, 1, a.s};
      Value row =
          Emit(OpKind::kReshape, {zero}, spread, DType::kBool, [&](Node& n) { n.ints = spread; });
      mask =
          Emit(OpKind::kExpand, {row}, x.shape, DType::kBool, [&](Node& n) { n.ints = x.shape; });
    } else if (causal) {  // above the diagonal: tril(ones) == 0
      Value keep = CausalMask(x, a.l, a.s);
      mask =
          Emit(OpKind::kEqScalar, {keep}, keep.shape, DType::kBool, [](Node& n) { n.alpha = 0.0; });
    } else {
      mask = RawInput(a.mask_shape, DType::kBool);
    }
    // -inf, else a finite fill: the dtype's lowest value or -1e4, alike (a fair coin: models
    // write both).
    constexpr double kLowestFill = 0.5;
    double fill = -std::numeric_limits<double>::infinity();
    if (!c_.Coin(p_.p_mask_fill_inf)) {
      const bool lowest = c_.Coin(kLowestFill);
      fill = lowest ? -MaxFinite(x.dtype) : -1e4;
    }
    return Emit(OpKind::kMaskedFill, {x, mask}, x.shape, x.dtype, [&](Node& n) { n.alpha = fill; });
  }
  if (c_.Coin(p_.p_mask_where)) {  // True where kept; the rest the dtype's lowest value
    Value keep = causal ? CausalMask(x, a.l, a.s) : RawInput(a.mask_shape, DType::kBool);
    Value lowest =
        Emit(OpKind::kFull, {x}, {}, x.dtype, [&](Node& n) { n.alpha = -MaxFinite(x.dtype); });
    Value kept = Emit(OpKind::kWhere, {keep, x, lowest}, x.shape, x.dtype, [](Node&) {});
    // GPT-2 adds the attention mask after the causal where (_sfdp_pattern_19).
    return c_.Coin(p_.p_mask_where_add) ? AddedMask(a, kept) : kept;
  }
  return AddedMask(a, x);
}

ProgramBuilder::Value ProgramBuilder::AddedMask(const Qkv& a, const Value& x) {
  // A float32 mask added to 16-bit scores promotes them (_sfdp_pattern_16's half_mask_fp32 form).
  const DType m_dtype =
      IsHalfFloat(x.dtype) && c_.Coin(p_.p_mask_float32) ? DType::kFloat32 : OperandDType(x.dtype);
  Value m = Addable(MaskInput([&] { return Input(a.mask_shape, m_dtype); }), x.dtype);
  return Emit(OpKind::kAdd, {x, m}, x.shape, PromoteTypes(x.dtype, m.dtype).value_or(x.dtype),
              [](Node&) {});
}

void ProgramBuilder::MergedHeadsAttention(const Qkv& a) {
  const int64_t bh = a.b * a.h;
  auto merged = [&](const Value& x, int64_t rows, int64_t cols, OpKind how) {
    std::vector<int64_t> sizes = {bh, rows, cols};
    if (c_.Coin(p_.p_size_minus_one)) sizes[1] = -1;
    return Emit(how, {x}, {bh, rows, cols}, x.dtype, [&](Node& n) { n.ints = sizes; });
  };
  Value q = merged(a.q, a.l, a.e, OpKind::kView);
  Value k = merged(a.k, a.s, a.e, OpKind::kReshape);
  Value v = merged(a.v, a.s, a.ev, OpKind::kReshape);
  // MBart views the scores and the result, which are contiguous; the IR views only what it knows
  // is, so they are reshaped, which traces to the same aten.view.
  Value kt =
      Emit(OpKind::kTranspose, {k}, {bh, a.e, a.s}, k.dtype, [](Node& n) { n.ints = {1, 2}; });
  Value w = Emit(OpKind::kBmm, {q, kt}, {bh, a.l, a.s}, q.dtype, [](Node&) {});
  const Shape four = {a.b, a.h, a.l, a.s};
  w = Emit(OpKind::kReshape, {w}, four, w.dtype, [&](Node& n) { n.ints = {a.b, a.h, a.l, -1}; });
  if (c_.Coin(p_.p_mask)) w = AddedMask(a, w);
  w = Emit(OpKind::kReshape, {w}, {bh, a.l, a.s}, w.dtype,
           [&](Node& n) { n.ints = {bh, a.l, -1}; });
  Value probs = Emit(OpKind::kSoftmax, {w}, w.shape, w.dtype, [](Node& n) { n.ints = {-1}; });
  if (probs.dtype != v.dtype) probs = CastTo(probs, v.dtype);  // `if query.dtype == torch.half`
  Value out = Emit(OpKind::kBmm, {probs, v}, {bh, a.l, a.ev}, v.dtype, [](Node&) {});
  const Shape back = {a.b, a.h, a.l, a.ev};
  Emit(OpKind::kReshape, {out}, back, out.dtype, [&](Node& n) { n.ints = back; });
}

bool ProgramBuilder::PlainQkv(const Qkv& a) const {
  auto contiguous_input = [&](const Value& x) {
    for (const InputSpec& in : prog_.inputs)
      if (in.name == x.name) return in.layout == Layout::kContiguous;
    return false;
  };
  return a.four && a.k.dtype == a.q.dtype && a.v.dtype == a.q.dtype && contiguous_input(a.q) &&
         contiguous_input(a.k) && contiguous_input(a.v);
}

void ProgramBuilder::Attention(bool chain) {
  Qkv a = AttentionOperands(/*fused=*/false, chain);
  if (PlainQkv(a) && c_.Coin(p_.p_attention_merged_bmm)) {
    MergedHeadsAttention(a);
    return;
  }
  int64_t rank = static_cast<int64_t>(a.q.shape.size());
  // T5 returns its keys and values, permuted to heads first, with the result.
  if (prog_.FindNode(a.k.name) && prog_.FindNode(a.v.name) && c_.Coin(p_.p_attention_kv_outputs)) {
    extra_outputs_.push_back(a.k.name);
    extra_outputs_.push_back(a.v.name);
  }
  const OpKind product = rank == 3 && c_.Coin(p_.p_attention_bmm) ? OpKind::kBmm : OpKind::kMatmul;
  // Where the scale goes: on the scores, on q before the product, or nowhere.
  const bool unscaled = c_.Coin(p_.p_attention_unscaled);
  const bool on_query = !unscaled && c_.Coin(p_.p_scale_query);
  auto scaled = [&](const Value& x) {
    const bool divide = c_.Coin(p_.p_scale_div);
    const double root_e = std::sqrt(static_cast<double>(std::max<int64_t>(a.e, 1)));
    double scale = c_.Coin(kRsqrtScale) ? (divide ? root_e : 1.0 / root_e)
                   : divide             ? c_.Pick(std::vector<double>{8.0, 2.0})
                                        : c_.Pick(std::vector<double>{0.125, 0.5});
    if (c_.Coin(p_.p_scale_tensor)) {  // x / torch.full([], s, dtype=x.dtype, device=x.device)
      Value t = Emit(OpKind::kFull, {x}, {}, x.dtype, [&](Node& n) { n.alpha = scale; });
      return Emit(divide ? OpKind::kDiv : OpKind::kMul, {x, t}, x.shape, x.dtype, [](Node&) {});
    }
    return Emit(divide ? OpKind::kDivScalar : OpKind::kMulScalar, {x}, x.shape, x.dtype,
                [&](Node& n) { n.alpha = scale; });
  };
  Value q = on_query ? scaled(a.q) : a.q;
  Value kt;
  if (c_.Coin(p_.p_key_permute)) {
    kt = Emit(OpKind::kPermute, {a.k}, a.Heads(a.hk, a.e, a.s), a.k.dtype, [&](Node& n) {
      for (int64_t d = 0; d < rank; ++d) n.ints.push_back(d);
      std::swap(n.ints[rank - 2], n.ints[rank - 1]);
    });
  } else {
    kt = Emit(OpKind::kTranspose, {a.k}, a.Heads(a.hk, a.e, a.s), a.k.dtype,
              [&](Node& n) { n.ints = {rank - 2, rank - 1}; });
  }
  Value scores = Emit(product, {q, kt}, a.Heads(a.h, a.l, a.s), q.dtype, [](Node&) {});
  Value x = unscaled || on_query ? scores : scaled(scores);
  if (c_.Coin(p_.p_mask)) x = Masked(a, x);
  // T5's round trip of 16-bit scores: x.type_as(q) where a float32 mask promoted them, else
  // x.float().type_as(q).
  if (IsHalfFloat(a.q.dtype) && c_.Coin(p_.p_scores_round_trip))
    x = CastTo(x.dtype == a.q.dtype ? CastTo(x, DType::kFloat32) : x, a.q.dtype);
  bool f32 = c_.Coin(p_.p_softmax_float32);
  // In float32 by softmax's dtype argument, or by a cast before it (x.float().softmax(-1)).
  if (f32 && c_.Coin(p_.p_softmax_cast_first)) {
    const bool method = c_.Coin(p_.p_cast_method);
    x = Emit(OpKind::kCast, {x}, x.shape, DType::kFloat32, [&](Node& n) {
      n.dtype = DType::kFloat32;
      n.method_spelling = method;
    });
    f32 = false;
  }
  const int64_t dim = c_.Coin(p_.p_softmax_other_dim) ? c_.Int(0, rank - 2) : -1;
  Value probs = Emit(OpKind::kSoftmax, {x}, x.shape, f32 ? DType::kFloat32 : x.dtype, [&](Node& n) {
    n.ints = {dim};
    if (f32) n.dtype = DType::kFloat32;
  });
  auto cast_back = [&] {
    probs =
        Emit(OpKind::kCast, {probs}, probs.shape, a.q.dtype, [&](Node& n) { n.dtype = a.q.dtype; });
  };
  // Dropout on the probabilities: zeroing at random while training (its values then go
  // unjudged; its dtypes, shapes and errors do not), or a form that keeps every element (p = 0
  // while training, or any p in eval). A float32 softmax may be cast back before it (T5).
  const bool dropout = c_.Coin(p_.p_attention_dropout);
  const bool back_first = dropout && probs.dtype != a.q.dtype && c_.Coin(p_.p_cast_back_first) &&
                          c_.Coin(p_.p_cast_back);
  if (back_first) cast_back();
  if (dropout) {
    const bool random = c_.Coin(p_.p_dropout_random);
    const bool train = random || c_.Coin(kDropoutTrainsAtZero);
    const double p = train && !random ? 0.0 : c_.Pick(std::vector<double>{0.1, 0.5});
    probs = Emit(OpKind::kDropout, {probs}, probs.shape, probs.dtype, [&](Node& n) {
      n.dropout_p = p;
      n.train = train;
    });
  }
  Value v = a.v;
  if (!back_first && c_.Coin(p_.p_attention_half_product)) {  // probs.to(h) @ v.to(h)
    const DType h = c_.Coin(p_.p_half_product_float16) ? DType::kFloat16 : DType::kBFloat16;
    probs = CastTo(probs, h);
    v = CastTo(v, h);
  } else if (!back_first && probs.dtype != a.q.dtype && c_.Coin(p_.p_cast_back)) {
    cast_back();
  }
  Value out = Emit(product, {probs, v}, a.Heads(a.h, a.l, a.ev), probs.dtype, [](Node&) {});
  // MBart merges the heads, out.reshape(B * H, L, Ev) or out.contiguous().view(...) (the IR
  // views only what it knows is contiguous), and projects them with a linear (pytorch#195589: on
  // 2.11.0 a fusion's 4-D result met the view and the linear's mm).
  if (a.four && c_.Coin(p_.p_attention_merge_heads)) {
    const Shape merged_shape = {a.b * a.h, a.l, a.ev};
    const bool reshape = c_.Coin(kMergeByReshape);
    if (!reshape) out = Emit(OpKind::kContiguous, {out}, out.shape, out.dtype, [](Node&) {});
    std::vector<int64_t> sizes = merged_shape;
    if (c_.Coin(p_.p_size_minus_one)) sizes[static_cast<size_t>(c_.Int(0, 2))] = -1;
    Value merged = Emit(reshape ? OpKind::kReshape : OpKind::kView, {out}, merged_shape, out.dtype,
                        [&](Node& n) { n.ints = sizes; });
    const int64_t width = Dim();
    std::vector<Value> args = {merged, Input({width, a.ev}, out.dtype)};
    if (c_.Coin(p_.p_linear_bias)) args.push_back(Input({width}, out.dtype));
    Emit(OpKind::kLinear, args, {a.b * a.h, a.l, width}, out.dtype, [](Node&) {});
  }
}

}  // namespace mmdiff
