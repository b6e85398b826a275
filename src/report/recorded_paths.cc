// The recorded paths' traits.
#include "src/report/recorded_paths.h"

#include <map>

namespace mmdiff {

namespace {

const std::map<std::string, PathTraits>& Recorded() {
  static const std::map<std::string, PathTraits> kTraits = [] {
    const PathTraits compiled{.compiled = true, .needs_gpu = true, .keeps_state = true};
    const PathTraits variant{.compiled = true,
                             .on_demand = true,
                             .variant = true,
                             .needs_gpu = true,
                             .keeps_state = true};
    const PathTraits planted{.test_only = true, .needs_gpu = true};
    const PathTraits crasher{.test_only = true};
    std::map<std::string, PathTraits> m = {
        {"reference", {}},
        {"reference_float64", {.on_demand = true}},
        {"eager", {.needs_gpu = true}},
        {"eager_meta", {}},
        {"inductor", compiled},
        {"aot_eager", compiled},
        {"compile_eager", compiled},
        {"torchscript", compiled},
        {"aoti", {.compiled = true, .on_demand = true, .needs_gpu = true}},
    };
    for (const char* v :
         {"inductor_emulate_precision_casts", "inductor_fallback_random", "inductor_max_autotune",
          "inductor_freezing", "inductor_cpp_wrapper", "inductor_dynamic"})
      m[v] = variant;
    for (const char* p : {"planted_promote", "planted_drop_k", "planted_half_accumulate",
                          "planted_wrong_dtype", "planted_nan_to_number", "planted_inf_times_zero",
                          "planted_spread_nan", "planted_bias_times_beta", "planted_drop_grad_term",
                          "planted_ignore_autocast", "planted_wide_intermediates", "eager_1thread"})
      m[p] = planted;
    for (const char* c : {"crash_segv", "crash_abort", "crash_sigkill", "oom", "hang"})
      m[c] = crasher;
    for (const char* p : {"planted_recompile", "planted_worker_only"})
      m[p] = {.compiled = true, .test_only = true, .needs_gpu = true, .keeps_state = true};
    return m;
  }();
  return kTraits;
}

}  // namespace

PathTraits RecordedPathTraits(const std::string& name) {
  auto it = Recorded().find(name);
  return it == Recorded().end() ? PathTraits{} : it->second;
}

void SetRecordedTraits(std::vector<PathResult>& results) {
  for (auto& r : results) r.traits = RecordedPathTraits(r.path);
}

}  // namespace mmdiff
