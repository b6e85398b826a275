// A case's next inputs: whether they are worth running, and whether a call compiled.
#include "src/campaign/case_inputs.h"

#include <algorithm>

#include "src/gen/input_variants.h"

namespace mmdiff {

bool MoreInputsMatter(const CaseRun& c, int v) {
  if (std::none_of(c.results.begin(), c.results.end(),
                   [](const PathResult& r) { return r.compile.present; }))
    return false;
  for (const auto& r : c.results)
    if (r.ok())
      for (const auto& t : r.outputs)
        if (!t.data.empty()) return true;
  return v < kShapeVariant;
}

bool CompiledAny(const std::vector<PathResult>& results) {
  return std::any_of(results.begin(), results.end(), [](const PathResult& r) {
    return r.compile.present && r.compile.compiled && r.traits.keeps_state;
  });
}

}  // namespace mmdiff
