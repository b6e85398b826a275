// A case shared by the report unit tests: the seed bug (float16 @ float32 matmul of rank 4), where
// reference and eager raise and inductor returns float32; each result with its path's traits, as
// the worker returns them.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "oracles/case_run.h"
#include "src/ir/outcome.h"
#include "src/ir/program.h"
#include "src/report/recorded_paths.h"
#include "src/report/root_cause.h"

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

// Results as the worker returns them: each with its path's traits.
inline PathResult Ok(const std::string& path, DType d, Shape s, Device dev = Device::kCpu) {
  PathResult r{path, OutcomeKind::kOk};
  r.traits = RecordedPathTraits(path);
  r.outputs.push_back({d, std::move(s), dev, {}, {}});
  return r;
}

inline PathResult Raises(const std::string& path, const std::string& cls) {
  PathResult r{path, OutcomeKind::kError};
  r.traits = RecordedPathTraits(path);
  r.error_class = cls;
  r.message = "expected scalar type Half but found Float";
  return r;
}

inline std::vector<std::string> Signatures(const CaseRun& c) {
  std::vector<std::string> out;
  for (const auto& k : CaseFindings(c)) out.push_back(k.signature);
  return out;
}

}  // namespace mmdiff::report_test
