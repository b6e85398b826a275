// Op specs and shape rules.
#include "src/ir/op.h"

#include <algorithm>
#include <array>

namespace mmdiff {

namespace {
constexpr std::array<OpSpec, 39> kSpecs = {{
    {OpKind::kMm, "mm", 2, "torch.mm", false, false, 2, false},
    {OpKind::kBmm, "bmm", 2, "torch.bmm", false, false, 2, false},
    {OpKind::kMatmul, "matmul", 2, "torch.matmul", false, false, 2, false},
    {OpKind::kAddmm, "addmm", 3, "torch.addmm", true, false, 3, false},
    {OpKind::kCast, "cast", 1, ".to", false, true, 1, false},
    {OpKind::kMv, "mv", 2, "torch.mv", false, false, 2, false},
    {OpKind::kDot, "dot", 2, "torch.dot", false, false, 2, false},
    {OpKind::kAddmv, "addmv", 3, "torch.addmv", true, false, 3, false},
    {OpKind::kBaddbmm, "baddbmm", 3, "torch.baddbmm", true, false, 3, false},
    {OpKind::kAddbmm, "addbmm", 3, "torch.addbmm", true, false, 3, false},
    {OpKind::kLinear, "linear", 3, "torch.nn.functional.linear", false, false, 2, false},
    {OpKind::kAdd, "add", 2, "torch.add", false, false, 2, false},
    {OpKind::kMulScalar, "mul_scalar", 1, "torch.mul", false, false, 1, false},
    {OpKind::kDivScalar, "div_scalar", 1, "torch.div", false, false, 1, false},
    {OpKind::kMul, "mul", 2, "torch.mul", false, false, 2, false},
    {OpKind::kDiv, "div", 2, "torch.div", false, false, 2, false},
    {OpKind::kEqScalar, "eq_scalar", 1, "torch.eq", false, false, 1, false},
    {OpKind::kMaskedFill, "masked_fill", 2, "torch.masked_fill", false, false, 2, false},
    {OpKind::kWhere, "where", 3, "torch.where", false, false, 3, false},
    {OpKind::kTril, "tril", 1, "torch.tril", false, false, 1, true},
    {OpKind::kFull, "full", 1, "torch.full", false, false, 1, true},
    {OpKind::kSoftmax, "softmax", 1, "torch.softmax", false, false, 1, true},
    {OpKind::kSdpa, "scaled_dot_product_attention", 4,
     "torch.nn.functional.scaled_dot_product_attention", false, false, 3, false},
    {OpKind::kDropout, "dropout", 1, "torch.dropout", false, false, 1, false},
    {OpKind::kRelu, "relu", 1, "torch.relu", false, false, 1, false},
    {OpKind::kGelu, "gelu", 1, "torch.nn.functional.gelu", false, false, 1, false},
    {OpKind::kSilu, "silu", 1, "torch.nn.functional.silu", false, false, 1, false},
    {OpKind::kSigmoid, "sigmoid", 1, "torch.sigmoid", false, false, 1, false},
    {OpKind::kTanh, "tanh", 1, "torch.tanh", false, false, 1, false},
    {OpKind::kClamp, "clamp", 1, "torch.clamp", false, false, 1, false},
    {OpKind::kToDevice, "to_device", 1, ".to", false, false, 1, false},
    {OpKind::kTranspose, "transpose", 1, ".transpose", false, false, 1, true},
    {OpKind::kPermute, "permute", 1, ".permute", false, false, 1, true},
    {OpKind::kReshape, "reshape", 1, ".reshape", false, false, 1, true},
    {OpKind::kExpand, "expand", 1, ".expand", false, false, 1, true},
    {OpKind::kNarrow, "narrow", 1, ".narrow", false, false, 1, true},
    {OpKind::kContiguous, "contiguous", 1, ".contiguous", false, false, 1, false},
    {OpKind::kSlice, "slice", 1, "[]", false, false, 1, true},
    {OpKind::kView, "view", 1, ".view", false, false, 1, true},
}};

Status RankIs(const Shape& s, size_t rank, const char* what) {
  if (s.size() != rank)
    return Status::Error(std::string(what) + " must be a " + std::to_string(rank) +
                         "D tensor, got " + ShapeString(s));
  return Status::Ok();
}

// The bias of the addmm family is expanded to the product's shape (expand semantics: its rank may
// not exceed the product's, and each dim must equal the product's or be 1).
Result<Shape> ExpandBias(const Shape& bias, const Result<Shape>& product) {
  if (!product.ok()) return product;
  auto b = BroadcastShapes(bias, product.value());
  if (bias.size() > product.value().size() || !b.ok() || b.value() != product.value())
    return Status::Error("bias of shape " + ShapeString(bias) + " cannot be expanded to " +
                         ShapeString(product.value()));
  return product;
}

Result<Shape> BmmShape(const Shape& a, const Shape& b) {
  if (auto s = RankIs(a, 3, "batch1"); !s.ok()) return s;
  if (auto s = RankIs(b, 3, "batch2"); !s.ok()) return s;
  if (a[0] != b[0] || a[2] != b[1])
    return Status::Error("Expected size for first two dimensions of batch2 tensor to be: [" +
                         std::to_string(a[0]) + ", " + std::to_string(a[2]) + "] but got: [" +
                         std::to_string(b[0]) + ", " + std::to_string(b[1]) + "].");
  return Shape{a[0], a[1], b[2]};
}

Result<Shape> MvShape(const Shape& m, const Shape& v) {
  if (m.size() != 2 || v.size() != 1)
    return Status::Error("vector + matrix @ vector expected, got " + std::to_string(m.size()) +
                         "-D matrix and " + std::to_string(v.size()) + "-D vector");
  if (m[1] != v[0])
    return Status::Error("size mismatch, got input (" + std::to_string(m[0]) + "), mat (" +
                         std::to_string(m[0]) + "x" + std::to_string(m[1]) + "), vec (" +
                         std::to_string(v[0]) + ")");
  return Shape{m[0]};
}

// F.linear(x, w): x (..., in) @ w.T with w (out, in) -> (..., out), or w (in) -> (...).
Result<Shape> LinearShape(const Shape& x, const Shape& w) {
  if (x.empty()) return Status::Error("linear: input must have at least 1 dimension");
  if (w.empty() || w.size() > 2)
    return Status::Error("linear: weight must be 1-D or 2-D, got " + ShapeString(w));
  if (x.back() != w.back())
    return Status::Error("mat1 and mat2 shapes cannot be multiplied (input " + ShapeString(x) +
                         ", weight " + ShapeString(w) + ")");
  Shape out(x.begin(), x.end() - 1);
  if (w.size() == 2) out.push_back(w[0]);
  return out;
}

// A dim index as torch wraps it (negative counts from the end); IndexError-style message if out of
// range.
Result<int64_t> WrapDim(int64_t d, size_t rank) {
  int64_t r = static_cast<int64_t>(std::max<size_t>(rank, 1));
  if (d < -r || d >= r)
    return Status::Error("Dimension out of range (expected to be in range of [" +
                         std::to_string(-r) + ", " + std::to_string(r - 1) + "], but got " +
                         std::to_string(d) + ")");
  return d < 0 ? d + r : d;
}

Result<Shape> ViewShape(OpKind k, const Shape& x, const std::vector<int64_t>& ints) {
  switch (k) {
    case OpKind::kTranspose: {
      if (ints.size() != 2) return Status::Error("transpose needs two dims");
      if (x.empty()) return Shape{};
      auto a = WrapDim(ints[0], x.size()), b = WrapDim(ints[1], x.size());
      if (!a.ok()) return a.status();
      if (!b.ok()) return b.status();
      Shape out = x;
      std::swap(out[a.value()], out[b.value()]);
      return out;
    }
    case OpKind::kPermute: {
      if (ints.size() != x.size())
        return Status::Error(
            "permute(sparse_coo): number of dimensions in the tensor input does not match the "
            "length of the desired ordering of dimensions i.e. input.dim() = " +
            std::to_string(x.size()) +
            " is not equal to len(dims) = " + std::to_string(ints.size()));
      Shape out;
      std::vector<bool> seen(x.size(), false);
      for (int64_t d : ints) {
        auto w = WrapDim(d, x.size());
        if (!w.ok()) return w.status();
        if (seen[w.value()]) return Status::Error("permute(): duplicate dims are not allowed.");
        seen[w.value()] = true;
        out.push_back(x[w.value()]);
      }
      return out;
    }
    case OpKind::kSlice: {
      if (ints.size() != 4) return Status::Error("slice needs dim, start, end and step");
      if (x.empty()) return Status::Error("slice() cannot be applied to a 0-dim tensor.");
      auto d = WrapDim(ints[0], x.size());
      if (!d.ok()) return d.status();
      if (ints[3] <= 0) return Status::Error("slice step must be positive");
      int64_t size = x[d.value()];
      int64_t start = std::clamp<int64_t>(ints[1], 0, size),
              end = std::clamp<int64_t>(ints[2], start, size);
      Shape out = x;
      out[d.value()] = (end - start + ints[3] - 1) / ints[3];
      return out;
    }
    case OpKind::kView:
    case OpKind::kReshape: {
      int64_t known = 1, infer = -1;
      for (size_t i = 0; i < ints.size(); ++i) {
        if (ints[i] == -1) {
          if (infer >= 0) return Status::Error("only one dimension can be inferred");
          infer = static_cast<int64_t>(i);
        } else if (ints[i] < 0) {
          return Status::Error("invalid shape dimension " + std::to_string(ints[i]));
        } else {
          known *= ints[i];
        }
      }
      Shape out(ints.begin(), ints.end());
      int64_t numel = Numel(x);
      if (infer >= 0 && known != 0 && numel % known == 0) out[infer] = numel / known;
      if (Numel(out) != numel || (infer >= 0 && known == 0))
        return Status::Error("shape '" + ShapeString(Shape(ints.begin(), ints.end())) +
                             "' is invalid for input of size " + std::to_string(numel));
      return out;
    }
    case OpKind::kExpand: {
      if (ints.size() < x.size())
        return Status::Error(
            "expand: the number of sizes provided (" + std::to_string(ints.size()) +
            ") must be greater or equal to the number of dimensions in the tensor (" +
            std::to_string(x.size()) + ")");
      Shape out(ints.begin(), ints.end());
      size_t lead = ints.size() - x.size();
      for (size_t i = 0; i < ints.size(); ++i) {
        int64_t have = i < lead ? 1 : x[i - lead];
        if (ints[i] == -1 && i >= lead)
          out[i] = have;
        else if (ints[i] < 0)
          return Status::Error("expand: invalid size " + std::to_string(ints[i]));
        else if (have != 1 && have != ints[i])
          return Status::Error("The expanded size of the tensor (" + std::to_string(ints[i]) +
                               ") must match the existing size (" + std::to_string(have) +
                               ") at non-singleton dimension " + std::to_string(i));
      }
      return out;
    }
    case OpKind::kNarrow: {
      if (ints.size() != 3) return Status::Error("narrow needs dim, start and length");
      if (x.empty()) return Status::Error("narrow() cannot be applied to a 0-dim tensor.");
      auto d = WrapDim(ints[0], x.size());
      if (!d.ok()) return d.status();
      int64_t size = x[d.value()], start = ints[1] < 0 ? ints[1] + size : ints[1], len = ints[2];
      // aten/src/ATen/native/TensorShape.cpp, narrow: TORCH_CHECK_INDEX on start's range first.
      if (ints[1] < -size || ints[1] > size)
        return Status::Error("start out of range (expected to be in range of [" +
                             std::to_string(-size) + ", " + std::to_string(size) + "], but got " +
                             std::to_string(ints[1]) + ")");
      if (start < 0 || start > size || len < 0 || start + len > size)
        return Status::Error("start (" + std::to_string(ints[1]) + ") + length (" +
                             std::to_string(len) + ") exceeds dimension size (" +
                             std::to_string(size) + ").");
      Shape out = x;
      out[d.value()] = len;
      return out;
    }
    default:
      return x;
  }
}

Result<Shape> MmShape(const Shape& a, const Shape& b) {
  if (auto s = RankIs(a, 2, "self"); !s.ok()) return s;
  if (auto s = RankIs(b, 2, "mat2"); !s.ok()) return s;
  if (a[1] != b[0])
    return Status::Error("mat1 and mat2 shapes cannot be multiplied (" + std::to_string(a[0]) +
                         "x" + std::to_string(a[1]) + " and " + std::to_string(b[0]) + "x" +
                         std::to_string(b[1]) + ")");
  return Shape{a[0], b[1]};
}
}  // namespace

const OpSpec& GetOpSpec(OpKind k) { return kSpecs[static_cast<size_t>(k)]; }

std::optional<OpKind> ParseOpKind(std::string_view name) {
  for (const auto& s : kSpecs)
    if (s.name == name) return s.kind;
  return std::nullopt;
}

const std::vector<OpKind>& AllOpKinds() {
  static const std::vector<OpKind> kAll = [] {
    std::vector<OpKind> v;
    for (const auto& s : kSpecs) v.push_back(s.kind);
    return v;
  }();
  return kAll;
}

bool IsView(OpKind k) { return k >= OpKind::kTranspose; }

namespace {
// scaled_dot_product_attention: q (..., L, E), k (..., S, E), v (..., S, Ev), mask broadcastable to
// (..., L, S) -> (..., L, Ev). Batch dims broadcast; with enable_gqa the heads (dim -3) of k and v
// must divide q's and are repeated. Source: torch/nn/functional.py docs and
// aten/src/ATen/native/transformers/attention.cpp; probed on torch 2.15.0 cpu.
Result<Shape> SdpaShape(const std::vector<Shape>& a, bool enable_gqa) {
  const Shape &q = a[0], &k = a[1], &v = a[2];
  if (q.size() < 2 || k.size() < 2 || v.size() < 2)
    return Status::Error("Expected query, key, and value to all be  at least 2 dimensional");
  int64_t l = q[q.size() - 2], e = q.back(), s = k[k.size() - 2];
  if (k.back() != e || v[v.size() - 2] != s)
    return Status::Error(
        "Expected size for first two dimensions of batch2 tensor to match: query " +
        ShapeString(q) + ", key " + ShapeString(k) + ", value " + ShapeString(v));
  Shape qb(q.begin(), q.end() - 2), kb(k.begin(), k.end() - 2), vb(v.begin(), v.end() - 2);
  if (enable_gqa && !qb.empty() && !kb.empty() && !vb.empty()) {
    int64_t hq = qb.back(), hk = kb.back(), hv = vb.back();
    if (hk == 0 || hv == 0 || hq % hk != 0 || hq % hv != 0)
      return Status::Error(
          "Number of heads in key and value must divide the number of heads in query");
    kb.back() = hq;
    vb.back() = hq;
  }
  auto batch = BroadcastShapes(qb, kb);
  if (batch.ok()) batch = BroadcastShapes(batch.value(), vb);
  if (!batch.ok()) return batch;
  Shape out = batch.value();
  out.push_back(l);
  out.push_back(v.back());
  if (a.size() == 4) {
    Shape scores = batch.value();
    scores.push_back(l);
    scores.push_back(s);
    auto m = BroadcastShapes(a[3], scores);
    if (!m.ok() || m.value() != scores)
      return Status::Error("attn_mask of shape " + ShapeString(a[3]) + " does not broadcast to " +
                           ShapeString(scores));
  }
  return out;
}
}  // namespace
bool IsMatmulFamily(OpKind k) { return k <= OpKind::kLinear && k != OpKind::kCast; }
bool IsElementwise(OpKind k) {
  return k == OpKind::kAdd || k == OpKind::kMulScalar || k == OpKind::kDivScalar;
}
bool HasScalar(OpKind k) {
  return k == OpKind::kMulScalar || k == OpKind::kDivScalar || k == OpKind::kEqScalar ||
         k == OpKind::kMaskedFill || k == OpKind::kFull;
}
bool IsUnaryEpilogue(OpKind k) { return k >= OpKind::kRelu && k <= OpKind::kClamp; }
bool CutsGradient(OpKind k) { return k == OpKind::kEqScalar || k == OpKind::kFull; }
bool IsBinaryPromoting(OpKind k) {
  return k == OpKind::kAdd || k == OpKind::kMul || k == OpKind::kDiv;
}

Result<Shape> InferShape(OpKind k, const std::vector<Shape>& args, const std::vector<int64_t>& ints,
                         bool enable_gqa) {
  int n = static_cast<int>(args.size());
  if (n < GetOpSpec(k).min_arity || n > GetOpSpec(k).arity)
    return Status::Error("wrong number of arguments");
  switch (k) {
    case OpKind::kMm:
      return MmShape(args[0], args[1]);
    case OpKind::kBmm:
      return BmmShape(args[0], args[1]);
    case OpKind::kMatmul:
      return MatmulShape(args[0], args[1]);
    case OpKind::kAddmm:
      return ExpandBias(args[0], MmShape(args[1], args[2]));
    case OpKind::kMv:
      return MvShape(args[0], args[1]);
    case OpKind::kDot:
      if (args[0].size() != 1 || args[1].size() != 1)
        return Status::Error("1D tensors expected, but got " + std::to_string(args[0].size()) +
                             "D and " + std::to_string(args[1].size()) + "D tensors");
      if (args[0][0] != args[1][0])
        return Status::Error("inconsistent tensor size, expected tensor [" +
                             std::to_string(args[0][0]) + "] and src [" +
                             std::to_string(args[1][0]) + "] to have the same number of elements");
      return Shape{};
    case OpKind::kAddmv:
      return ExpandBias(args[0], MvShape(args[1], args[2]));
    case OpKind::kBaddbmm:
      return ExpandBias(args[0], BmmShape(args[1], args[2]));
    case OpKind::kAddbmm: {
      auto bmm = BmmShape(args[1], args[2]);
      if (!bmm.ok()) return bmm;
      return ExpandBias(args[0], Shape{bmm.value()[1], bmm.value()[2]});
    }
    case OpKind::kLinear: {
      auto out = LinearShape(args[0], args[1]);
      if (args.size() == 3 && out.ok()) return ExpandBias(args[2], out);
      return out;
    }
    case OpKind::kCast:
    case OpKind::kMulScalar:
    case OpKind::kDivScalar:
    case OpKind::kDropout:
    case OpKind::kToDevice:
    case OpKind::kRelu:
    case OpKind::kGelu:
    case OpKind::kSilu:
    case OpKind::kSigmoid:
    case OpKind::kTanh:
    case OpKind::kClamp:
      return args[0];
    case OpKind::kSoftmax: {
      if (ints.size() != 1) return Status::Error("softmax needs one dim");
      auto d = WrapDim(ints[0], args[0].size());
      if (!d.ok()) return d.status();
      return args[0];
    }
    case OpKind::kSdpa:
      return SdpaShape(args, enable_gqa);
    case OpKind::kAdd:
    case OpKind::kMul:
    case OpKind::kDiv:
    case OpKind::kMaskedFill:
      return BroadcastShapes(args[0], args[1]);
    case OpKind::kWhere: {
      auto xy = BroadcastShapes(args[1], args[2]);
      if (!xy.ok()) return xy;
      return BroadcastShapes(args[0], xy.value());
    }
    case OpKind::kEqScalar:
      return args[0];
    case OpKind::kTril:
      if (ints.size() != 1) return Status::Error("tril needs one diagonal");
      if (args[0].size() < 2)
        return Status::Error("tril: input tensor must have at least 2 dimensions");
      return args[0];
    case OpKind::kFull:
      for (int64_t d : ints)
        if (d < 0) return Status::Error("full: negative size " + std::to_string(d));
      return Shape(ints.begin(), ints.end());
    case OpKind::kTranspose:
    case OpKind::kPermute:
    case OpKind::kReshape:
    case OpKind::kExpand:
    case OpKind::kNarrow:
    case OpKind::kContiguous:
    case OpKind::kSlice:
    case OpKind::kView:
      return ViewShape(k, args[0], ints);
  }
  return Status::Error("unknown op");
}

}  // namespace mmdiff
