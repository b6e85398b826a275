// Ablation and mitigation records as report JSON.
#include "src/report/rerun_records_json.h"

namespace mmdiff {

nlohmann::json AblationToJson(const Ablation& a) {
  nlohmann::json stages = nlohmann::json::array();
  for (const auto& s : a.stages)
    stages.push_back({{"path", s.path},
                      {"backend", s.backend},
                      {"outcome", s.outcome},
                      {"agrees_with_eager", s.agrees_with_eager},
                      {"detail", s.detail}});
  return {{"stages", stages},
          {"first_divergent",
           a.first_divergent ? nlohmann::json(*a.first_divergent) : nlohmann::json(nullptr)}};
}

nlohmann::json MitigationsToJson(const std::vector<Mitigation>& ms) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& m : ms)
    out.push_back({{"knob", m.knob},
                   {"path", m.path},
                   {"removes_divergence", m.removes_divergence},
                   {"detail", m.detail}});
  return out;
}

Result<std::vector<Mitigation>> MitigationsFromJson(const nlohmann::json& j) {
  if (!j.is_array()) return Status::Error("mitigations: must be an array");
  std::vector<Mitigation> out;
  for (const auto& m : j) {
    if (!m.is_object() || !m.contains("knob") || !m["knob"].is_string() || !m.contains("path") ||
        !m["path"].is_string() || !m.contains("removes_divergence") ||
        !m["removes_divergence"].is_boolean())
      return Status::Error(
          "mitigations: each needs a \"knob\", a \"path\" and "
          "\"removes_divergence\"");
    out.push_back(
        {m["knob"].get<std::string>(), m["path"].get<std::string>(),
         m["removes_divergence"].get<bool>(),
         m.contains("detail") && m["detail"].is_string() ? m["detail"].get<std::string>() : ""});
  }
  return out;
}

nlohmann::json StandaloneToJson(const StandaloneRecord& r) {
  return {{"status", StandaloneStatusName(StandaloneStatusOf(r))},
          {"worker_runs", r.worker_runs},
          {"worker_hits", r.worker_hits},
          {"repro_attempts", r.repro_attempts},
          {"repro_hits", r.repro_hits},
          {"repro_exit", r.repro_exit},
          {"detail", r.detail}};
}

Result<StandaloneRecord> StandaloneFromJson(const nlohmann::json& j) {
  if (!j.is_object()) return Status::Error("standalone: must be an object");
  StandaloneRecord r;
  for (auto [key, field] :
       {std::pair{"worker_runs", &r.worker_runs}, std::pair{"worker_hits", &r.worker_hits},
        std::pair{"repro_attempts", &r.repro_attempts}, std::pair{"repro_hits", &r.repro_hits}}) {
    if (!j.contains(key) || !j[key].is_number_integer() || j[key].get<int64_t>() < 0 ||
        j[key].get<int64_t>() > 1000)
      return Status::Error(std::string("standalone: \"") + key + "\" must be a small count");
    *field = j[key].get<int>();
  }
  if (!j.contains("repro_exit") || !j["repro_exit"].is_number_integer() ||
      j["repro_exit"].get<int64_t>() < -1 || j["repro_exit"].get<int64_t>() > 255)
    return Status::Error("standalone: \"repro_exit\" must be an exit status or -1");
  r.repro_exit = j["repro_exit"].get<int>();
  if (!j.contains("detail") || !j["detail"].is_string())
    return Status::Error("standalone: \"detail\" must be a string");
  r.detail = j["detail"].get<std::string>().substr(0, 4000);
  if (r.worker_hits > r.worker_runs || r.repro_hits > r.repro_attempts)
    return Status::Error("standalone: more hits than runs");
  return r;
}

namespace {
std::string RunsText(int hits, int runs, const char* what) {
  return std::to_string(hits) + " of " + std::to_string(runs) + " " + what;
}
}  // namespace

std::string StandaloneLine(const StandaloneRecord& r) {
  const int runs = r.worker_runs + r.repro_attempts, hits = r.worker_hits + r.repro_hits;
  switch (StandaloneStatusOf(r)) {
    case StandaloneStatus::kReproduced:
      return "reproduced standalone (" + RunsText(hits, runs, "runs") + ")";
    case StandaloneStatus::kFlaky:
      return "shows only some of the time: " + RunsText(hits, runs, "runs");
    case StandaloneStatus::kNotReproduced:
      return "not reproduced standalone: " + r.detail;
    case StandaloneStatus::kNotChecked:
      break;
  }
  return "not checked standalone" + (r.detail.empty() ? std::string() : ": " + r.detail);
}

}  // namespace mmdiff
