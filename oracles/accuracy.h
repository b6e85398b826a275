// PyTorch's rule for compiler accuracy reports, measured against the program's math in float64.
//
// torch._dynamo.utils.same(ref, res, fp64_ref) calls a compiled result wrong only when its RMSE
// against an fp64 run of the model exceeds m times eager's RMSE against that run, plus tol/10. The
// judge first measures both RMSEs against the reference, which rounds every value as eager does; a
// compiler that skips a rounding (a fused attention kept in float32) then looks worse than eager
// when it is closer to the exact result. For a value divergence the judge classified, the case's
// runner therefore also runs reference_float64 (the reference's float64 evaluation: every floating
// value in float64, nothing rounded to float32, float16 or bfloat16) and reclassifies against it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "oracles/verdict.h"
#include "src/ir/outcome.h"
#include "src/ir/paths.h"

namespace mmdiff {

inline constexpr const char* kReferenceFloat64Path = paths::kReferenceFloat64;
// torch._dynamo.utils.same's default tol, used with its fp64 reference rule.
inline constexpr double kSameTolerance = 1e-4;

// "filable" when path_rmse > m * eager_rmse + tol/10 (m = 3 for a float16/bfloat16 result or fewer
// than 1,000 elements measured, else 2), else "precision-only".
std::string AccuracyClass(double path_rmse, double eager_rmse, bool low_precision, int64_t counted);

// Whether a value divergence of `v` was classified against the rounded reference: a float64 run
// would measure it as the rule does.
bool WantsFloat64Run(const Verdict& v);

// Measures eager's and each classified value divergence's path's RMSE against `fp64` (the
// reference_float64 result) over the elements where the path's value and fp64's are finite and
// fp64's is bounded, reclassifies by the rule (a divergence at a NaN or an infinity blamed on the
// path stays filable: no matter of precision), marks them measured against float64, and orders the
// verdict again. Returns false, changing nothing, when fp64 did not return results of the paths'
// shapes.
bool ClassifyAgainstFloat64(Verdict& v, const std::vector<PathResult>& results,
                            const PathResult& fp64);

}  // namespace mmdiff
