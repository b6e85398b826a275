// The reruns a finding gets (oracles/case_run.h: ablation, mitigations, the standalone check) as a
// report writes them (reports/schema/report.v3.schema.json: "ablation", "mitigations",
// "standalone").
#pragma once

#include <nlohmann/json.hpp>
#include <vector>

#include "oracles/case_run.h"
#include "src/support/status.h"

namespace mmdiff {

// {"stages": [{"path", "backend", "outcome", "agrees_with_eager", "detail"}], "first_divergent":
// path or null}.
nlohmann::json AblationToJson(const Ablation& a);
// [{"knob", "path", "removes_divergence", "detail"}], one per knob tried.
nlohmann::json MitigationsToJson(const std::vector<Mitigation>& ms);
// The records MitigationsToJson wrote (a report read back: triage folds a value finding the
// emulate_precision_casts knob removes); an error names what is malformed.
Result<std::vector<Mitigation>> MitigationsFromJson(const nlohmann::json& j);
// {"status", "worker_runs", "worker_hits", "repro_attempts", "repro_hits", "repro_exit", "detail"}.
nlohmann::json StandaloneToJson(const StandaloneRecord& r);
// The record StandaloneToJson wrote (a finding folder's case.json, read back by --resume); an error
// names a field that is missing or not a count.
Result<StandaloneRecord> StandaloneFromJson(const nlohmann::json& j);
// "reproduced standalone (3 of 3 runs)", "shows only some of the time: 2 of 4 runs", "not
// reproduced standalone: <what was tried>": one line for the summary and triage.
std::string StandaloneLine(const StandaloneRecord& r);

}  // namespace mmdiff
