// PathInfo: one path of a worker as its hello announces it — name, whether it can run here (and
// why not), and its traits (src/ir/path_traits.h).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

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

// "a,b,,c" -> {a, b, c}.
std::vector<std::string> SplitPathList(const std::string& list);
// The paths a command runs from a worker's `offered` paths: for an empty `list`, every available
// path that is not run on demand and not test-only (planted_promote excepted, offered only with
// --test-paths); else the list's paths in its order, each one the worker has, or an error naming
// the unknown one and what the worker offers (`test_paths`: whether the worker was started with
// --test-paths, said in the error when it was not).
Result<std::vector<std::string>> SelectPaths(const std::vector<PathInfo>& offered,
                                             const std::string& list, bool test_paths);

}  // namespace mmdiff
