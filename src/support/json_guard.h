// Loaders of untrusted JSON return errors, never throw: GuardJson runs a loader and turns a
// nlohmann::json exception (a field of the wrong type the loader did not check) into an error;
// StringField and BoolField read one field, falling back where it has another type.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "src/support/status.h"

namespace mmdiff {

// A field of untrusted JSON as the type it should have, else the fallback (nlohmann's value()
// throws on a field of another type, and on a document that is not an object).
inline std::string StringField(const nlohmann::json& j, const char* key,
                               const std::string& fallback = "") {
  return j.is_object() && j.contains(key) && j[key].is_string() ? j[key].get<std::string>()
                                                                : fallback;
}
inline bool BoolField(const nlohmann::json& j, const char* key, bool fallback) {
  return j.is_object() && j.contains(key) && j[key].is_boolean() ? j[key].get<bool>() : fallback;
}

template <typename F>
auto GuardJson(const std::string& what, F&& load) -> decltype(load()) {
  try {
    return load();
  } catch (const nlohmann::json::exception& e) {
    return Status::Error(what + ": " + e.what());
  }
}

}  // namespace mmdiff
