// Verdict JSON.
#include "oracles/verdict.h"

#include <cmath>

namespace mmdiff {

std::string_view DivergenceKindName(DivergenceKind k) {
  switch (k) {
    case DivergenceKind::kErrorBehaviour: return "error_behaviour";
    case DivergenceKind::kErrorClass: return "error_class";
    case DivergenceKind::kDType: return "dtype";
    case DivergenceKind::kShape: return "shape";
    case DivergenceKind::kDevice: return "device";
    case DivergenceKind::kValue: return "value";
    case DivergenceKind::kContract: return "contract";
    case DivergenceKind::kCrash: return "crash";
    case DivergenceKind::kTimeout: return "timeout";
    case DivergenceKind::kMeta: return "meta";
  }
  return "?";
}

namespace {
// JSON has no NaN or infinity: write those as strings.
nlohmann::json Num(double x) {
  if (std::isnan(x)) return "nan";
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  return x;
}
}  // namespace

std::string BlameLabel(const Divergence& d) {
  if (d.blamed.empty()) return "";
  return " [blamed: " + d.blamed + (d.classification.empty() ? "" : ", " + d.classification) + "]";
}

nlohmann::json VerdictToJson(const Verdict& v) {
  nlohmann::json j = {{"result", v.diverges() ? "diverge" : "agree"}, {"divergences", nlohmann::json::array()}};
  for (const auto& d : v.divergences) {
    nlohmann::json jd = {{"kind", DivergenceKindName(d.kind)},
                         {"paths", d.paths},
                         {"blamed", d.blamed},
                         {"detail", d.detail}};
    if (d.kind == DivergenceKind::kValue) {
      jd["worst"] = {{"output", d.output}, {"element", d.element}, {"got", Num(d.got)},
                     {"expected", Num(d.expected)}, {"allowed_error", Num(d.allowed)}};
      if (d.path_rmse >= 0) jd["rmse"] = {{"eager", Num(d.eager_rmse)}, {"path", Num(d.path_rmse)}};
    }
    if (!d.classification.empty()) jd["classification"] = d.classification;
    j["divergences"].push_back(jd);
  }
  if (!v.notes.empty()) j["notes"] = v.notes;
  return j;
}

}  // namespace mmdiff
