// Verdict: the oracle's judgement of one test case — agree, or a list of divergences, each naming
// the paths that disagree and, where the contract or the reference can tell, the one that is wrong.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "src/support/status.h"

namespace mmdiff {

enum class DivergenceKind {
  kErrorBehaviour,  // one path raises, the other returns
  // Training programs: both run the forward, and one raises in the backward pass where the other
  // returns gradients (or raises in the forward instead); or eager raises in a backward that the
  // reference differentiates (paths reference, eager: blamed on eager).
  kBackwardError,
  kErrorClass,  // both raise, with different error classes
  kDType,       // result dtype differs
  kShape,
  kDevice,
  kValue,  // a value beyond what correct floating-point arithmetic allows
  // Eager itself disagrees with mmdiff's contract: a contract gap or an eager bug, nobody blamed;
  // blamed on eager where the contract names eager's deviation from the rule it keeps.
  kContract,
  kMeta,   // eager on meta tensors disagrees with eager on cpu (outcome, error class, dtype, shape)
  kCrash,  // the worker died while running this path
  kTimeout,
  // A path's result changes when an input the documentation says it ignores (addmm-family beta = 0)
  // is replaced by zeros (oracles/ignored_inputs.h).
  kIgnoredInput,
};
std::string_view DivergenceKindName(DivergenceKind k);
// The kind named `name` (as DivergenceKindName writes it); nullopt for any other text.
std::optional<DivergenceKind> ParseDivergenceKind(std::string_view name);

// How bad a divergence kind is for a user of torch, higher is worse:
//   5 crash, timeout   (the process dies or hangs)
//   4 error_behaviour, backward_error  (one path raises, the other silently returns)
//   3 error_class      (both raise, with different exception classes)
//   2 dtype, shape, device, meta  (a wrong result type, or fake tensors that mispredict eager)
//   1 value, ignored_input  (a number beyond what correct floating point allows, or one that
//   depends
//                            on an input the op must ignore)
//   0 contract         (eager disagrees with mmdiff's contract table: often a gap in the table)
int DivergenceSeverity(DivergenceKind k);

struct Divergence {
  DivergenceKind kind;
  std::vector<std::string> paths;  // the paths that disagree (two, or one for crash/timeout)
  std::string blamed;              // the path that is wrong per contract/reference; "" if unknown
  std::string detail;              // one human sentence
  // PyTorch's rule for compiler bug reports: "filable" when a compiled path breaks the contract or
  // is numerically worse than eager against a higher-precision reference (torch._dynamo.utils.same
  // with fp64_ref: RMSE(compiled) > m * RMSE(eager) + tol/10, m = 3 for float16/bfloat16 or fewer
  // than 1,000 elements, else 2; tol = 1e-4); "precision-only" when it is outside mmdiff's bound
  // but not worse than eager by that rule; "" where the rule does not apply (eager's own bugs,
  // crashes).
  std::string classification;
  double eager_rmse = -1, path_rmse = -1;  // kValue against the reference, where measured
  bool rmse_float64 = false;  // the RMSEs are against the float64 run (oracles/accuracy.h)
  // kValue: the worst element; dtype, shape, device: the first output whose type differs.
  int output = -1;
  int64_t element = -1;
  double got = 0, expected = 0, allowed = 0;
  // kValue: how many elements are out of bound, and how many of those are where the reference is
  // NaN (every one of them: a path that gives numbers where the exact result is undefined, e.g.
  // sdpa's kernels zeroing a row with no finite score); -1 when not counted (older reports).
  int64_t diverging_elements = -1, nan_reference_elements = -1;
};

struct Verdict {
  // The most severe first (DivergenceSeverity), filable ones first among equals, else in the order
  // found: the first is the one a headline describes.
  std::vector<Divergence> divergences;
  std::vector<std::string> notes;  // e.g. paths that were skipped as unsupported
  bool diverges() const { return !divergences.empty(); }
};

// Puts the most severe divergences first, filable ones first among equals, else keeping their
// order.
void OrderDivergences(Verdict& v);

nlohmann::json VerdictToJson(const Verdict& v);
// The verdict VerdictToJson wrote (any report version), for reading reports back: divergences of an
// unknown kind are an error; missing optional fields keep their defaults.
Result<Verdict> VerdictFromJson(const nlohmann::json& j);
// " [blamed: inductor, filable]", " [blamed: eager]", or "" when nobody is blamed.
std::string BlameLabel(const Divergence& d);

}  // namespace mmdiff
