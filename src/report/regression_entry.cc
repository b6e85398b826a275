// Regression entries.
#include "src/report/regression_entry.h"

#include <fstream>
#include <set>
#include <sstream>

#include "oracles/root_cause.h"
#include "src/ir/program_json.h"
#include "src/ir/verifier.h"
#include "src/support/format_version.h"
#include "src/support/json_guard.h"
#include "src/support/json_limits.h"
#include "src/support/torch_version.h"

namespace mmdiff {

Status CheckRegressionEntryFormat(const nlohmann::json& j) {
  if (!j.is_object() || !j.contains("format") || j["format"] != "mmdiff.regression")
    return Status::Error("not a regression entry: \"format\" must be \"mmdiff.regression\"");
  return ReadFormatVersion(j, "regression entry", kOldestRegressionFormatVersion,
                           kRegressionFormatVersion)
      .status();
}

namespace {

// A divergence's "fused_alike": whole attention fusion patterns, beside its "fused" only.
Result<std::vector<std::string>> FusedAlike(const nlohmann::json& d, const std::string& fused) {
  std::vector<std::string> alike;
  if (!d.contains("fused_alike")) return alike;
  const nlohmann::json& a = d["fused_alike"];
  if (fused.empty() || !a.is_array() || a.size() > 64)
    return Status::Error(
        "\"fused_alike\" must be an array of at most 64 attention fusion patterns, beside "
        "\"fused\"");
  for (const auto& item : a) {
    const std::string name = item.is_string() ? item.get<std::string>() : "";
    if (name.empty() || AttentionFusionPattern(name) != name)
      return Status::Error(
          "\"fused_alike\" must name attention fusion patterns, e.g. \"_sfdp_pattern_20\"");
    alike.push_back(name);
  }
  return alike;
}

Result<RegressionEntry> ParseRegressionEntryUnguarded(const std::string& text) {
  auto parsed = ParseJsonBounded(text);
  if (!parsed.ok()) return parsed.status();
  const nlohmann::json& j = parsed.value();
  if (Status s = CheckRegressionEntryFormat(j); !s.ok()) return s;
  for (const char* key : {"title", "found_by", "issue", "upstream"})
    if (j.contains(key) && !j[key].is_string())
      return Status::Error(std::string("\"") + key + "\" must be a string");
  RegressionEntry e;
  e.title = j.value("title", "");
  e.upstream = j.value("upstream", "");
  auto p = ProgramFromJson(j.value("program", nlohmann::json()));
  if (!p.ok()) return Status::Error("program: " + p.error());
  if (Status s = Verify(p.value()); !s.ok()) return Status::Error("program: " + s.message());
  e.program = p.value();
  auto r = RecipeFromJson(j.value("inputs", nlohmann::json()));
  if (!r.ok()) return r.status();
  e.recipe = r.value();
  auto before = PriorCallsFromJson(
      j.contains("calls_before") ? j["calls_before"] : nlohmann::json(), e.program);
  if (!before.ok()) return before.status();
  e.before = before.value();
  if (!j.contains("paths") || !j["paths"].is_array() || j["paths"].empty())
    return Status::Error("\"paths\" must be a non-empty array");
  for (const auto& x : j["paths"]) {
    if (!x.is_string()) return Status::Error("\"paths\" must hold strings");
    e.paths.push_back(x);
  }
  if (!j.contains("expected") || !j["expected"].is_array())
    return Status::Error("\"expected\" must be an array");
  for (const auto& x : j["expected"]) {
    if (!x.is_object() || !x.contains("torch") || !x["torch"].is_string() || !x.contains("verdict"))
      return Status::Error("each expectation needs \"torch\" and \"verdict\"");
    VersionExpectation ve;
    ve.torch = x["torch"];
    if (x["verdict"] != "agree" && x["verdict"] != "diverge")
      return Status::Error("expectation for torch " + ve.torch +
                           ": verdict must be \"agree\" or \"diverge\"");
    ve.diverges = x["verdict"] == "diverge";
    if (x.contains("note") && !x["note"].is_string())
      return Status::Error("expectation note must be a string");
    ve.note = x.value("note", "");
    if (x.contains("cpu_flags")) {
      if (!x["cpu_flags"].is_array())
        return Status::Error("expectation for torch " + ve.torch +
                             ": \"cpu_flags\" must be an array");
      for (const auto& f : x["cpu_flags"]) {
        if (!f.is_string())
          return Status::Error("expectation for torch " + ve.torch +
                               ": \"cpu_flags\" must hold strings");
        ve.cpu_flags.push_back(f);
      }
    }
    if (auto check = TorchVersionInRange("0.0.0", ve.torch); !check.ok())
      return Status::Error("expectation \"torch\": " + check.error());
    if (x.contains("divergences") && !x["divergences"].is_array())
      return Status::Error("expectation for torch " + ve.torch +
                           ": \"divergences\" must be an array");
    for (const auto& d : x.value("divergences", nlohmann::json::array())) {
      if (!d.is_object() || !d.contains("kind") || !d["kind"].is_string() ||
          (d.contains("blamed") && !d["blamed"].is_string()) ||
          (d.contains("nan") && !d["nan"].is_boolean()) ||
          (d.contains("fused") && !d["fused"].is_string()) ||
          (d.contains("error_mark") && !d["error_mark"].is_string()) ||
          (d.contains("epilogues_alike") && !d["epilogues_alike"].is_boolean()))
        return Status::Error("expectation for torch " + ve.torch +
                             ": each divergence needs a string \"kind\" (and \"blamed\", "
                             "\"fused\" and \"error_mark\", if given, strings; \"nan\" and "
                             "\"epilogues_alike\", if given, true or false)");
      std::string mark = d.value("error_mark", "");
      if (!mark.empty() && !KnownCompilerErrorMark(mark))
        return Status::Error("expectation for torch " + ve.torch +
                             ": \"error_mark\" must be a known mark (\"graph_order\"), not \"" +
                             mark.substr(0, 40) + "\"");
      std::string kind = d["kind"];
      if (!ParseDivergenceKind(kind))
        return Status::Error("expectation for torch " + ve.torch + ": unknown divergence kind \"" +
                             kind + "\"");
      std::string fused = d.value("fused", "");
      if (!fused.empty() && !AttentionFusionPatterns(fused))
        return Status::Error("expectation for torch " + ve.torch +
                             ": \"fused\" must name attention fusion patterns, e.g. "
                             "\"_sfdp_pattern_5\" or \"_sfdp_pattern_5,_sfdp_pattern_6\"");
      auto alike = FusedAlike(d, fused);
      if (!alike.ok())
        return Status::Error("expectation for torch " + ve.torch + ": " + alike.error());
      ve.divergences.push_back({kind, d.value("blamed", ""), d.value("nan", false), fused,
                                alike.value(), mark, d.value("epilogues_alike", false)});
    }
    e.expected.push_back(ve);
  }
  return e;
}
}  // namespace

Result<RegressionEntry> ParseRegressionEntry(const std::string& text) {
  return GuardJson("regression entry", [&] { return ParseRegressionEntryUnguarded(text); });
}

std::optional<size_t> ExpectationIndexFor(const std::vector<VersionExpectation>& expected,
                                          const std::string& torch_version) {
  for (size_t i = 0; i < expected.size(); ++i) {
    auto in = TorchVersionInRange(torch_version, expected[i].torch);
    if (in.ok() && in.value()) return i;
  }
  return std::nullopt;
}

std::optional<VersionExpectation> ExpectationFor(const RegressionEntry& e,
                                                 const std::string& torch_version) {
  auto at = ExpectationIndexFor(e.expected, torch_version);
  if (!at) return std::nullopt;
  return e.expected[*at];
}

std::vector<std::string> MissingCpuFlags(const VersionExpectation& e) {
  static const std::set<std::string> have = [] {
    std::set<std::string> flags;
    std::ifstream in("/proc/cpuinfo");
    for (std::string line; std::getline(in, line);) {
      if (line.rfind("flags", 0) != 0) continue;
      std::istringstream words(line.substr(line.find(':') + 1));
      for (std::string w; words >> w;) flags.insert(w);
      break;
    }
    return flags;
  }();
  std::vector<std::string> missing;
  for (const auto& f : e.cpu_flags)
    if (!have.count(f)) missing.push_back(f);
  return missing;
}

std::string CompareWithExpectation(const Verdict& v, const VersionExpectation& e) {
  if (v.diverges() != e.diverges)
    return std::string("expected ") + (e.diverges ? "diverge" : "agree") + ", got " +
           (v.diverges() ? "diverge" : "agree");
  for (const auto& want : e.divergences) {
    bool found = false;
    for (const auto& d : v.divergences)
      found |= DivergenceKindName(d.kind) == want.kind &&
               (want.blamed.empty() || d.blamed == want.blamed);
    if (!found)
      return "expected a " + want.kind + " divergence blamed on " +
             (want.blamed.empty() ? "any path" : want.blamed);
  }
  return "";
}

}  // namespace mmdiff
