// Backend registry: one Backend per row of the path catalogue (src/ir/paths.h).
#include "src/backends/registry.h"

#include "src/backends/aoti_backend.h"
#include "src/backends/compiled_backend.h"
#include "src/backends/eager_backend.h"
#include "src/backends/reference_backend.h"
#include "src/backends/test_backends.h"
#include "src/backends/torchscript_backend.h"
#include "src/ir/paths.h"

namespace mmdiff {

std::vector<std::unique_ptr<Backend>> MakeBackends(bool with_test_paths) {
  std::vector<std::unique_ptr<Backend>> v;
  for (const PathRow& row : PathCatalogue()) {
    switch (row.kind) {
      case PathKind::kReference:
        v.push_back(MakeReferenceBackend(std::string_view(row.name) == paths::kReferenceFloat64));
        break;
      case PathKind::kEager:
        v.push_back(MakeEagerBackend());
        break;
      case PathKind::kEagerMeta:
        v.push_back(MakeEagerMetaBackend());
        break;
      case PathKind::kTorchCompile:
        v.push_back(MakeCompiledBackend(row));
        break;
      case PathKind::kTorchScript:
        v.push_back(MakeTorchScriptBackend());
        break;
      case PathKind::kAoti:
        v.push_back(MakeAotiBackend());
        break;
      case PathKind::kTest:
        break;  // below, with their own planted behaviour
    }
  }
  if (with_test_paths) {
    for (auto& b : MakeTestBackends()) v.push_back(std::move(b));
    for (const PathRow& row : PathCatalogue())
      if (row.kind == PathKind::kTest && row.repro == ReproKind::kTorchCompile)
        v.push_back(MakeCompiledBackend(row));
  }
  return v;
}

}  // namespace mmdiff
