// CampaignProfile: sums, JSON and the table.
#include "src/campaign/campaign_profile.h"

#include <cmath>
#include <cstdio>

namespace mmdiff {

namespace {

// The profile's scalar parts: name in summary.json and the table, and member.
struct Part {
  const char* name;
  const char* label;
  double CampaignProfile::* seconds;
};
constexpr Part kParts[] = {
    {"generate_s", "generating programs and inputs", &CampaignProfile::generate_s},
    {"run_s", "running the paths (worker-timed, below)", &CampaignProfile::run_s},
    {"judge_s", "judging", &CampaignProfile::judge_s},
    {"worker_start_s", "starting workers", &CampaignProfile::worker_start_s},
    {"mitigations_s", "new buckets: mitigations", &CampaignProfile::mitigations_s},
    {"ablation_s", "new buckets: ablation", &CampaignProfile::ablation_s},
    {"reduce_s", "new buckets: reduction", &CampaignProfile::reduce_s},
    {"standalone_s", "new buckets: standalone checks", &CampaignProfile::standalone_s},
    {"store_s", "writing folders and the summary", &CampaignProfile::store_s},
};

Result<double> Seconds(const nlohmann::json& j, const std::string& what) {
  if (!j.is_number() || !std::isfinite(j.get<double>()) || j.get<double>() < 0)
    return Status::Error("profile: " + what + " must be a finite number >= 0");
  return j.get<double>();
}

std::string Fixed1(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", s);
  return buf;
}

}  // namespace

void CampaignProfile::AddRuns(const std::vector<PathResult>& results) {
  for (const PathResult& r : results) {
    PathTime& t = paths[r.path];
    ++t.runs;
    t.seconds += r.seconds;
    if (r.compile.present) {
      t.compiled = true;
      t.phases += r.compile.phases;
    }
  }
}

double CampaignProfile::CppCompileSeconds() const {
  double s = 0;
  for (const auto& [name, t] : paths) s += t.phases.cpp_compile;
  return s;
}

CampaignProfile& CampaignProfile::operator+=(const CampaignProfile& o) {
  for (const Part& p : kParts) this->*p.seconds += o.*p.seconds;
  worker_starts += o.worker_starts;
  training_programs += o.training_programs;
  training_run_s += o.training_run_s;
  rejected_programs += o.rejected_programs;
  rejected_run_s += o.rejected_run_s;
  rejected_cpp_compile_s += o.rejected_cpp_compile_s;
  steer_wait_s += o.steer_wait_s;
  for (const auto& [name, t] : o.paths) {
    PathTime& mine = paths[name];
    mine.runs += t.runs;
    mine.seconds += t.seconds;
    mine.compiled |= t.compiled;
    mine.phases += t.phases;
  }
  return *this;
}

nlohmann::json CampaignProfile::ToJson() const {
  nlohmann::json j = nlohmann::json::object();
  for (const Part& p : kParts) j[p.name] = this->*p.seconds;
  j["worker_starts"] = worker_starts;
  j["training_programs"] = training_programs;
  j["training_run_s"] = training_run_s;
  j["rejected_programs"] = rejected_programs;
  j["rejected_run_s"] = rejected_run_s;
  j["rejected_cpp_compile_s"] = rejected_cpp_compile_s;
  j["steer_wait_s"] = steer_wait_s;
  nlohmann::json ps = nlohmann::json::object();
  for (const auto& [name, t] : paths) {
    nlohmann::json pj = {{"runs", t.runs}, {"seconds", t.seconds}};
    if (t.compiled) pj["phases"] = CompilePhasesToJson(t.phases);
    ps[name] = pj;
  }
  j["paths"] = ps;
  return j;
}

Result<CampaignProfile> CampaignProfile::FromJson(const nlohmann::json& j) {
  if (!j.is_object()) return Status::Error("profile must be an object");
  CampaignProfile p;
  for (const Part& part : kParts) {
    if (!j.contains(part.name)) return Status::Error(std::string("profile: no ") + part.name);
    auto s = Seconds(j.at(part.name), part.name);
    if (!s.ok()) return s.status();
    p.*part.seconds = s.value();
  }
  const nlohmann::json* starts = j.contains("worker_starts") ? &j.at("worker_starts") : nullptr;
  if (!starts || !starts->is_number_integer() || starts->get<int64_t>() < 0)
    return Status::Error("profile: worker_starts must be an integer >= 0");
  p.worker_starts = starts->get<int64_t>();
  // Counts and seconds that older summaries lack: training (before mmdiff generated training
  // programs), steer_wait_s (before steering), the rejected programs' (before 2026-12-07).
  for (auto [name, count] : {std::pair{"training_programs", &p.training_programs},
                             std::pair{"rejected_programs", &p.rejected_programs}}) {
    if (!j.contains(name)) continue;
    const nlohmann::json& n = j.at(name);
    if (!n.is_number_integer() || n.get<int64_t>() < 0)
      return Status::Error(std::string("profile: ") + name + " must be an integer >= 0");
    *count = n.get<int64_t>();
  }
  for (auto [name, seconds] :
       {std::pair{"training_run_s", &p.training_run_s}, std::pair{"steer_wait_s", &p.steer_wait_s},
        std::pair{"rejected_run_s", &p.rejected_run_s},
        std::pair{"rejected_cpp_compile_s", &p.rejected_cpp_compile_s}}) {
    if (!j.contains(name)) continue;
    auto s = Seconds(j.at(name), name);
    if (!s.ok()) return s.status();
    *seconds = s.value();
  }
  if (!j.contains("paths") || !j.at("paths").is_object())
    return Status::Error("profile: paths must be an object");
  for (const auto& [name, pj] : j.at("paths").items()) {
    if (!pj.is_object() || !pj.contains("runs") || !pj.at("runs").is_number_integer() ||
        pj.at("runs").get<int64_t>() < 0 || !pj.contains("seconds"))
      return Status::Error("profile: path " + name + " needs runs (an integer >= 0) and seconds");
    PathTime t;
    t.runs = pj.at("runs").get<int64_t>();
    auto s = Seconds(pj.at("seconds"), "path " + name + " seconds");
    if (!s.ok()) return s.status();
    t.seconds = s.value();
    if (pj.contains("phases")) {
      auto phases = CompilePhasesFromJson(pj.at("phases"));
      if (!phases.ok()) return Status::Error("profile: path " + name + ": " + phases.error());
      t.compiled = true;
      t.phases = phases.value();
    }
    p.paths[name] = t;
  }
  return p;
}

std::string ProfileTable(const CampaignProfile& p, int64_t programs, double total_s) {
  std::string out;
  char line[256];
  double per = programs > 0 ? 1000.0 / static_cast<double>(programs) : 0;
  auto row = [&](int indent, const std::string& label, double s) {
    std::snprintf(line, sizeof line, "  %*s%-*s %10.1f s %6.1f%% %9.1f ms\n", indent, "",
                  44 - indent, label.c_str(), s, total_s > 0 ? 100 * s / total_s : 0.0, s * per);
    out += line;
  };
  std::snprintf(line, sizeof line, "  %-44s %12s %7s %12s\n", "part", "seconds", "share",
                "per program");
  out += line;
  double accounted = 0;
  for (const Part& part : kParts) {
    double s = p.*part.seconds;
    accounted += s;
    row(0, part.label, s);
    if (part.seconds != &CampaignProfile::run_s) continue;
    double in_paths = 0;
    for (const auto& [name, t] : p.paths) {
      in_paths += t.seconds;
      row(2, name + " (" + std::to_string(t.runs) + " runs)", t.seconds);
      double phased = 0;
      for (const CompilePhaseField& f : CompilePhaseFields()) phased += t.phases.*f.seconds;
      // TorchScript reports whether it compiled, but no stages.
      if (!t.compiled || phased == 0) continue;
      for (const CompilePhaseField& f : CompilePhaseFields()) row(4, f.name, t.phases.*f.seconds);
      row(4, "other (inputs in and out, the helpers)", std::max(t.seconds - phased, 0.0));
    }
    row(2, "the wire and the worker's loop", std::max(s - in_paths, 0.0));
    if (p.training_programs > 0)
      row(2, "of all runs: training programs' (" + std::to_string(p.training_programs) + ")",
          p.training_run_s);
    if (p.rejected_programs > 0) {
      row(2, "of all runs: rejected programs' (" + std::to_string(p.rejected_programs) + ")",
          p.rejected_run_s);
      row(4, "their C++ compiles (of " + Fixed1(p.CppCompileSeconds()) + " s in all)",
          p.rejected_cpp_compile_s);
    }
  }
  row(0, "the rest (campaign bookkeeping, idle jobs)", std::max(total_s - accounted, 0.0));
  if (p.steer_wait_s > 0) row(2, "of which waiting for steering's epochs", p.steer_wait_s);
  return out;
}

}  // namespace mmdiff
