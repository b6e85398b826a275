// Verdict JSON.
#include "oracles/verdict.h"

#include <algorithm>
#include <cmath>

#include "src/ir/paths.h"
#include "src/support/json_guard.h"

namespace mmdiff {

std::string_view DivergenceKindName(DivergenceKind k) {
  switch (k) {
    case DivergenceKind::kErrorBehaviour:
      return "error_behaviour";
    case DivergenceKind::kBackwardError:
      return "backward_error";
    case DivergenceKind::kErrorClass:
      return "error_class";
    case DivergenceKind::kDType:
      return "dtype";
    case DivergenceKind::kShape:
      return "shape";
    case DivergenceKind::kDevice:
      return "device";
    case DivergenceKind::kValue:
      return "value";
    case DivergenceKind::kContract:
      return "contract";
    case DivergenceKind::kCrash:
      return "crash";
    case DivergenceKind::kTimeout:
      return "timeout";
    case DivergenceKind::kMeta:
      return "meta";
    case DivergenceKind::kIgnoredInput:
      return "ignored_input";
  }
  return "?";
}

std::optional<DivergenceKind> ParseDivergenceKind(std::string_view name) {
  for (DivergenceKind k : {DivergenceKind::kErrorBehaviour, DivergenceKind::kBackwardError,
                           DivergenceKind::kErrorClass, DivergenceKind::kDType,
                           DivergenceKind::kShape, DivergenceKind::kDevice, DivergenceKind::kValue,
                           DivergenceKind::kContract, DivergenceKind::kMeta, DivergenceKind::kCrash,
                           DivergenceKind::kTimeout, DivergenceKind::kIgnoredInput})
    if (DivergenceKindName(k) == name) return k;
  return std::nullopt;
}

int DivergenceSeverity(DivergenceKind k) {
  switch (k) {
    case DivergenceKind::kCrash:
    case DivergenceKind::kTimeout:
      return 5;
    case DivergenceKind::kErrorBehaviour:
    case DivergenceKind::kBackwardError:
      return 4;
    case DivergenceKind::kErrorClass:
      return 3;
    case DivergenceKind::kDType:
    case DivergenceKind::kShape:
    case DivergenceKind::kDevice:
    case DivergenceKind::kMeta:
      return 2;
    case DivergenceKind::kValue:
    case DivergenceKind::kIgnoredInput:
      return 1;
    case DivergenceKind::kContract:
      return 0;
  }
  return 0;
}

void OrderDivergences(Verdict& v) {
  std::stable_sort(v.divergences.begin(), v.divergences.end(),
                   [](const Divergence& a, const Divergence& b) {
                     int sa = DivergenceSeverity(a.kind), sb = DivergenceSeverity(b.kind);
                     if (sa != sb) return sa > sb;
                     return (a.classification == "filable") > (b.classification == "filable");
                   });
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
  nlohmann::json j = {{"result", v.diverges() ? "diverge" : "agree"},
                      {"divergences", nlohmann::json::array()}};
  for (const auto& d : v.divergences) {
    nlohmann::json jd = {{"kind", DivergenceKindName(d.kind)},
                         {"paths", d.paths},
                         {"blamed", d.blamed},
                         {"detail", d.detail}};
    if (d.kind == DivergenceKind::kValue) {
      jd["worst"] = {{"output", d.output},
                     {"element", d.element},
                     {"got", Num(d.got)},
                     {"expected", Num(d.expected)},
                     {"allowed_error", Num(d.allowed)}};
      if (d.path_rmse >= 0) {
        // Eager's error and the path's, against the reference or its float64 run.
        jd["rmse"] = {{paths::kEager, Num(d.eager_rmse)}, {"path", Num(d.path_rmse)}};
        jd["rmse"]["against"] = d.rmse_float64 ? "float64" : paths::kReference;
      }
      if (d.diverging_elements >= 0)
        jd["elements"] = {{"diverging", d.diverging_elements},
                          {"nan_reference", d.nan_reference_elements}};
    }
    if (d.kind == DivergenceKind::kDType || d.kind == DivergenceKind::kShape ||
        d.kind == DivergenceKind::kDevice)
      if (d.output >= 0) jd["output"] = d.output;
    if (!d.classification.empty()) jd["classification"] = d.classification;
    j["divergences"].push_back(jd);
  }
  if (!v.notes.empty()) j["notes"] = v.notes;
  return j;
}

namespace {
double NumFrom(const nlohmann::json& j) {
  if (j.is_number()) return j.get<double>();
  if (j == "nan") return NAN;
  if (j == "inf") return INFINITY;
  if (j == "-inf") return -INFINITY;
  return 0;
}
// An output index from a file: in int's range or not taken (no narrowing to another index).
bool OutputIndex(const nlohmann::json& v) {
  return v.is_number_integer() && v >= -1 && v <= 1 << 20;
}
}  // namespace

Result<Verdict> VerdictFromJson(const nlohmann::json& j) {
  Verdict v;
  if (!j.is_object() || !j.contains("divergences") || !j["divergences"].is_array())
    return Status::Error("verdict: \"divergences\" must be an array");
  for (const auto& jd : j["divergences"]) {
    if (!jd.is_object()) return Status::Error("verdict: every divergence must be an object");
    auto kind = ParseDivergenceKind(StringField(jd, "kind"));
    if (!kind)
      return Status::Error("verdict: unknown divergence kind " +
                           (jd.contains("kind") ? jd["kind"].dump() : "(none)"));
    Divergence d{*kind};
    if (jd.contains("paths") && jd["paths"].is_array())
      for (const auto& p : jd["paths"])
        if (p.is_string()) d.paths.push_back(p.get<std::string>());
    d.blamed = StringField(jd, "blamed");
    d.detail = StringField(jd, "detail");
    d.classification = StringField(jd, "classification");
    if (jd.contains("output") && OutputIndex(jd["output"])) d.output = jd["output"].get<int>();
    if (jd.contains("worst") && jd["worst"].is_object()) {
      const auto& w = jd["worst"];
      if (w.contains("output") && OutputIndex(w["output"])) d.output = w["output"].get<int>();
      if (w.contains("element") && w["element"].is_number_integer())
        d.element = w["element"].get<int64_t>();
      if (w.contains("got")) d.got = NumFrom(w["got"]);
      if (w.contains("expected")) d.expected = NumFrom(w["expected"]);
      if (w.contains("allowed_error")) d.allowed = NumFrom(w["allowed_error"]);
    }
    // The RMSEs, against the reference or its float64 run (what precision-only was measured
    // against, which root causes read): both, non-negative, with what they were against, or none.
    if (jd.contains("rmse") && jd["rmse"].is_object()) {
      const auto& r = jd["rmse"];
      const std::string against = StringField(r, "against");
      const double path = r.contains("path") ? NumFrom(r["path"]) : -1;
      const double eager = r.contains(paths::kEager) ? NumFrom(r[paths::kEager]) : -1;
      if (!(path < 0) && !(eager < 0) && (against == "float64" || against == paths::kReference)) {
        d.path_rmse = path;
        d.eager_rmse = eager;
        d.rmse_float64 = against == "float64";
      }
    }
    // Counts from a file: both or neither, each in [0, 2^62], no more NaN-reference elements than
    // diverging ones.
    if (jd.contains("elements") && jd["elements"].is_object()) {
      const auto& e = jd["elements"];
      auto count = [&](const char* key) -> int64_t {
        return e.contains(key) && e[key].is_number_integer() && e[key].get<int64_t>() >= 0 &&
                       e[key].get<int64_t>() <= (int64_t{1} << 62)
                   ? e[key].get<int64_t>()
                   : -1;
      };
      int64_t all = count("diverging"), nan = count("nan_reference");
      if (all >= 0 && nan >= 0 && nan <= all) {
        d.diverging_elements = all;
        d.nan_reference_elements = nan;
      }
    }
    v.divergences.push_back(std::move(d));
  }
  if (j.contains("notes") && j["notes"].is_array())
    for (const auto& n : j["notes"])
      if (n.is_string()) v.notes.push_back(n.get<std::string>());
  return v;
}

}  // namespace mmdiff
