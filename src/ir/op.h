// OpKind and the per-op spec: name, arity, attributes, and the shape rule eager applies.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "src/ir/shape.h"
#include "src/support/status.h"

namespace mmdiff {

enum class OpKind {
  kMm,
  kBmm,
  kMatmul,
  kAddmm,
  kCast,
  kMv,
  kDot,
  kAddmv,
  kBaddbmm,
  kAddbmm,
  kLinear,
  // Elementwise glue between matmuls: add (broadcasting, with type promotion), mul by the scalar
  // attribute "alpha", and true division by it (x / alpha: attention's scores over sqrt(E)).
  kAdd,
  kMulScalar,
  kDivScalar,
  // Tensor-tensor product and true quotient, broadcasting, with type promotion (a 0-d operand
  // such as torch.full([], s) promotes only across categories; true division of integers is
  // float32): attention scaled by a 0-d tensor.
  kMul,
  kDiv,
  // Masks: x == alpha (bool); x.masked_fill(mask, alpha) (mask bool, broadcasting; alpha may be
  // +-inf); torch.where(cond, x, y) (cond bool, or uint8 as torch still accepts); torch.tril(x,
  // ints[0]) over the last two dims; torch.full(ints, alpha, dtype=dtype or args[0]'s,
  // device=args[0]'s), whose one argument gives only the device (and the default dtype) and
  // carries no gradient: masks' fill values, scales as 0-d tensors and causal masks.
  kEqScalar,
  kMaskedFill,
  kWhere,
  kTril,
  kFull,
  // Attention: softmax over dim ints[0] (optional "dtype": softmax's dtype argument); torch's
  // scaled_dot_product_attention (q, k, v, optional mask; attributes is_causal, scale, enable_gqa).
  kSoftmax,
  kSdpa,
  // Dropout, torch.dropout(x, p, train) (attributes "p" and "train"): with train and p > 0 it
  // zeroes elements at random, so its values (and those computed from them) are not judged; its
  // dtype, shape and errors are.
  kDropout,
  // The pointwise epilogues after a product that Inductor's mkldnn fusions and C++ GEMM templates
  // fuse: torch.relu, torch.nn.functional.gelu (approximate "none" or, with the node's
  // gelu_tanh, "tanh"), torch.nn.functional.silu, torch.sigmoid, torch.tanh, and torch.clamp(x,
  // min, max) with integral bounds (the node's alpha and beta, written as Python ints, so that an
  // integer x stays integer).
  kRelu,
  kGelu,
  kSilu,
  kSigmoid,
  kTanh,
  kClamp,
  // A device move, .to(device) (attribute "device").
  kToDevice,
  // Views and layout changes (attribute "ints": transpose {d0, d1}; permute the dims; reshape and
  // expand the sizes; narrow {dim, start, length}; contiguous none; slice {dim, start, end, step},
  // Python's x[..., start:end:step, ...]; view the sizes, on a contiguous operand).
  kTranspose,
  kPermute,
  kReshape,
  kExpand,
  kNarrow,
  kContiguous,
  kSlice,
  kView,
};

struct OpSpec {
  OpKind kind;
  std::string_view name;        // IR and JSON name: "mm", "bmm", "matmul", "addmm", "cast", ...
  int arity;                    // number of tensor arguments (at most)
  std::string_view torch_call;  // what the Python emitter calls: "torch.mm", ...
  bool has_alpha_beta;          // addmm family: beta * args[0] + alpha * product(args[1], args[2])
  bool has_dtype;               // cast (softmax: optional)
  int min_arity;                // fewer than arity: trailing optional arguments (linear's bias)
  bool has_ints;                // views: the integer attribute "ints"
};

const OpSpec& GetOpSpec(OpKind k);
std::optional<OpKind> ParseOpKind(std::string_view name);
const std::vector<OpKind>& AllOpKinds();

// The result shape eager computes for the op's argument shapes, or the shape error it raises.
// Source: aten/src/ATen/native/LinearAlgebra.cpp and Blas.cpp (mm/bmm/addmm/addmv/baddbmm/addbmm/
// dot/mv/matmul shape checks), torch.nn.functional.linear docs; checked against torch 2.15.0.
// `ints` is the node's integer attribute (views, softmax); `enable_gqa` is sdpa's attribute.
Result<Shape> InferShape(OpKind k, const std::vector<Shape>& args,
                         const std::vector<int64_t>& ints = {}, bool enable_gqa = false);

// True for the view and layout ops (transpose, permute, reshape, expand, narrow, contiguous, slice,
// view).
bool IsView(OpKind k);
// True for mm, bmm, matmul, addmm, mv, dot, addmv, baddbmm, addbmm and linear.
bool IsMatmulFamily(OpKind k);
// True for the elementwise glue (add, mul or div by a scalar).
bool IsElementwise(OpKind k);
// True for the ops with a scalar operand "alpha" and no beta (mul, div and eq by a scalar,
// masked_fill's value, full's value).
bool HasScalar(OpKind k);
// True for the pointwise epilogues (relu, gelu, silu, sigmoid, tanh, clamp).
bool IsUnaryEpilogue(OpKind k);
// True for the ops whose result carries no gradient to their arguments (eq, full).
bool CutsGradient(OpKind k);
// True for the binary ops that broadcast and promote their two operands (add, mul, div).
bool IsBinaryPromoting(OpKind k);

}  // namespace mmdiff
