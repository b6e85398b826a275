// The known-behaviour catalogue.
#include "src/report/known.h"

#include <algorithm>
#include <filesystem>
#include <tuple>

#include "oracles/judge.h"
#include "oracles/root_cause.h"
#include "src/ir/recorded_paths.h"
#include "src/report/regression_entry.h"
#include "src/report/report.h"
#include "src/support/files.h"
#include "src/support/json_limits.h"
#include "src/support/torch_version.h"

namespace mmdiff {

namespace fs = std::filesystem;

nlohmann::json KnownRecordToJson(const KnownRecord& k) {
  nlohmann::json j = {{"title", k.title}, {"source", k.source}};
  if (!k.upstream.empty()) j["upstream"] = k.upstream;
  return j;
}

Result<KnownRecord> KnownRecordFromJson(const nlohmann::json& j) {
  if (!j.is_object()) return Status::Error("\"known\" must be an object");
  KnownRecord k;
  for (auto [key, field, required] :
       {std::tuple{"title", &k.title, true}, std::tuple{"source", &k.source, true},
        std::tuple{"upstream", &k.upstream, false}}) {
    if (!j.contains(key)) {
      if (required) return Status::Error(std::string("\"known\" has no \"") + key + "\"");
      continue;
    }
    if (!j[key].is_string())
      return Status::Error(std::string("\"known\".\"") + key + "\" must be a string");
    *field = j[key].get<std::string>();
  }
  return k;
}

void KnownCatalogue::Add(KnownCause k) {
  if (std::find(sources_.begin(), sources_.end(), k.source) == sources_.end())
    sources_.push_back(k.source);
  by_signature_.emplace(k.signature, std::move(k));
}

const KnownCause* KnownCatalogue::Find(const std::string& signature) const {
  auto it = by_signature_.find(signature);
  if (it != by_signature_.end()) return &it->second;
  // An entry records a raising path's divergence kind, not its error class ("raises:?"): a case's
  // "raises:RuntimeError" is that entry too.
  const std::string tag = "|raises:";
  size_t at = signature.find(tag);
  if (at == std::string::npos) return nullptr;
  size_t end = signature.find('|', at + tag.size());
  std::string any = signature.substr(0, at + tag.size()) + "?" +
                    (end == std::string::npos ? "" : signature.substr(end));
  it = by_signature_.find(any);
  return it == by_signature_.end() ? nullptr : &it->second;
}

namespace {

// Whether an expected divergence restates eager's own finding listed beside it (its contract
// divergence, or its backward error): as Findings folds it, no root cause of its own. A divergence
// blamed on eager there is another path following the contract against eager; an unblamed one, or
// eager_meta's, where the contract names eager's deviation from the rule or eager raised in a
// backward, another path breaking the rule too.
bool RestatesEagersFinding(const Expectation& contract, const VersionExpectation& x,
                           const ExpectedDivergence& d) {
  if (d.kind == "contract" || (d.kind == "backward_error" && d.blamed == kEagerPath)) return false;
  auto listed = [&](const char* kind, bool blamed_on_eager) {
    return std::any_of(x.divergences.begin(), x.divergences.end(), [&](const auto& o) {
      return o.kind == kind && (!blamed_on_eager || o.blamed == kEagerPath);
    });
  };
  bool eager_backward = listed("backward_error", true);
  if (!listed("contract", false) && !eager_backward) return false;
  bool deviation = contract.rejects && !contract.violation.eager_deviation.empty();
  return d.blamed == kEagerPath ||
         ((deviation || eager_backward) && (d.blamed.empty() || d.kind == "meta"));
}

// The release whose contract an expectation was judged by: the lower bound of its torch range
// (">=2.11.0,<2.12.0" -> 2.11, "==2.15.0" -> 2.15), else this build's. The contract differs by
// release (addmv's bias before 2.12 is eager's deviation, after it every path raises), and an
// expectation's divergences are what that release's judgement gave.
TorchRelease ExpectationRelease(const std::string& range) {
  auto low = TorchRangeLowerBound(range);  // ParseRegressionEntry checked the range
  if (!low.ok() || !low.value()) return BuildTorchRelease();
  return TorchRelease{low.value()->major, low.value()->minor};
}

std::vector<KnownCause> FromEntry(const RegressionEntry& e, const std::string& path) {
  std::vector<KnownCause> out;
  for (const auto& x : e.expected) {
    const Expectation contract = Expect(e.program, ExpectationRelease(x.torch));
    for (const auto& d : x.divergences) {
      auto kind = ParseDivergenceKind(d.kind);
      if (!kind) continue;  // ParseRegressionEntry admits known kinds only
      if (RestatesEagersFinding(contract, x, d)) continue;
      RootCauseFacts facts = ExpectedFacts(contract, *kind, d.blamed, RecordedPathTraits(d.blamed));
      facts.nan = d.nan;
      facts.error_mark = d.error_mark;
      const std::string behaviour = facts.behaviour;
      const bool signs_fusions = SignsAttentionFusions(contract, *kind, behaviour);
      // The entry's own fusions, then those it names alike: the same fault in their replacements.
      std::vector<std::string> fusions = {signs_fusions ? d.fused : ""};
      if (signs_fusions && !d.fused.empty())
        fusions.insert(fusions.end(), d.fused_alike.begin(), d.fused_alike.end());
      std::vector<std::string> sigs;
      for (const std::string& fused : fusions) {
        facts.fused = fused;
        facts.behaviour = behaviour;
        sigs.push_back(RootCauseSignature(e.program, contract, facts));
        // An entry records a value divergence's kind, not which result it was in: in a training
        // program it may be a gradient's (signed grad_values), so it names both. So does a fused
        // one: a replacement's wrong arguments (a scale, a mask) show in its gradients too, alone
        // where the forward stays within its bound (a near-uniform softmax hides a wrong scale).
        if (*kind == DivergenceKind::kValue && (Trains(e.program) || !fused.empty())) {
          facts.behaviour = "grad_values";
          sigs.push_back(RootCauseSignature(e.program, contract, facts));
        }
      }
      for (const auto& sig : sigs)
        if (std::none_of(out.begin(), out.end(),
                         [&](const KnownCause& k) { return k.signature == sig; }))
          out.push_back({sig, e.title, e.upstream, path});
    }
  }
  return out;
}

}  // namespace

Result<std::vector<KnownCause>> ReadKnownFile(const std::string& path) {
  auto text = ReadFile(path);
  if (!text.ok()) return Status::Error(path + ": " + text.error());
  auto parsed = ParseJsonBounded(text.value());
  if (!parsed.ok()) return Status::Error(path + ": " + parsed.error());
  const nlohmann::json& j = parsed.value();
  std::string format = j.is_object() && j.contains("format") && j["format"].is_string()
                           ? j["format"].get<std::string>()
                           : "";
  if (format == "mmdiff.regression") {
    auto e = ParseRegressionEntry(text.value());
    if (!e.ok()) return Status::Error(path + ": " + e.error());
    return FromEntry(e.value(), path);
  }
  if (format == "mmdiff.report") {
    auto c = ReadJudgedCase(j);
    if (!c.ok()) return Status::Error(path + ": " + c.error());
    std::string title = j.contains("headline") && j["headline"].is_string()
                            ? j["headline"].get<std::string>()
                            : path;
    std::vector<KnownCause> out;
    for (const auto& sig : ReportRootCauses(c.value())) out.push_back({sig, title, "", path});
    return out;
  }
  return Status::Error(
      path +
      ": not a regression entry or report (\"format\" must be \"mmdiff.regression\" or "
      "\"mmdiff.report\")");
}

Result<KnownCatalogue> LoadKnownCatalogue(const std::vector<std::string>& paths) {
  KnownCatalogue cat;
  for (const auto& p : paths) {
    std::error_code ec;
    if (fs::is_directory(p, ec)) {
      std::vector<std::string> files;
      for (auto it = fs::recursive_directory_iterator(
               p, fs::directory_options::skip_permission_denied, ec);
           !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
        if (it->is_regular_file(ec) && it->path().extension() == ".json")
          files.push_back(it->path().string());
      std::sort(files.begin(), files.end());
      for (const auto& f : files) {
        auto known = ReadKnownFile(f);
        if (!known.ok()) {
          // A folder may hold programs, summaries and other JSON; a broken entry or report is an
          // error.
          auto text = ReadFile(f);
          auto parsed =
              text.ok() ? ParseJsonBounded(text.value()) : Result<nlohmann::json>(text.status());
          nlohmann::json j = parsed.ok() ? parsed.value() : nlohmann::json();
          bool claims =
              j.is_object() && (j.value("format", nlohmann::json()) == "mmdiff.regression" ||
                                j.value("format", nlohmann::json()) == "mmdiff.report");
          if (claims) return known.status();
          continue;
        }
        for (auto& k : known.value()) cat.Add(std::move(k));
      }
    } else if (fs::is_regular_file(p, ec)) {
      auto known = ReadKnownFile(p);
      if (!known.ok()) return known.status();
      for (auto& k : known.value()) cat.Add(std::move(k));
    } else {
      return Status::Error(p + ": no such file or folder");
    }
  }
  return cat;
}

}  // namespace mmdiff
