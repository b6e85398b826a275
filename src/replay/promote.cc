// Promotion of a report to a regression entry.
#include "src/replay/promote.h"

#include <algorithm>
#include <optional>
#include <set>
#include <string_view>

#include "oracles/root_cause.h"
#include "oracles/verdict.h"
#include "src/ir/program_json.h"
#include "src/report/regression_entry.h"
#include "src/report/report.h"
#include "src/support/json_guard.h"
#include "src/support/json_limits.h"
#include "src/support/torch_version.h"

namespace mmdiff {

namespace {

// Whether every character of s is in `allowed` and its length is 1 to max.
bool OnlyOf(const std::string& s, std::string_view allowed, size_t max) {
  if (s.empty() || s.size() > max) return false;
  for (char ch : s)
    if (allowed.find(ch) == std::string_view::npos) return false;
  return true;
}

constexpr std::string_view kNameChars = "abcdefghijklmnopqrstuvwxyz0123456789_";
constexpr std::string_view kHexChars = "0123456789abcdef";

// A file-name part made from data: what is not a name character becomes '_', at most 64 of them.
// PromoteReport has already rejected such values; this keeps a hand-made entry inside its folder.
std::string FileNamePart(std::string s) {
  if (s.size() > 64) s.resize(64);
  for (char& ch : s)
    if (kNameChars.find(ch) == std::string_view::npos) ch = '_';
  return s;
}

// The root-cause facts of divergence `index` of the report's judged case, where it reads back.
std::optional<RootCauseFacts> Facts(const Result<JudgedCase>& judged, size_t index) {
  if (!judged.ok() || index >= judged.value().verdict.divergences.size()) return std::nullopt;
  const JudgedCase& c = judged.value();
  return FindingFacts(c.contract, c.results, c.verdict, index);
}

}  // namespace

Result<nlohmann::json> PromoteReport(const std::string& report_text, const PromoteOptions& o) {
  auto parsed = ParseJsonBounded(report_text);
  if (!parsed.ok()) return parsed.status();
  const nlohmann::json& j = parsed.value();
  auto rc = ReadReportCase(j);
  if (!rc.ok()) return rc.status();
  const ReportCase& c = rc.value();
  nlohmann::json paths = c.paths;

  std::string torch = StringField(j.value("versions", nlohmann::json()), "torch");
  auto version = ParseTorchVersion(torch);
  if (!version.ok())
    return Status::Error(
        "report: \"versions\".\"torch\" must name the torch version the report was made with: " +
        version.error());
  const std::string core = TorchVersionString(version.value());
  std::string range = o.torch_range.empty() ? "==" + core : o.torch_range;
  auto check = TorchVersionInRange(core, range);
  if (!check.ok()) return Status::Error("--torch: " + check.error());
  if (!check.value())  // the report is the only evidence the expectation has
    return Status::Error("--torch: \"" + range + "\" does not contain the report's torch " + torch);

  const nlohmann::json verdict = j.value("verdict", nlohmann::json());
  std::string result = StringField(verdict, "result");
  if (result != "agree" && result != "diverge")
    return Status::Error("report: \"verdict\".\"result\" must be \"agree\" or \"diverge\"");
  nlohmann::json expectation = {{"torch", range}, {"verdict", result}};
  if (result == "diverge") {
    nlohmann::json divergences = nlohmann::json::array();
    std::set<std::pair<std::string, std::string>> seen;
    const auto judged = ReadJudgedCase(j);
    const nlohmann::json all = verdict.value("divergences", nlohmann::json::array());
    for (size_t index = 0; index < (all.is_array() ? all.size() : 0); ++index) {
      const nlohmann::json& d = all[index];
      std::string kind = StringField(d, "kind"), blamed = StringField(d, "blamed");
      if (kind.empty()) return Status::Error("report: every divergence needs a \"kind\"");
      // Both name the entry's file (PromotedFileName): a kind mmdiff knows, a path of the report.
      if (!ParseDivergenceKind(kind))
        return Status::Error("report: unknown divergence kind \"" + kind.substr(0, 64) + "\"");
      if (!blamed.empty() && (!OnlyOf(blamed, kNameChars, 32) ||
                              std::find(c.paths.begin(), c.paths.end(), blamed) == c.paths.end()))
        return Status::Error("report: a divergence blames \"" + blamed.substr(0, 64) +
                             "\", which is not one of the report's paths");
      if (seen.insert({kind, blamed}).second) {
        divergences.push_back({{"kind", kind}, {"blamed", blamed}});
        // A value divergence whose worst element is NaN where the reference is not: the entry
        // signs it as such (EagerBfloat16ProductNan).
        const nlohmann::json worst = d.value("worst", nlohmann::json());
        if (kind == "value" && worst.is_object() && worst.value("got", nlohmann::json()) == "nan" &&
            worst.value("expected", nlohmann::json()) != "nan")
          divergences.back()["nan"] = true;
        // The finding's divergence, of attention fusions: the entry signs it with them, as the
        // path at fault's rewrites name them (the signature may fold the patterns); an error with
        // a compiler defect's mark (CompilerErrorMark): with that mark.
        const nlohmann::json finding = j.value("finding", nlohmann::json());
        if (finding.is_object() && finding.value("divergence", nlohmann::json()) == index) {
          const std::optional<RootCauseFacts> facts = Facts(judged, index);
          if (facts && AttentionFusionPatterns(facts->fused))
            divergences.back()["fused"] = facts->fused;
          if (facts && !facts->error_mark.empty())
            divergences.back()["error_mark"] = facts->error_mark;
        }
      }
    }
    expectation["divergences"] = divergences;
  }
  std::string headline = StringField(j, "headline");
  std::string mmdiff_version = StringField(j["versions"], "mmdiff");
  expectation["note"] = o.note.empty() ? "observed on torch " + torch + " (mmdiff " +
                                             mmdiff_version + "): " + headline
                                       : o.note;

  std::string id = StringField(j, "id"), created = StringField(j, "created");
  if (!id.empty() && !OnlyOf(id, kHexChars, 64))
    return Status::Error("report: \"id\" must be a hexadecimal hash (at most 64 digits)");
  nlohmann::json entry = {
      {"format", "mmdiff.regression"},
      {"version", kRegressionFormatVersion},
      {"title", o.title.empty() ? headline.substr(0, 200) : o.title},
      {"found_by", "mmdiff promote of report " + id + " (created " + created + " with mmdiff " +
                       mmdiff_version + " on torch " + torch + ")"},
      {"promoted_from", {{"report", o.source}, {"id", id}, {"created", created}, {"torch", torch}}},
      {"program", ProgramToJson(c.program)},
      {"inputs", RecipeToJson(c.recipe)},
      {"calls_before", PriorCallsToJson(c.before)},
      {"paths", paths},
      {"expected", nlohmann::json::array({expectation})}};
  // What promote writes, replay must read.
  if (auto back = ParseRegressionEntry(entry.dump()); !back.ok())
    return Status::Error("the promoted entry does not parse: " + back.error());
  return entry;
}

std::string PromotedFileName(const nlohmann::json& entry) {
  std::string who = "agree", kind;
  const auto& x = entry["expected"][0];
  if (x.contains("divergences") && !x["divergences"].empty()) {
    const auto& d = x["divergences"][0];
    kind = d["kind"].get<std::string>();
    who = d["blamed"].get<std::string>().empty() ? "unblamed" : d["blamed"].get<std::string>();
  }
  std::string id = entry["promoted_from"]["id"].get<std::string>();
  return FileNamePart(who) + (kind.empty() ? "" : "-" + FileNamePart(kind)) + "-" +
         (id.empty() ? "report" : FileNamePart(id)) + ".json";
}

}  // namespace mmdiff
