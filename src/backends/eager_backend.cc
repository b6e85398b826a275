// Eager backend.
#include "src/backends/eager_backend.h"

#include "src/backends/aten_program.h"
#include "src/backends/embedded_python.h"
#include "src/ir/autocast.h"
#include "src/ir/paths.h"

namespace mmdiff {

namespace {
class EagerBackend : public Backend {
 public:
  std::string name() const override { return paths::kEager; }
  PathTraits traits() const override { return FindPath(paths::kEager)->traits; }
  PathResult Run(const Program& p, const InputRecipe& r, StageReporter& stages) override {
    // `import torch` registers meta kernels and decompositions written in Python (addbmm, dot and
    // where on meta, among others); without it LibTorch alone raises NotImplementedError for them.
    // Eager must be the eager a Python user gets, so the interpreter is started first (once per
    // worker); where it cannot start, eager runs on LibTorch alone and says so.
    static const std::string python_problem = EnsurePython();
    PathResult res = RunAtenPath(p, r, stages, AtenRunOptions{});
    if (!python_problem.empty() && res.kind == OutcomeKind::kError)
      res.message += " [eager ran without torch's Python registrations: " + python_problem + "]";
    return res;
  }
};
// The same program with every tensor on meta: what eager predicts about dtypes, shapes and errors
// without computing, and what torch.compile's fake-tensor tracing relies on. Cpu programs only.
class EagerMetaBackend : public Backend {
 public:
  std::string name() const override { return paths::kEagerMeta; }
  // Runs cpu programs only (on meta): a cuda program is unsupported for its device, GPU or not.
  PathTraits traits() const override { return FindPath(paths::kEagerMeta)->traits; }
  PathResult Run(const Program& p, const InputRecipe& r, StageReporter& stages) override {
    static const std::string python_problem = EnsurePython();  // Python-registered meta kernels
    for (const auto& in : p.inputs)
      if (in.device != Device::kCpu)
        return Unsupported("the program has " + std::string(DeviceName(in.device)) + " inputs");
    for (const auto& n : p.nodes)
      if (n.op == OpKind::kToDevice && *n.device != Device::kCpu)
        return Unsupported("the program moves values off cpu");
    // Meta tensors have no autocast dispatch key: a region would change the cpu program's dtypes
    // and not the meta one's.
    if (UsesAutocast(p))
      return UnsupportedResult(UnsupportedReason::kAutocast,
                               FindPath(paths::kEagerMeta)->limits.no_autocast);
    AtenRunOptions o;
    o.on_meta = true;
    return RunAtenPath(p, r, stages, o);
  }

 private:
  static PathResult Unsupported(const std::string& why) {
    return UnsupportedResult(
        UnsupportedReason::kDevice,
        std::string(FindPath(paths::kEagerMeta)->limits.cpu_only) + ": " + why);
  }
};
}  // namespace

std::unique_ptr<Backend> MakeEagerBackend() { return std::make_unique<EagerBackend>(); }
std::unique_ptr<Backend> MakeEagerMetaBackend() { return std::make_unique<EagerMetaBackend>(); }

}  // namespace mmdiff
