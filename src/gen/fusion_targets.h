// Target foci: one per attention fusion variant Inductor registers (fuse_attention.py's
// _sfdp_pattern_N in its float16, float32-mask, batch-1, training and inference forms), each
// pinning hand-written attention (or sdpa, for the fusions that fold its decomposition back) to
// that variant's form, one for the fusion of mm and a bias into addmm (post_grad.addmm) and one for
// the joint graph's removal of a view to a tensor's own size (joint_graph.pointless_view), so
// that a steered campaign can aim at the fusions no program has reached yet
// (src/campaign/steering.h). A focus's `target` names its fusion as `mmdiff rewrites` does.
#pragma once

#include <nlohmann/json.hpp>
#include <vector>

#include "src/gen/focus.h"

namespace mmdiff {

// The target foci in a fixed order, each over `attention` (the attention focus's overlay) or, for
// the others, `clean` (the overlay every focus starts from).
std::vector<Focus> FusionTargetFoci(const nlohmann::json& attention, const nlohmann::json& clean);

}  // namespace mmdiff
