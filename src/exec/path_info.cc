// A worker's path announcement as JSON.
#include "src/exec/path_info.h"

#include <sstream>

#include "src/ir/paths.h"

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

std::vector<std::string> SplitPathList(const std::string& list) {
  std::vector<std::string> out;
  std::stringstream ss(list);
  for (std::string name; std::getline(ss, name, ',');)
    if (!name.empty()) out.push_back(name);
  return out;
}

Result<std::vector<std::string>> SelectPaths(const std::vector<PathInfo>& offered,
                                             const std::string& list, bool test_paths) {
  std::vector<std::string> out;
  if (list.empty()) {
    for (const auto& p : offered)
      if (p.available && !p.traits.on_demand &&
          (!p.traits.test_only || p.name == paths::kPlantedPromote))
        out.push_back(p.name);
    return out;
  }
  for (const std::string& name : SplitPathList(list)) {
    bool known = false;
    for (const auto& p : offered) known |= p.name == name;
    if (!known) {
      std::string all;
      for (const auto& p : offered) all += " " + p.name;
      return Status::Error("unknown path \"" + name + "\"; this worker offers:" + all +
                           (test_paths ? "" : " (test-only paths need --test-paths)"));
    }
    out.push_back(name);
  }
  return out;
}

}  // namespace mmdiff
