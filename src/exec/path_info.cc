// A worker's path announcement as JSON.
#include "src/exec/path_info.h"

namespace mmdiff {

nlohmann::json PathInfoToJson(const PathInfo& p) {
  return {{"name", p.name},
          {"available", p.available},
          {"why", p.why},
          {"traits", PathTraitsToJson(p.traits)}};
}

Result<PathInfo> PathInfoFromJson(const nlohmann::json& j) {
  if (!j.is_object()) return Status::Error("a path must be an object");
  if (!j.contains("name") || !j["name"].is_string() || j["name"].get<std::string>().empty())
    return Status::Error("a path needs a \"name\"");
  PathInfo p;
  p.name = j["name"].get<std::string>();
  if (!j.contains("available") || !j["available"].is_boolean())
    return Status::Error("path \"" + p.name + "\": \"available\" must be true or false");
  p.available = j["available"].get<bool>();
  if (j.contains("why")) {
    if (!j["why"].is_string())
      return Status::Error("path \"" + p.name + "\": \"why\" must be a string");
    p.why = j["why"].get<std::string>();
  }
  if (!j.contains("traits")) return Status::Error("path \"" + p.name + "\": no \"traits\"");
  auto traits = PathTraitsFromJson(j["traits"]);
  if (!traits.ok()) return Status::Error("path \"" + p.name + "\": " + traits.error());
  p.traits = traits.value();
  return p;
}

}  // namespace mmdiff
