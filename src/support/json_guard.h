// Loaders of untrusted JSON return errors, never throw: GuardJson runs a loader and turns a
// nlohmann::json exception (a field of the wrong type the loader did not check) into an error.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "src/support/status.h"

namespace mmdiff {

template <typename F>
auto GuardJson(const std::string& what, F&& load) -> decltype(load()) {
  try {
    return load();
  } catch (const nlohmann::json::exception& e) {
    return Status::Error(what + ": " + e.what());
  }
}

}  // namespace mmdiff
