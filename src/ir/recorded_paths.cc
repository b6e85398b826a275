// The recorded paths' traits: the path catalogue's.
#include "src/ir/recorded_paths.h"

#include "src/ir/paths.h"

namespace mmdiff {

PathTraits RecordedPathTraits(const std::string& name) {
  const PathRow* row = FindPath(name);
  return row ? row->traits : PathTraits{};
}

void SetRecordedTraits(std::vector<PathResult>& results) {
  for (auto& r : results) r.traits = RecordedPathTraits(r.path);
}

}  // namespace mmdiff
