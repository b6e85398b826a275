// A case shared by the report unit tests: the seed bug (float16 @ float32 matmul of rank 4), where
// reference and eager raise and inductor returns float32; each result with its path's traits, as
// the worker returns them.
#pragma once

#include <vector>

#include "src/ir/outcome.h"
#include "src/ir/program.h"
#include "src/report/recorded_paths.h"

namespace mmdiff::report_test {

inline Program Seed(Shape a = {2, 4, 8, 8}) {
  Program p;
  p.inputs = {{"x0", a, DType::kFloat16}, {"x1", {2, 4, 8, 64}, DType::kFloat32}};
  p.nodes = {{"v0", OpKind::kMatmul, {"x0", "x1"}}};
  p.outputs = {"v0"};
  return p;
}

inline std::vector<PathResult> SeedResults() {
  PathResult ref{"reference", OutcomeKind::kError}, eager{"eager", OutcomeKind::kError},
      ind{"inductor", OutcomeKind::kOk};
  ref.error_class = eager.error_class = "RuntimeError";
  ind.outputs.push_back({DType::kFloat32, {2, 4, 8, 64}, Device::kCpu, {}, {}});
  std::vector<PathResult> results = {ref, eager, ind};
  SetRecordedTraits(results);
  return results;
}

}  // namespace mmdiff::report_test
