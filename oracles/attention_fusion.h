// Inductor's attention fusions as root causes: which fusions a compiled result came from, and the
// two behaviours of sdpa, which the fusions call, that are by design.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "oracles/contract.h"
#include "oracles/verdict.h"
#include "src/ir/outcome.h"
#include "src/ir/program.h"

namespace mmdiff {

// The behaviour of a value finding of attention fusions where every element out of bound is one
// whose exact result is undefined (NaN in the reference: a row of scores with no finite value, all
// masked or holding NaN) and the fused path returns a number: the fusion hands the row to sdpa,
// whose kernels zero such rows (its safe softmax; on CPU since torch 2.5, pytorch#141128). One
// root cause per path whatever the op and pattern: "value|path=<path>|by_design=sdpa_safe_softmax".
inline constexpr char kSdpaSafeSoftmax[] = "by_design=sdpa_safe_softmax";
// The behaviour of any other value finding of attention fusions that PyTorch's accuracy rule,
// measured against the float64 run (oracles/accuracy.h), calls precision-only: the fusion hands
// the chain to sdpa, whose kernels keep scores and probabilities in float32 where the program
// rounds them to 16 bits, forward and backward; the result is as close to the exact one as
// eager's. One root cause per path whatever the op and pattern:
// "value|path=<path>|by_design=sdpa_float32" (seen on torch 2.15.0: float16 _sfdp_pattern_1 and
// bfloat16 _sfdp_pattern_11 gradients).
inline constexpr char kSdpaFloat32[] = "by_design=sdpa_float32";

// The fuse_attention pattern a rewrite name belongs to ("_sfdp_pattern_5_half_inference" ->
// "_sfdp_pattern_5"); "" for a rewrite that is not an attention fusion.
std::string AttentionFusionPattern(const std::string& rewrite);
// True for a non-empty RootCauseFacts::fused: patterns, each a whole AttentionFusionPattern name,
// joined by ','.
bool AttentionFusionPatterns(const std::string& fused);
struct FusionFacts {
  std::string fused;      // RootCauseFacts::fused: the patterns, sorted, joined by ','
  std::string behaviour;  // kSdpaSafeSoftmax, kSdpaFloat32 or ""
};
// The dim of the program's first softmax over another dim than the last (what a fusion of the
// scores assumes it is over; pytorch#196468: on torch 2.11.0 the fusions took such a softmax and
// returned the last dim's result), or nullopt where every softmax is over the last dim.
std::optional<int64_t> SoftmaxOverOtherDim(const Program& p, const Expectation& contract);

// The attention fusions whose result `at_fault`, a compiled path, returned for its result
// divergence `d` (values, dtype, shape): the patterns its compile ran (its rewrites), and, for a
// value divergence, the by-design behaviour it is, if any.
FusionFacts FusedAttention(const PathResult& at_fault, const Divergence& d);

}  // namespace mmdiff
