// Eager backend.
#include "src/backends/eager_backend.h"

#include "src/backends/aten_program.h"

namespace mmdiff {

namespace {
class EagerBackend : public Backend {
 public:
  std::string name() const override { return "eager"; }
  PathResult Run(const Program& p, const InputRecipe& r, StageReporter& stages) override {
    return RunAtenPath(p, r, stages, AtenRunOptions{});
  }
};
}  // namespace

std::unique_ptr<Backend> MakeEagerBackend() { return std::make_unique<EagerBackend>(); }

}  // namespace mmdiff
