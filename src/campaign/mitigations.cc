// Mitigation reruns.
#include "src/campaign/mitigations.h"

#include "oracles/judge.h"
#include "src/ir/paths.h"
#include "src/report/run_case.h"

namespace mmdiff {

std::optional<std::vector<Mitigation>> TryMitigations(Supervisor& sup, const CaseRun& c) {
  // Only for a finding about inductor's values (a case's other findings get their own reruns).
  if (c.finding >= c.verdict.divergences.size()) return std::nullopt;
  const Divergence& focus = c.verdict.divergences[c.finding];
  if (focus.kind != DivergenceKind::kValue) return std::nullopt;
  std::vector<const PathRow*> knobs;
  for (const PathRow* v : VariantsOf(focus.blamed))
    if (v->mitigation) knobs.push_back(v);
  if (knobs.empty()) return std::nullopt;
  std::vector<Mitigation> out;
  for (const PathRow* v : knobs) {
    const std::string path = v->name, knob = v->knob;
    if (!sup.Offers(path)) continue;
    CaseRun rerun = RerunCase(sup, c, {kReferencePath, kEagerPath, path});
    std::string detail;
    for (const auto& d : rerun.verdict.divergences)
      if (d.kind == DivergenceKind::kValue && d.paths.size() == 2 && d.paths[1] == path)
        detail = d.detail;
    out.push_back({"torch._inductor.config." + knob + " = True", path, detail.empty(),
                   detail.empty() ? "no value divergence with the knob" : detail});
  }
  return out;
}

}  // namespace mmdiff
