// How the reference engine names mmdiff's dtypes, and the arithmetic eager uses in each.
#pragma once

#include "kernels/pointwise_ops.h"
#include "kernels/reference_ops.h"
#include "src/ir/dtype.h"
#include "src/ir/program.h"

namespace mmdiff {

inline mmref::Format ToFormat(DType d) {
  switch (d) {
    case DType::kFloat64:
      return mmref::Format::kF64;
    case DType::kFloat32:
      return mmref::Format::kF32;
    case DType::kFloat16:
      return mmref::Format::kF16;
    case DType::kBFloat16:
      return mmref::Format::kBF16;
    case DType::kInt8:
      return mmref::Format::kI8;
    case DType::kUInt8:
      return mmref::Format::kU8;
    case DType::kInt32:
      return mmref::Format::kI32;
    case DType::kInt64:
      return mmref::Format::kI64;
    case DType::kBool:
      return mmref::Format::kBool;
  }
  return mmref::Format::kF64;
}

// The format a value is computed in: its own, or float64 for a floating one in the reference's
// float64 evaluation (the program's math without its float32/float16/bfloat16 roundings: the fp64
// run of PyTorch's accuracy rule, oracles/accuracy.h).
inline mmref::Format ComputedIn(mmref::Format f, bool float64) {
  return float64 && !mmref::IsInteger(f) ? mmref::Format::kF64 : f;
}

// How eager computes in dtype d: float64 in float64, narrower floats accumulate in float32,
// integers in their own (wrapping) type.
inline mmref::Arith ArithFor(mmref::Format out) {
  if (mmref::IsInteger(out)) return {out, out};
  return {out, out == mmref::Format::kF64 ? mmref::Format::kF64 : mmref::Format::kF32};
}

// The reference's function for a pointwise epilogue node (IsUnaryEpilogue).
inline mmref::Pointwise PointwiseOf(const Node& n) {
  switch (n.op) {
    case OpKind::kRelu:
      return mmref::Pointwise::kRelu;
    case OpKind::kGelu:
      return n.gelu_tanh ? mmref::Pointwise::kGeluTanh : mmref::Pointwise::kGelu;
    case OpKind::kSilu:
      return mmref::Pointwise::kSilu;
    case OpKind::kSigmoid:
      return mmref::Pointwise::kSigmoid;
    case OpKind::kTanh:
      return mmref::Pointwise::kTanh;
    default:
      return mmref::Pointwise::kClamp;
  }
}

}  // namespace mmdiff
