// The pieces foci are written with (src/gen/focus.cc, src/gen/fusion_targets.cc): policy overlays
// merged in order, and an overlay that leaves only some ops a weight.
#pragma once

#include <initializer_list>
#include <nlohmann/json.hpp>
#include <string>

#include "src/gen/generator.h"

namespace mmdiff {

// The parts' keys in order, a later part's over an earlier's.
inline nlohmann::json MergeOverlays(std::initializer_list<nlohmann::json> parts) {
  nlohmann::json j = nlohmann::json::object();
  for (const nlohmann::json& p : parts) j.update(p);
  return j;
}

// Only the ops given keep a weight (the others 0).
inline nlohmann::json OnlyOps(const nlohmann::json& weights) {
  nlohmann::json j;
  for (const GenOp& op : GenOps()) j[std::string(op.key)] = 0;
  j.update(weights);
  return j;
}

}  // namespace mmdiff
