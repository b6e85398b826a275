// The worker side of the protocol: answers hello, runs programs through its backends, reports the
// stage before each step so that the supervisor can name where a crash happened.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <vector>

#include "src/exec/backend.h"

namespace mmdiff {

// Serves requests from in_fd until "exit" or EOF; returns the process exit code.
//   {"type":"hello"} ->
//   {"type":"hello","versions":{...},"paths":[PathInfo (src/exec/path_info.h), ...]}
//   {"type":"run","program":P,"recipe":R,"paths":[...]} -> per path: "stage" messages, then
//       {"type":"result","result":PathResult}; finally {"type":"done"}
//   {"type":"exit"}
int RunWorkerLoop(int in_fd, int out_fd, std::vector<std::unique_ptr<Backend>>& backends,
                  const nlohmann::json& versions);

}  // namespace mmdiff
