// Autocast regions: which ops torch.autocast changes, and the program with its casts made explicit.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "src/ir/program.h"

namespace mmdiff {

// What autocast does to an op (torch's CastPolicy, aten/src/ATen/autocast_mode.h).
enum class AutocastPolicy {
  kNone,             // not in the device's lists: runs as written
  kLowerPrecision,   // lower_precision_fp: eligible arguments cast to the region's dtype
  kFloat32OptDtype,  // fp32_set_opt_dtype: dtype=float32 unless given (first argument eligible)
  kPromote,          // promote: eligible arguments cast to the widest among them
};

// The policy of `op` when its tensors are on `device` (a region's device type), as torch 2.15.0
// registers them (aten/src/ATen/autocast_mode.cpp, TORCH_LIBRARY_IMPL(aten, Autocast*, m)):
//  - cuda (AT_FORALL_LOWER_PRECISION_FP, AT_FORALL_FP32_SET_OPT_DTYPE, AT_FORALL_PROMOTE in
//    autocast_mode.h): mm, mv, addmm, addmv, matmul, linear, bmm, baddbmm, addbmm and
//    scaled_dot_product_attention in lower precision; softmax fp32_set_opt_dtype; dot promote.
//  - cpu (KERNEL_CPU(..., lower_precision_fp)): mm, bmm, matmul, addmm, baddbmm, addbmm, linear and
//    scaled_dot_product_attention; mv, addmv, dot and softmax are not on the CPU lists (checked on
//    2.15.0: under torch.autocast("cpu") they keep their dtypes).
//  - meta has no autocast dispatch key: nothing changes.
// Casts, device moves, views, add and mul fall through on both.
AutocastPolicy AutocastPolicyOf(OpKind op, Device device);

// The dtype autocast gives ops on `device` at node `n`: the innermost region around n whose device
// type is `device`, when enabled; nullopt outside any (or in a disabled one).
std::optional<DType> AutocastDType(const Program& p, const Node& n, Device device);

// The regions from the outermost to `region`, for emitting nested `with` blocks.
std::vector<size_t> RegionPath(const Program& p, std::optional<size_t> region);

// True when some node runs inside an enabled region (autocast can change what it does).
bool UsesAutocast(const Program& p);

// The program with autocast made explicit, as eager runs it: before each op that autocast changes,
// a cast node per argument it casts (cached_cast: floating, not float64, on the op's device, not
// already in the target dtype), named "<node>_ac<i>"; softmax's dtype set where fp32_set_opt_dtype
// sets it; regions removed. The op's device is its first argument's. A value's gradient flows back
// through the inserted casts, as through autocast's. `error_node` is set where autocast itself
// raises (promote over float16 and bfloat16 arguments: "Unexpected floating ScalarType in
// at::autocast::prioritize"); the program up to there is lowered.
struct AutocastLowering {
  Program program;
  std::string error_node;
  std::string error;
};
AutocastLowering LowerAutocast(const Program& p);

}  // namespace mmdiff
