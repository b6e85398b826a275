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

}  // namespace mmdiff
