// Backend registry.
#include "src/backends/registry.h"

#include "src/backends/aoti_backend.h"
#include "src/backends/compiled_backend.h"
#include "src/backends/eager_backend.h"
#include "src/backends/reference_backend.h"
#include "src/backends/test_backends.h"
#include "src/backends/torchscript_backend.h"

namespace mmdiff {

std::vector<std::unique_ptr<Backend>> MakeBackends(bool with_test_paths) {
  std::vector<std::unique_ptr<Backend>> v;
  v.push_back(MakeReferenceBackend());
  // The program's math in float64, for PyTorch's accuracy rule (oracles/accuracy.h).
  v.push_back(MakeReferenceBackend(/*float64=*/true));
  v.push_back(MakeEagerBackend());
  v.push_back(MakeEagerMetaBackend());
  v.push_back(MakeCompiledBackend("inductor"));
  v.push_back(MakeCompiledBackend("aot_eager"));
  v.push_back(MakeCompiledBackend("eager"));
  v.push_back(MakeTorchScriptBackend());
  v.push_back(MakeAotiBackend());  // on demand: a compile takes tens of seconds
  // Mitigations PyTorch asks about in accuracy reports, run on demand for inductor's value
  // findings.
  v.push_back(MakeInductorVariant("inductor_emulate_precision_casts", "emulate_precision_casts"));
  v.push_back(MakeInductorVariant("inductor_fallback_random", "fallback_random"));
  // Settings users turn on: autotuned kernel choice, constant freezing, the C++ wrapper.
  v.push_back(MakeInductorVariant("inductor_max_autotune", "max_autotune"));
  v.push_back(MakeInductorVariant("inductor_freezing", "freezing"));
  v.push_back(MakeInductorVariant("inductor_cpp_wrapper", "cpp_wrapper"));
  // torch.compile(dynamic=True): symbolic sizes from the first call, another graph and other
  // kernels than the static-size compile (a compile option, not a config knob).
  v.push_back(MakeInductorVariant("inductor_dynamic", "dynamic"));
  if (with_test_paths) {
    for (auto& b : MakeTestBackends()) v.push_back(std::move(b));
    for (auto& b : MakePlantedCompiledBackends()) v.push_back(std::move(b));
  }
  return v;
}

}  // namespace mmdiff
