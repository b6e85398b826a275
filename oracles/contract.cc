// Contract rules for the matmul family, first version: dtype, device, dtype support and shape.
#include "oracles/contract.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>
#include <utility>

#include "mmdiff/build_info.h"
#include "src/ir/autocast.h"
#include "src/ir/op.h"
#include "src/ir/static_types.h"
#include "src/support/torch_version.h"

namespace mmdiff {

namespace {

const ContractRule kSameDevice{
    "same_device", "every op of the matmul family", "all tensor operands on the same device",
    "RuntimeError",
    "ATen TensorIterator / checkSameDevice: 'Expected all tensors to be on the same device'"};
const ContractRule kSameDType{
    "same_dtype",
    "mm, bmm, matmul (every rank), mv, dot, addmm/addmv/baddbmm/addbmm (bias included), linear",
    "all tensor operands have the same dtype, whatever the sizes (empty products too); no "
    "implicit promotion",
    "RuntimeError",
    "aten/src/ATen/native/LinearAlgebra.cpp: addmm_impl_cpu_ 'expected m1 and m2 to have the same "
    "dtype', 'self and mat2 must have the same dtype'; bmm_out_or_baddbmm_ 'expected scalar type'; "
    "dot 'expected both vectors to have same dtype'; addmv 'input tensors must have the same "
    "dtype'; "
    "baddbmm 'Input dtypes must be the same'. The bmm kernels (and before 2.12 the mv ones) "
    "dispatch on the first matrix's dtype first, so an unsupported one raises NotImplementedError "
    "before the comparison. Probed on every dtype "
    "combination on torch 2.11.0 (cpu, cuda) and 2.15.0 (cpu): oracles/probes/. Where eager "
    "does not check it: empty_bmm_dtype, linear_bias_dtype, addmv_bias_dtype."};
const ContractRule kSupportedDType{
    "supported_dtype", "the matmul family on cpu", "a floating or integer dtype (not bool)",
    "NotImplementedError",
    "AT_DISPATCH in addmm_impl_cpu_: '\"addmm_impl_cpu_\" not implemented for 'Bool''"};
const ContractRule kShape{
    "shape", "the matmul family; elementwise ops and masks; tril",
    "ranks and sizes as documented (mm 2-D, bmm 3-D with equal batch, mv 2-D by 1-D, dot 1-D, "
    "contracted dims equal, matmul batch dims broadcast, bias expandable to the product; "
    "elementwise operands and masks broadcast; tril at least 2-D)",
    "RuntimeError", "aten/src/ATen/native/LinearAlgebra.cpp shape checks; torch.matmul docs"};

const ContractRule kCudaIntegers{"cuda_integer_matmul", "the matmul family on cuda",
                                 "a floating dtype: cuBLAS paths have no integer kernels",
                                 "NotImplementedError",
                                 "aten/src/ATen/native/cuda/Blas.cpp dispatches over floating "
                                 "types: '\"addmm_cuda\" not implemented for 'Int''; mm with K = 0 "
                                 "returns before it. Probed on torch 2.11.0 on an H100 "
                                 "(oracles/probes/eager-cuda-2.11.0.json)"};
const ContractRule kDimRange{
    "dim_range", "transpose, permute, narrow",
    "dims within [-rank, rank); narrow's start within [-size, size]", "IndexError",
    "c10/core/WrapDimMinimal.h: 'Dimension out of range' raises c10::IndexError; "
    "aten/src/ATen/native/TensorShape.cpp narrow: TORCH_CHECK_INDEX 'start out of range' (seen on "
    "2.15.0)"};
const ContractRule kView{
    "view", "transpose, permute, reshape, expand, narrow",
    "permute lists every dim once; reshape keeps the element count; expand only grows size-1 dims; "
    "narrow stays inside the dim",
    "RuntimeError",
    "aten/src/ATen/native/TensorShape.cpp (permute, reshape/infer_size, expand, narrow checks)"};

const ContractRule kSdpaDType{
    "sdpa_dtype", "scaled_dot_product_attention",
    "q, k and v floating with one dtype (RuntimeError otherwise); the mask bool, float32 or q's "
    "dtype",
    "RuntimeError",
    "aten/src/ATen/native/transformers/sdp_utils_cpp.h check_for_seq_len / attention.cpp "
    "validate_sdpa_input: 'Expected query, key, and value to have the same dtype', 'Expected "
    "attn_mask "
    "dtype to be bool or float or to match query dtype'; integer q: 'expected scalar type Float "
    "but "
    "found Int'. Probed on torch 2.15.0 cpu and meta."};
// Where eager breaks a rule that a sibling op and the maintainers keep, the contract follows the
// rule (a violation's eager_deviation names the row): eager accepting is eager's finding, and the
// meta and compiled paths that raise follow the rule (docs/judging.md, "Where eager breaks the
// rule").
const ContractRule kEmptyBmm{
    "empty_bmm_dtype",
    "bmm, baddbmm, matmul reaching bmm (an operand of rank >= 3; also a >= 3-D first operand with "
    "a 2-D second, and linear of a >= 3-D input, where the first operand's strides keep it from "
    "being folded into one matrix), on cpu and cuda, when the product is empty (a batch, M, K or "
    "N of 0)",
    "same_dtype holds for empty products too. Eager breaks it there: bmm_out_or_baddbmm_ returns "
    "before its dtype check and the result takes the second matrix's dtype (baddbmm's bias is "
    "still compared with the first matrix)",
    "RuntimeError",
    "pytorch/pytorch#100274 (torch 2.1) made addmm_impl_cpu_ compare dtypes before its early "
    "return for empty inputs ('even if there were (e.g. alpha=0) we could error out'); "
    "pytorch/pytorch#100838, on baddbmm's result dtype: 'Type promotion should not be supported "
    "for matrix multiplication operations, and this combination should error out'. The siblings "
    "mm, addmm, addbmm with K = 0 and dot raise on the same empty operands, and so do torch's meta "
    "function for bmm (common_meta_baddbmm_bmm, from 2.12) and every torch.compile path. Probed "
    "on torch 2.11.0 (cpu, cuda) and 2.15.0 (cpu, meta, compile)",
    "with an empty operand"};
const ContractRule kLinearBias{
    "linear_bias_dtype",
    "linear with a bias, on cpu and cuda, when the input is not 2-D",
    "same_dtype holds for linear's bias whatever the input's rank. Eager breaks it where it adds "
    "the bias in place after a matmul (a 0-d bias; an input that is not contiguous): the sum is "
    "cast to the input's dtype",
    "RuntimeError",
    "aten/src/ATen/native/Linear.cpp: a 2-D input, and a contiguous one with a 1-D bias, go "
    "through addmm, whose addmm_impl_cpu_ raises 'self and mat2 must have the same dtype'; any "
    "other input is matmul then output.add_(bias). The torch.nn.functional.linear documentation "
    "gives one operation, y = xA^T + b, for an input of shape (*, in_features), * any number of "
    "dimensions including none. Probed on torch 2.15.0 cpu: float32 input with a float64 0-d "
    "bias returns float32 for a 1-D input and raises for a 2-D one",
    "of a non-2-D input"};
const ContractRule kAddmvBias{
    "addmv_bias_dtype",
    "addmv, on cpu and cuda, before torch 2.12, when its bias alone differs in dtype",
    "same_dtype holds for addmv's bias. Before 2.12 eager never compares it: the result takes the "
    "matrices' dtype (bfloat16 for a float32 bias), where torch's meta function and Inductor's "
    "decomposition promote to the bias's",
    "RuntimeError",
    "The sibling addmm raises 'self and mat2 must have the same dtype' on the same bias; torch "
    "2.12 made addmv's meta function compare all three dtypes ('addmv input tensors must have the "
    "same dtype'), and eager on cpu, eager on meta and torch.compile have raised since. Probed on "
    "torch 2.11.0 cpu (addmv(float32[3], bfloat16[3, 4], bfloat16[4]): eager bfloat16, eager on "
    "meta and inductor float32; every bias dtype accepted, also on cuda) and 2.15.0 cpu (all "
    "raise)",
    "with a bias of another dtype"};
const ContractRule kSdpaArgs{
    "sdpa_args", "scaled_dot_product_attention",
    "no explicit attn_mask together with is_causal=True", "RuntimeError",
    "attention.cpp: 'Explicit attn_mask should not be set when is_causal=True'"};
const ContractRule kSoftmaxDType{
    "softmax_dtype", "softmax",
    "a floating input dtype, or a floating dtype= argument; floating result", "NotImplementedError",
    "aten/src/ATen/native/SoftMax.cpp dispatch: '\"softmax_lastdim_kernel_impl\" not "
    "implemented for 'Int''. Probed on torch 2.15.0 cpu (meta accepts)."};
const ContractRule kDropoutDType{
    "dropout_dtype", "dropout with train and p > 0",
    "a floating input, unless it is empty (the kept elements are scaled by 1 / (1 - p) in float)",
    "RuntimeError",
    "aten/src/ATen/native/Dropout.cpp _dropout_impl multiplies by a float: 'result type Float "
    "can't be cast to the desired output type Int'. Probed on torch 2.15.0 cpu and meta for every "
    "integer dtype and bool; an empty input, p = 0 or train=False returns the input"};
const ContractRule kEpilogueDType{
    "epilogue_dtype", "relu, gelu, silu",
    "gelu and silu take a floating input, relu any but bool (sigmoid and tanh compute an integer "
    "or bool input in float32; clamp of bool by integer bounds is int64)",
    "NotImplementedError",
    "the cpu kernels' dispatch: '\"GeluKernelImpl\" not implemented for 'Int'', '\"silu_cpu\" not "
    "implemented for 'Bool'', 'Boolean inputs not supported for relu', also for an empty input. "
    "Probed on torch 2.15.0 cpu for every dtype (meta accepts them all)"};
const ContractRule kMetaCopy{
    "meta_copy_out", "to_device",
    "a meta tensor cannot move to a device with data (nor, in a "
    "training program, can the gradient of a value moved to meta move back in backward)",
    "NotImplementedError",
    "aten/src/ATen/native/Copy.cpp: 'Cannot copy out of meta tensor; no data!'"};
const ContractRule kIntScalarEmpty{
    "int_scalar_empty_k", "addmm, baddbmm, addbmm on integer dtypes",
    "with K = 0 (addbmm: or no batches) a float beta other than 0 is rejected: the result is beta "
    "* bias "
    "computed in float",
    "RuntimeError",
    "Blas.cpp addmm_impl_cpu_ / baddbmm fast path for empty products: 'result type Float can't be "
    "cast "
    "to the desired output type Int'. Probed on torch 2.15.0 cpu (meta and addmv accept) and "
    "2.11.0 cuda (addmm accepts: it scales the bias in the bias's dtype)."};
const ContractRule kScalarRange{"scalar_range", "the addmm family on integer dtypes",
                                "alpha and beta (Python floats) lie in the integer dtype's range "
                                "(uint8: no negative value, -0.5 "
                                "included); they are then truncated toward zero",
                                "RuntimeError",
                                "c10/core/Scalar.h checked conversion: 'value cannot be converted "
                                "to type uint8_t without overflow'. "
                                "Probed on torch 2.15.0 cpu (meta does not check)."};

const ContractRule kMaskDType{
    "mask_dtype", "masked_fill's mask, where's condition",
    "masked_fill: a bool mask; where: a bool condition (or uint8, which cpu still accepts with a "
    "deprecation warning)",
    "RuntimeError",
    "aten/src/ATen/native/TensorAdvancedIndexing.cpp masked_fill_impl_cpu: 'masked_fill_ only "
    "supports boolean masks, but got mask with dtype float'; TensorCompare.cpp where: 'where "
    "expected condition to be a boolean tensor, but got a tensor with dtype Float'. Probed on "
    "torch "
    "2.15.0 cpu, empty tensors too (meta rejects a uint8 condition as well)"};
const ContractRule kFillValue{
    "fill_value", "masked_fill; full to float32 or an integer dtype (cpu and cuda)",
    "the Python float fits the result's dtype: integers from their lowest value to below their "
    "largest + 1 (then truncated), floating dtypes up to their largest finite magnitude (an "
    "infinity fits); full converts through float, so only float32 can overflow",
    "RuntimeError",
    "c10/util/TypeCast.h checked_convert: 'value cannot be converted to type c10::Half without "
    "overflow'. Probed on torch 2.15.0 cpu at each dtype's edges (int8 127.99 fits, 128 and "
    "-128.01 do not; float16 65505 does not), empty tensors too; meta does not check"};

const ContractRule kGradDType{
    "grad_dtype", "inputs with requires_grad",
    "only floating inputs require gradients (integer and bool ones cannot)", "RuntimeError",
    "torch/csrc/autograd/variable.h AutogradMeta::set_requires_grad: 'Only Tensors of floating "
    "point and complex dtype can require gradients' (raised where the input is marked, before any "
    "op runs; checked on torch 2.15.0 cpu and meta)"};

const ContractRule kAutocastPromote{
    "autocast_promote", "dot under a cuda autocast region",
    "the floating arguments autocast promotes are the region's dtype or float32 (a float16 and a "
    "bfloat16 argument cannot be promoted)",
    "RuntimeError",
    "aten/src/ATen/autocast_mode.h at::autocast::prioritize (CastPolicy::promote, "
    "AT_FORALL_PROMOTE "
    "lists dot): 'Unexpected floating ScalarType in at::autocast::prioritize' (torch 2.15.0 "
    "header; "
    "cuda only, not probed here: no GPU)"};

ContractViolation Violation(const Node& n, const ContractRule& rule, std::string message) {
  return {n.name, rule.id, rule.error_class, std::move(message), rule.source};
}

}  // namespace

const std::vector<ContractRule>& ContractRules() {
  static const std::vector<ContractRule> kRules = {
      kSameDevice,      kSameDType, kSupportedDType, kShape,        kDimRange,     kView,
      kSdpaDType,       kSdpaArgs,  kSoftmaxDType,   kDropoutDType, kMetaCopy,     kIntScalarEmpty,
      kScalarRange,     kEmptyBmm,  kLinearBias,     kAddmvBias,    kCudaIntegers, kGradDType,
      kAutocastPromote, kMaskDType, kFillValue,      kEpilogueDType};
  return kRules;
}

const ContractRule* FindContractRule(std::string_view id) {
  for (const auto& r : ContractRules())
    if (r.id == id) return &r;
  return nullptr;
}

namespace {

// Whether eager's kernel has no instantiation for the dtype: bool on cpu; on cuda every
// non-floating dtype (cuBLAS has no integer kernels).
bool Unsupported(DType d, Device device) {
  return device == Device::kCuda ? !IsFloating(d) : d == DType::kBool;
}

// The function a matmul-family op reaches in eager: "bmm", "mv", "dot" or "mm" (mm, addmm,
// addbmm, linear; matmul by its operands' ranks).
std::string Reaches(const Node& n, const std::vector<ValueType>& args) {
  switch (n.op) {
    case OpKind::kBmm:
    case OpKind::kBaddbmm:
      return "bmm";
    case OpKind::kMv:
    case OpKind::kAddmv:
      return "mv";
    case OpKind::kDot:
      return "dot";
    case OpKind::kMatmul:
      return MatmulReaches(args[0].shape, args[1].shape);
    default:
      return "mm";
  }
}

// The row naming eager's deviation where a node breaks same_dtype and eager on cpu or cuda does not
// check it (eager on meta runs torch's meta functions, which do): an empty bmm-path product whose
// matrices differ (kEmptyBmm), a linear whose bias alone differs and whose input is not 2-D
// (kLinearBias), an addmv before 2.12 whose bias alone differs (kAddmvBias); else nullptr. `shape`:
// the node's, inferred. The contract sees shapes, not strides: a >= 3-D first operand with a 2-D
// second folds into mm when contiguous (mm checks dtypes of empty operands) and reaches bmm when
// its strides forbid the fold (should_fold: a transposed or permuted operand; seen on 2.15.0,
// linear of a transposed float32[2, 2, 2] with a float64[0, 2] weight returns float64[2, 2, 0]), so
// the row is named there too: it names what eager breaks only where eager accepts.
const ContractRule* EagerDeviation(const Node& n, const std::vector<ValueType>& args,
                                   const Result<Shape>& shape, TorchRelease torch) {
  if (args.size() < 2 || args[0].device == Device::kMeta || !IsMatmulFamily(n.op)) return nullptr;
  if (n.op == OpKind::kAddmv && torch < TorchRelease{2, 12} && args.size() == 3 &&
      args[1].dtype == args[2].dtype && args[0].dtype != args[1].dtype)
    return &kAddmvBias;
  if (n.op == OpKind::kLinear) {
    bool bias_differs =
        args.size() == 3 && args[0].dtype == args[1].dtype && args[2].dtype != args[0].dtype;
    if (bias_differs && args[0].shape.size() != 2) return &kLinearBias;
  }
  const bool strided_fold = (n.op == OpKind::kMatmul || n.op == OpKind::kLinear) &&
                            args[0].shape.size() >= 3 && args[1].shape.size() == 2;
  if (Reaches(n, args) != "bmm" && !strided_fold) return nullptr;
  size_t first = n.op == OpKind::kBaddbmm ? 1 : 0;
  const ValueType &a = args[first], &b = args[first + 1];
  if (first == 1 && args[0].dtype != a.dtype) return nullptr;  // baddbmm compares its bias first
  bool empty =
      shape.ok() && (Numel(a.shape) == 0 || Numel(b.shape) == 0 || Numel(shape.value()) == 0);
  return empty && a.dtype != b.dtype ? &kEmptyBmm : nullptr;
}

// The dtype rules of the matmul family (not attention), in the order eager applies them; on
// success `out.dtype` may be corrected; `shape` is the node's, inferred. Probed on every dtype
// combination (oracles/probes/, checked by contract_probe_test.cc): torch 2.11.0 cpu and
// cuda, 2.15.0 cpu.
std::optional<std::pair<const ContractRule*, std::string>> MatmulDTypes(
    const Node& n, const std::vector<ValueType>& args, const Result<Shape>& shape,
    TorchRelease torch, ValueType& out) {
  auto mismatch = [&](size_t a, size_t b) {
    return std::make_optional(
        std::make_pair(&kSameDType, "operands of dtype " + std::string(DTypeName(args[a].dtype)) +
                                        " and " + std::string(DTypeName(args[b].dtype))));
  };
  Device device = args[0].device;
  const ContractRule& unsupported = device == Device::kCuda ? kCudaIntegers : kSupportedDType;
  auto unsupported_dtype = [&](DType d) {
    return std::make_optional(std::make_pair(
        &unsupported, device == Device::kCuda
                          ? "\"addmm_cuda\" not implemented for " + std::string(DTypeName(d))
                          : "not implemented for " + std::string(DTypeName(d))));
  };
  std::string reach = Reaches(n, args);
  size_t first = n.op == OpKind::kAddmv || n.op == OpKind::kBaddbmm ? 1 : 0;  // the first matrix
  // An empty product (no result element, or K = 0) returns before the kernel's dispatch, so an
  // unsupported dtype passes (dot excepted); the addmm family's empty sums then meet the
  // int_scalar_empty rule. Seen on torch 2.11.0 and 2.15.0 cpu (bool), 2.11.0 cuda (mm, K = 0).
  bool bias_first = n.op == OpKind::kAddmm || n.op == OpKind::kAddmv || n.op == OpKind::kBaddbmm ||
                    n.op == OpKind::kAddbmm;
  const Shape& matrix = args[bias_first ? 1 : 0].shape;
  bool empty = reach != "dot" && shape.ok() &&
               (Numel(shape.value()) == 0 || (!matrix.empty() && matrix.back() == 0));
  // addbmm over no batch is beta * bias: the matrices' dtypes are never looked at.
  if (n.op == OpKind::kAddbmm && !matrix.empty() && matrix[0] == 0) {
    out.dtype = args[0].dtype;
    return std::nullopt;
  }
  // The bmm kernels, and the mv ones before 2.12 (when addmv's meta function began to compare
  // all three dtypes), dispatch on the first matrix's dtype before comparing dtypes. addmv before
  // 2.12 never compares its bias's, which the rule does (kAddmvBias: eager's deviation).
  if (reach == "bmm" || (reach == "mv" && torch < TorchRelease{2, 12})) {
    if (n.op == OpKind::kBaddbmm && args[0].dtype != args[1].dtype) return mismatch(0, 1);
    if (Unsupported(args[first].dtype, device) && !empty)
      return unsupported_dtype(args[first].dtype);
    for (size_t i = first + 1; i < args.size(); ++i)
      if (args[i].dtype != args[first].dtype) return mismatch(first, i);
    if (n.op == OpKind::kAddmv && args[0].dtype != args[first].dtype) return mismatch(0, first);
    out.dtype = args[first].dtype;
    return std::nullopt;
  }
  for (size_t i = 1; i < args.size(); ++i)
    if (args[i].dtype != args[0].dtype) return mismatch(0, i);
  if (Unsupported(args[0].dtype, device) && !empty) return unsupported_dtype(args[0].dtype);
  return std::nullopt;
}

// Whether a Python float converts to dtype d without torch's overflow error (kFillValue's rule;
// the addmm family's alpha and beta are checked the same way).
bool FitsDType(double v, DType d) {
  if (d == DType::kBool) return true;
  if (IsFloating(d)) return !std::isfinite(v) || std::fabs(v) <= MaxFinite(d);
  const double lowest = d == DType::kUInt8 ? 0 : -MaxFinite(d) - 1;
  return std::isfinite(v) && v >= lowest && v < MaxFinite(d) + 1;
}

// The rule a node breaks, if any, given its argument types; on success `out` is its result type.
std::optional<ContractViolation> Check(const Node& n, const std::vector<ValueType>& args,
                                       TorchRelease torch, ValueType& out) {
  std::string op_name(GetOpSpec(n.op).name);
  auto fail = [&](const ContractRule& rule, std::string message) {
    return std::optional<ContractViolation>(
        Violation(n, rule, op_name + ": " + std::move(message)));
  };
  std::vector<DType> dtypes;
  std::vector<bool> zero_dim;
  for (const auto& a : args) {
    dtypes.push_back(a.dtype);
    zero_dim.push_back(a.shape.empty());
  }
  out = args[0];
  out.dtype = ResultDType(n, dtypes, zero_dim).value_or(args[0].dtype);
  if (n.op == OpKind::kCast) return std::nullopt;
  if (n.op == OpKind::kToDevice) {
    if (args[0].device == Device::kMeta && *n.device != Device::kMeta)
      return fail(kMetaCopy, "Cannot copy out of meta tensor; no data!");
    out.device = *n.device;
    return std::nullopt;
  }
  // q, k and v (not the mask) of attention; every operand of the other ops.
  size_t same = n.op == OpKind::kSdpa ? 3 : args.size();
  for (size_t i = 0; i < args.size(); ++i)
    if (args[i].device != args[0].device)
      return fail(kSameDevice, "operands on " + std::string(DeviceName(args[0].device)) + " and " +
                                   std::string(DeviceName(args[i].device)));
  // The shape rules come after the dtype rules (eager's order); the dtype rules read the shape.
  std::vector<Shape> shapes;
  for (const auto& a : args) shapes.push_back(a.shape);
  auto shape = InferShape(n.op, shapes, n.ints, n.enable_gqa);
  bool matmul_family = IsMatmulFamily(n.op) || n.op == OpKind::kSdpa;
  if (n.op == OpKind::kSdpa) {
    for (size_t i = 1; i < same; ++i)
      if (args[i].dtype != args[0].dtype)
        return fail(kSdpaDType, "operands of dtype " + std::string(DTypeName(args[0].dtype)) +
                                    " and " + std::string(DTypeName(args[i].dtype)));
    if (!IsFloating(args[0].dtype))
      return fail(kSdpaDType,
                  "expected a floating dtype, got " + std::string(DTypeName(args[0].dtype)));
    if (args.size() == 4) {
      DType m = args[3].dtype;
      if (m != DType::kBool && m != DType::kFloat32 && m != args[0].dtype)
        return fail(kSdpaDType, "attn_mask dtype " + std::string(DTypeName(m)) +
                                    " with query dtype " + std::string(DTypeName(args[0].dtype)));
      if (n.is_causal)
        return fail(kSdpaArgs, "Explicit attn_mask should not be set when is_causal=True");
    }
  } else if (n.op == OpKind::kSoftmax) {
    if (!IsFloating(out.dtype))
      return fail(kSoftmaxDType, "not implemented for " + std::string(DTypeName(out.dtype)));
  } else if (n.op == OpKind::kMaskedFill || n.op == OpKind::kWhere) {
    const DType m = args[n.op == OpKind::kWhere ? 0 : 1].dtype;
    if (m != DType::kBool && !(n.op == OpKind::kWhere && m == DType::kUInt8))
      return fail(kMaskDType, n.op == OpKind::kWhere
                                  ? "expected condition to be a boolean tensor, but got a tensor "
                                    "with dtype " +
                                        std::string(DTypeName(m))
                                  : "only supports boolean masks, but got mask with dtype " +
                                        std::string(DTypeName(m)));
    if (n.op == OpKind::kMaskedFill && args[0].device != Device::kMeta &&
        !FitsDType(n.alpha, out.dtype))
      return fail(kFillValue, "value cannot be converted to type " +
                                  std::string(DTypeName(out.dtype)) + " without overflow");
  } else if (n.op == OpKind::kFull) {  // 16-bit dtypes convert through float: they round to inf
    const bool checked = out.dtype == DType::kFloat32 || !IsFloating(out.dtype);
    if (args[0].device != Device::kMeta && checked && !FitsDType(n.alpha, out.dtype))
      return fail(kFillValue, "value cannot be converted to type " +
                                  std::string(DTypeName(out.dtype)) + " without overflow");
  } else if (n.op == OpKind::kGelu || n.op == OpKind::kSilu || n.op == OpKind::kRelu) {
    const DType x = args[0].dtype;
    if (n.op == OpKind::kRelu ? x == DType::kBool : !IsFloating(x))
      return fail(kEpilogueDType, std::string(GetOpSpec(n.op).name) + " not implemented for " +
                                      std::string(DTypeName(x)));
  } else if (n.op == OpKind::kDropout) {
    if (n.train && n.dropout_p > 0 && !IsFloating(out.dtype) && Numel(args[0].shape) > 0)
      return fail(kDropoutDType, "result type Float can't be cast to the desired output type " +
                                     std::string(DTypeName(out.dtype)));
  } else if (matmul_family) {
    if (auto v = MatmulDTypes(n, args, shape, torch, out)) {
      auto violation = fail(*v->first, v->second);
      if (const ContractRule* d =
              v->first == &kSameDType ? EagerDeviation(n, args, shape, torch) : nullptr)
        violation->eager_deviation = d->id;
      return violation;
    }
  }
  if (!shape.ok()) {
    bool dim = shape.error().rfind("Dimension out of range", 0) == 0 ||
               shape.error().rfind("start out of range", 0) == 0;
    return fail(dim ? kDimRange : IsView(n.op) ? kView : kShape, shape.error());
  }
  out.shape = shape.value();
  // The scalars meet the result's dtype.
  if (GetOpSpec(n.op).has_alpha_beta && !IsFloating(out.dtype)) {
    DType d = out.dtype;
    for (double s : {n.alpha, n.beta}) {
      // The float itself is range-checked (so -0.5 does not fit uint8), then truncated.
      if (!FitsDType(s, d))
        return fail(kScalarRange, "alpha/beta " + std::to_string(s) + " does not fit " +
                                      std::string(DTypeName(d)));
    }
    bool empty_product = n.op == OpKind::kAddbmm ? (shapes[1][0] == 0 || shapes[1][2] == 0)
                                                 : n.op != OpKind::kAddmv && shapes[1].back() == 0;
    // addmm_cuda scales the bias in its own dtype (probed on torch 2.11.0 cuda: addmm of int8
    // with K = 0 returns int8; baddbmm and addbmm there raise as on cpu).
    const bool scales_in_dtype = n.op == OpKind::kAddmm && args[0].device == Device::kCuda;
    if (empty_product && n.beta != 0 && !scales_in_dtype)
      return fail(kIntScalarEmpty, "result type Float can't be cast to the desired output type " +
                                       std::string(DTypeName(d)));
  }
  return std::nullopt;
}

}  // namespace

TorchRelease ParseTorchRelease(std::string_view version) {
  auto v = ParseTorchVersion(version);
  if (!v.ok() || v.value().major == 0) return TorchRelease{};
  return TorchRelease{v.value().major, v.value().minor};
}

TorchRelease BuildTorchRelease() {
  static const TorchRelease kBuild = ParseTorchRelease(build_info::kTorchVersion);
  return kBuild;
}

Expectation Expect(const Program& p) { return Expect(p, BuildTorchRelease()); }

Expectation Expect(const Program& p, TorchRelease torch) {
  Expectation e;
  for (const auto& in : p.inputs) {
    if (in.requires_grad && !IsFloating(in.dtype)) {
      e.rejects = true;
      e.violation = {in.name, kGradDType.id, kGradDType.error_class,
                     "input " + in.name + ": a " + std::string(DTypeName(in.dtype)) +
                         " tensor cannot require gradients",
                     kGradDType.source};
      return e;
    }
    e.types[in.name] = {in.shape, in.dtype, in.device};
  }
  // Under autocast, eager runs the program with autocast's casts made explicit (src/ir/autocast.h):
  // the rules below judge the ops in the dtypes they run in.
  AutocastLowering lowered;
  const bool autocast = UsesAutocast(p);
  if (autocast) lowered = LowerAutocast(p);
  const Program& q = autocast ? lowered.program : p;
  for (const auto& n : q.nodes) {
    std::vector<ValueType> args;
    for (const auto& a : n.args) args.push_back(e.types.at(a));
    ValueType out;
    if (auto v = Check(n, args, torch, out)) {
      e.rejects = true;
      e.violation = *v;
      return e;
    }
    e.types[n.name] = out;
  }
  if (!lowered.error_node.empty()) {
    e.rejects = true;
    e.violation =
        Violation(*p.FindNode(lowered.error_node), kAutocastPromote, "dot: " + lowered.error);
    return e;
  }
  // The backward of a move to meta copies the gradient out of meta, which has no data: a value
  // that requires grad (a requires_grad input, or a floating value computed from one) moved from
  // cpu or cuda to meta makes the backward raise (seen on 2.15.0: eager, inductor and TorchScript
  // all raise NotImplementedError "Cannot copy out of meta tensor; no data!" in backward).
  if (Trains(p)) {
    const std::set<std::string> tracked = GradTrackedValues(q, e.types);
    for (const auto& n : q.nodes) {
      if (!tracked.count(n.name)) continue;
      const Device src = e.types.at(n.args[0]).device;
      if (n.op == OpKind::kToDevice && *n.device == Device::kMeta && src != Device::kMeta) {
        e.rejects = true;
        e.violation = Violation(n, kMetaCopy,
                                "backward: the gradient of a value moved from " +
                                    std::string(DeviceName(src)) +
                                    " to meta cannot be copied back out of meta");
        e.violation.backward = true;
        return e;
      }
    }
  }
  for (const auto& o : p.outputs) e.outputs.push_back(e.types.at(o));
  // A gradient has its input's dtype, shape and device.
  for (size_t g : GradientInputs(p)) e.outputs.push_back(e.types.at(p.inputs[g].name));
  for (size_t i = 0; i < e.outputs.size(); ++i) e.result_names.push_back(ResultName(p, i));
  e.first_gradient = p.outputs.size();
  return e;
}

std::set<std::string> GradTrackedValues(const Program& p,
                                        const std::map<std::string, ValueType>& types) {
  std::set<std::string> tracked;
  for (const auto& in : p.inputs)
    if (in.requires_grad) tracked.insert(in.name);
  for (const auto& n : p.nodes) {
    bool from = std::any_of(n.args.begin(), n.args.end(),
                            [&](const std::string& a) { return tracked.count(a) > 0; });
    if (from && IsFloating(types.at(n.name).dtype) && !CutsGradient(n.op)) tracked.insert(n.name);
  }
  return tracked;
}

}  // namespace mmdiff
