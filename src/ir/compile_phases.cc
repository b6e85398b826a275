// CompilePhases JSON.
#include "src/ir/compile_phases.h"

#include <cmath>
#include <string>

namespace mmdiff {

std::span<const CompilePhaseField> CompilePhaseFields() {
  static constexpr CompilePhaseField kFields[] = {
      {"dynamo", &CompilePhases::dynamo},
      {"aot_autograd", &CompilePhases::aot_autograd},
      {"inductor_lowering", &CompilePhases::inductor_lowering},
      {"inductor_codegen", &CompilePhases::inductor_codegen},
      {"cpp_compile", &CompilePhases::cpp_compile},
      {"inductor_other", &CompilePhases::inductor_other},
      {"run", &CompilePhases::run}};
  return kFields;
}

CompilePhases& CompilePhases::operator+=(const CompilePhases& o) {
  for (const CompilePhaseField& f : CompilePhaseFields()) this->*f.seconds += o.*f.seconds;
  return *this;
}

nlohmann::json CompilePhasesToJson(const CompilePhases& p) {
  nlohmann::json j = nlohmann::json::object();
  for (const CompilePhaseField& f : CompilePhaseFields()) j[f.name] = p.*f.seconds;
  return j;
}

Result<CompilePhases> CompilePhasesFromJson(const nlohmann::json& j) {
  if (!j.is_object()) return Status::Error("compile phases must be an object");
  CompilePhases p;
  size_t known = 0;
  for (const CompilePhaseField& f : CompilePhaseFields()) {
    if (!j.contains(f.name)) continue;
    const nlohmann::json& v = j.at(f.name);
    if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < 0)
      return Status::Error(std::string("compile phase \"") + f.name +
                           "\" must be a finite number of seconds >= 0");
    p.*f.seconds = v.get<double>();
    ++known;
  }
  if (known != j.size()) return Status::Error("compile phases: an unknown part");
  return p;
}

}  // namespace mmdiff
