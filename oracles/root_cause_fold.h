// Root causes folded past their op: where one documented behaviour shows in many ops, dtypes,
// autocast regions and gradients, it is one root cause per path, whose line gives the count and the
// ops seen (seen on torch 2.15.0: a 30-minute campaign had 11 new lines of Inductor float16 and
// bfloat16 values beyond the rounding bound, mm, bmm, mv, dot, add, addmv, linear, sdpa and a
// gradient, each removed by torch._inductor.config.emulate_precision_casts = True).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "oracles/case_run.h"

namespace mmdiff {

// The behaviour of a value finding that emulate_precision_casts=True removes: Inductor keeps
// float16/bfloat16 intermediates in float32 and does not round them, as documented for the knob.
inline constexpr char kUnroundedIntermediates[] = "by_design=emulate_precision_casts";

// The folded root cause of a finding signed `signature`, given the mitigation reruns it got: for a
// value finding (its values or a gradient's) of a compiled path that emulate_precision_casts
// removes, "value|path=<path>|by_design=emulate_precision_casts"; "" when it does not fold (a
// finding the knob does not remove stays its own root cause).
std::string FoldedRootCause(const std::string& signature,
                            const std::optional<std::vector<Mitigation>>& mitigations);

// True when a reduced case folds (FoldedRootCause) and the case it was reduced from, rerun with the
// knobs, does not: the reduction lost what makes the finding its own root cause.
bool FoldsOnlyReduced(const std::string& signature,
                      const std::optional<std::vector<Mitigation>>& mitigations,
                      const std::string& reduced_signature,
                      const std::optional<std::vector<Mitigation>>& reduced_mitigations);

// True for a folded root cause's signature (no op in it: its line lists the ops seen).
bool IsFoldedRootCause(const std::string& signature);

// What a folded root cause's line says it is, e.g. "inductor computes float16/bfloat16 values
// beyond the rounding bound that torch._inductor.config.emulate_precision_casts = True removes"
// (its class, by design, is the line's tag: src/report/finding_class.h); "" for a signature that
// is not folded.
std::string FoldedHeadline(const std::string& signature);

// The op families a finding of `c` (c.finding) is located at (oracles/root_cause.h: FindingNodes
// and OpFamily), e.g. {"mm"}; a program's ops for an error on an accepted program.
std::vector<std::string> FindingOps(const CaseRun& c);

}  // namespace mmdiff
