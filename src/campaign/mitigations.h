// Mitigations PyTorch asks about in compiler accuracy reports: rerun a case whose value divergence
// is blamed on inductor with emulate_precision_casts, and with fallback_random, and record whether
// each removes the divergence.
#pragma once

#include <optional>
#include <vector>

#include "src/exec/supervisor.h"
#include "src/report/report.h"

namespace mmdiff {

// One record (oracles/case_run.h) per available knob variant, when the finding of `c` is a value
// divergence blamed on inductor (an empty list when no variant is available); none otherwise.
std::optional<std::vector<Mitigation>> TryMitigations(Supervisor& sup, const CaseRun& c);

}  // namespace mmdiff
