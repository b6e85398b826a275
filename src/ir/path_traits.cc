// Path traits and unsupported reasons as JSON.
#include "src/ir/path_traits.h"

#include <utility>
#include <vector>

namespace mmdiff {

namespace {

// The traits by their JSON names.
const std::vector<std::pair<const char*, bool PathTraits::*>>& TraitFields() {
  static const std::vector<std::pair<const char*, bool PathTraits::*>> kFields = {
      {"compiled", &PathTraits::compiled},   {"on_demand", &PathTraits::on_demand},
      {"variant", &PathTraits::variant},     {"test_only", &PathTraits::test_only},
      {"needs_gpu", &PathTraits::needs_gpu}, {"keeps_state", &PathTraits::keeps_state},
  };
  return kFields;
}

constexpr UnsupportedReason kReasons[] = {
    UnsupportedReason::kNone,        UnsupportedReason::kNoGpu,       UnsupportedReason::kDevice,
    UnsupportedReason::kUnavailable, UnsupportedReason::kUnknownPath, UnsupportedReason::kRejected,
    UnsupportedReason::kTraining,    UnsupportedReason::kAutocast,    UnsupportedReason::kKnob,
    UnsupportedReason::kWorkerFault,
};

}  // namespace

nlohmann::json PathTraitsToJson(const PathTraits& t) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [name, field] : TraitFields()) j[name] = t.*field;
  return j;
}

Result<PathTraits> PathTraitsFromJson(const nlohmann::json& j) {
  if (!j.is_object()) return Status::Error("path traits must be an object");
  PathTraits t;
  for (const auto& [name, field] : TraitFields()) {
    if (!j.contains(name))
      return Status::Error("path traits: \"" + std::string(name) + "\" is missing");
    if (!j[name].is_boolean())
      return Status::Error("path traits: \"" + std::string(name) + "\" must be true or false");
    t.*field = j[name].get<bool>();
  }
  for (const auto& [key, value] : j.items()) {
    bool known = false;
    for (const auto& [name, field] : TraitFields()) known |= key == name;
    if (!known) return Status::Error("path traits: unknown trait \"" + key + "\"");
  }
  return t;
}

std::string_view UnsupportedReasonName(UnsupportedReason r) {
  switch (r) {
    case UnsupportedReason::kNone:
      return "none";
    case UnsupportedReason::kNoGpu:
      return "no_gpu";
    case UnsupportedReason::kDevice:
      return "device";
    case UnsupportedReason::kUnavailable:
      return "unavailable";
    case UnsupportedReason::kUnknownPath:
      return "unknown_path";
    case UnsupportedReason::kRejected:
      return "rejected";
    case UnsupportedReason::kTraining:
      return "training";
    case UnsupportedReason::kAutocast:
      return "autocast";
    case UnsupportedReason::kKnob:
      return "knob";
    case UnsupportedReason::kWorkerFault:
      return "worker_fault";
  }
  return "?";
}

Result<UnsupportedReason> ParseUnsupportedReason(std::string_view name) {
  for (UnsupportedReason r : kReasons)
    if (UnsupportedReasonName(r) == name) return r;
  return Status::Error("unknown unsupported reason \"" + std::string(name) + "\"");
}

}  // namespace mmdiff
