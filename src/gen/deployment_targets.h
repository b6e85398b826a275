// Deployment target foci: one per lowering or freezing pass of the CPU deployment stack that a
// product can get (src/ir/python/inductor_lowerings.py names the lowerings), each writing a model
// whose weights are parameters in the one form that reaches it and drawing the knob variant that
// compiles it: mkldnn's packed float32 linear with each fused post-op (freezing with a symbolic
// batch), the concatenated linears and a folded constant (freezing's opt-in passes), the grouped
// GEMM template and each micro-kernel configuration (max-autotune). A steered campaign aims at
// those its CPU can reach and no program has reached yet (src/campaign/steering.h); a target
// names its lowering or rewrite as `mmdiff rewrites` does.
#pragma once

#include <nlohmann/json.hpp>
#include <vector>

#include "src/gen/focus.h"

namespace mmdiff {

// The deployment target foci in a fixed order, each over `clean` (the overlay every focus starts
// from).
std::vector<Focus> DeploymentTargetFoci(const nlohmann::json& clean);

}  // namespace mmdiff
