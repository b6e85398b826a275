// Mitigations PyTorch asks about in compiler accuracy reports: rerun a case whose value divergence
// is blamed on inductor with emulate_precision_casts, and with fallback_random, and record whether
// each removes the divergence.
#pragma once

#include <nlohmann/json.hpp>

#include "src/exec/supervisor.h"
#include "src/report/report.h"

namespace mmdiff {

// [{"knob", "path", "removes_divergence", "detail"}] for each available knob variant, when some
// value divergence of `c` is blamed on inductor; null otherwise.
nlohmann::json TryMitigations(Supervisor& sup, const CaseRun& c);

}  // namespace mmdiff
