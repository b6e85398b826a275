// The reruns a finding gets (oracles/case_run.h: ablation, mitigations) as a report writes them
// (reports/schema/report.v2.schema.json: "ablation", "mitigations").
#pragma once

#include <nlohmann/json.hpp>
#include <vector>

#include "oracles/case_run.h"

namespace mmdiff {

// {"stages": [{"path", "backend", "outcome", "agrees_with_eager", "detail"}], "first_divergent":
// path or null}.
nlohmann::json AblationToJson(const Ablation& a);
// [{"knob", "path", "removes_divergence", "detail"}], one per knob tried.
nlohmann::json MitigationsToJson(const std::vector<Mitigation>& ms);

}  // namespace mmdiff
