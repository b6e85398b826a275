// PathInfo: one path of a worker as its hello announces it — name, whether it can run here (and
// why not), and its traits (src/ir/path_traits.h).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "src/ir/path_traits.h"
#include "src/support/status.h"

namespace mmdiff {

struct PathInfo {
  std::string name;
  bool available = false;
  std::string why;  // when unavailable
  PathTraits traits;
};

// {"name", "available", "why", "traits": PathTraitsToJson}.
nlohmann::json PathInfoToJson(const PathInfo& p);
// A worker's announcement is untrusted: a name (a non-empty string), "available" (a boolean),
// "why" (a string, may be absent) and valid traits are required; otherwise an error naming what is
// wrong.
Result<PathInfo> PathInfoFromJson(const nlohmann::json& j);

}  // namespace mmdiff
