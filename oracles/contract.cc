// Contract rules for the matmul family, first version: dtype, device, dtype support and shape.
#include "oracles/contract.h"

#include "src/ir/op.h"

namespace mmdiff {

namespace {

const ContractRule kSameDevice{
    "same_device", "every op of the matmul family", "all tensor operands on the same device", "RuntimeError",
    "ATen TensorIterator / checkSameDevice: 'Expected all tensors to be on the same device'"};
const ContractRule kSameDType{
    "same_dtype", "mm, bmm, matmul (every rank), mv, dot, addmm/addmv/baddbmm/addbmm (bias included), linear",
    "all tensor operands have the same dtype; no implicit promotion", "RuntimeError",
    "aten/src/ATen/native/LinearAlgebra.cpp: addmm_impl_cpu_ 'expected m1 and m2 to have the same "
    "dtype', 'self and mat2 must have the same dtype'; bmm_out_or_baddbmm_ 'expected scalar type'; "
    "dot 'expected both vectors to have same dtype'; addmv 'input tensors must have the same dtype'; "
    "baddbmm 'Input dtypes must be the same'. "
    "Observed on torch 2.11.0 and 2.15.0 CPU."};
const ContractRule kSupportedDType{
    "supported_dtype", "the matmul family on cpu", "a floating or integer dtype (not bool)",
    "NotImplementedError", "AT_DISPATCH in addmm_impl_cpu_: '\"addmm_impl_cpu_\" not implemented for 'Bool''"};
const ContractRule kShape{
    "shape", "the matmul family",
    "ranks and sizes as documented (mm 2-D, bmm 3-D with equal batch, mv 2-D by 1-D, dot 1-D, "
    "contracted dims equal, matmul batch dims broadcast, bias expandable to the product)",
    "RuntimeError", "aten/src/ATen/native/LinearAlgebra.cpp shape checks; torch.matmul docs"};

const ContractRule kDimRange{
    "dim_range", "transpose, permute, narrow", "dims within [-rank, rank)", "IndexError",
    "c10/core/WrapDimMinimal.h: 'Dimension out of range' raises c10::IndexError"};
const ContractRule kView{
    "view", "transpose, permute, reshape, expand, narrow",
    "permute lists every dim once; reshape keeps the element count; expand only grows size-1 dims; "
    "narrow stays inside the dim",
    "RuntimeError",
    "aten/src/ATen/native/TensorShape.cpp (permute, reshape/infer_size, expand, narrow checks)"};

ContractViolation Violation(const Node& n, const ContractRule& rule, std::string message) {
  return {n.name, rule.id, rule.error_class, std::move(message), rule.source};
}

}  // namespace

const std::vector<ContractRule>& ContractRules() {
  static const std::vector<ContractRule> kRules = {kSameDevice, kSameDType, kSupportedDType, kShape, kDimRange, kView};
  return kRules;
}

Expectation Expect(const Program& p) {
  Expectation e;
  for (const auto& in : p.inputs) e.types[in.name] = {in.shape, in.dtype, in.device};
  for (const auto& n : p.nodes) {
    std::vector<ValueType> args;
    for (const auto& a : n.args) args.push_back(e.types.at(a));
    if (n.op == OpKind::kCast) {
      e.types[n.name] = {args[0].shape, *n.dtype, args[0].device};
      continue;
    }
    std::string op_name(GetOpSpec(n.op).name);
    for (const auto& a : args) {
      if (a.device != args[0].device) {
        e.rejects = true;
        e.violation = Violation(n, kSameDevice, op_name + ": operands on " + std::string(DeviceName(args[0].device)) +
                                                    " and " + std::string(DeviceName(a.device)));
        return e;
      }
    }
    for (const auto& a : args) {
      if (a.dtype != args[0].dtype && n.op != OpKind::kAdd) {
        e.rejects = true;
        e.violation = Violation(n, kSameDType, op_name + ": operands of dtype " +
                                                   std::string(DTypeName(args[0].dtype)) + " and " +
                                                   std::string(DTypeName(a.dtype)));
        return e;
      }
    }
    if (n.op == OpKind::kMulScalar) {
      e.types[n.name] = args[0];
      continue;
    }
    if (n.op == OpKind::kAdd) {  // broadcasting with type promotion (no same-dtype rule)
      auto shape = BroadcastShapes(args[0].shape, args[1].shape);
      auto dtype = PromoteTypes(args[0].dtype, args[1].dtype);
      if (!shape.ok()) {
        e.rejects = true;
        e.violation = Violation(n, kShape, op_name + ": " + shape.error());
        return e;
      }
      e.types[n.name] = {shape.value(), dtype.value_or(args[0].dtype), args[0].device};
      continue;
    }
    if (IsView(n.op)) {
      auto shape = InferShape(n.op, {args[0].shape}, n.ints);
      if (!shape.ok()) {
        bool dim = shape.error().rfind("Dimension out of range", 0) == 0;
        e.rejects = true;
        e.violation = Violation(n, dim ? kDimRange : kView, op_name + ": " + shape.error());
        return e;
      }
      e.types[n.name] = {shape.value(), args[0].dtype, args[0].device};
      continue;
    }
    if (args[0].dtype == DType::kBool) {
      e.rejects = true;
      e.violation = Violation(n, kSupportedDType, op_name + " is not implemented for bool");
      return e;
    }
    std::vector<Shape> shapes;
    for (const auto& a : args) shapes.push_back(a.shape);
    auto shape = InferShape(n.op, shapes, n.ints);
    if (!shape.ok()) {
      e.rejects = true;
      e.violation = Violation(n, kShape, op_name + ": " + shape.error());
      return e;
    }
    e.types[n.name] = {shape.value(), args[0].dtype, args[0].device};
  }
  for (const auto& o : p.outputs) e.outputs.push_back(e.types.at(o));
  return e;
}

}  // namespace mmdiff
