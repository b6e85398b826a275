// Mitigation reruns.
#include "src/campaign/mitigations.h"

namespace mmdiff {

nlohmann::json TryMitigations(Supervisor& sup, const CaseRun& c) {
  bool inductor_value = false;
  for (const auto& d : c.verdict.divergences) inductor_value |= d.kind == DivergenceKind::kValue && d.blamed == "inductor";
  if (!inductor_value) return nullptr;
  nlohmann::json out = nlohmann::json::array();
  for (const auto& [path, knob] : std::vector<std::pair<std::string, std::string>>{
           {"inductor_emulate_precision_casts", "emulate_precision_casts"}, {"inductor_fallback_random", "fallback_random"}}) {
    if (!sup.Offers(path)) continue;
    CaseRun rerun = MakeCaseRun(c.program, c.recipe, sup.Run(c.program, c.recipe, {"reference", "eager", path}));
    std::string detail;
    for (const auto& d : rerun.verdict.divergences)
      if (d.kind == DivergenceKind::kValue && d.paths.size() == 2 && d.paths[1] == path) detail = d.detail;
    out.push_back({{"knob", "torch._inductor.config." + knob + " = True"},
                   {"path", path},
                   {"removes_divergence", detail.empty()},
                   {"detail", detail.empty() ? "no value divergence with the knob" : detail}});
  }
  return out;
}

}  // namespace mmdiff
