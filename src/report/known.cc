// The known-behaviour catalogue.
#include "src/report/known.h"

#include <algorithm>
#include <filesystem>
#include <tuple>

#include "oracles/judge.h"
#include "oracles/root_cause.h"
#include "src/ir/op.h"
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
  if (!k.standing.empty()) j["standing"] = k.standing;
  if (!k.why.empty()) j["why"] = k.why;
  return j;
}

Result<KnownRecord> KnownRecordFromJson(const nlohmann::json& j) {
  if (!j.is_object()) return Status::Error("\"known\" must be an object");
  KnownRecord k;
  for (auto [key, field, required] :
       {std::tuple{"title", &k.title, true}, std::tuple{"source", &k.source, true},
        std::tuple{"upstream", &k.upstream, false}, std::tuple{"standing", &k.standing, false},
        std::tuple{"why", &k.why, false}}) {
    if (!j.contains(key)) {
      if (required) return Status::Error(std::string("\"known\" has no \"") + key + "\"");
      continue;
    }
    if (!j[key].is_string())
      return Status::Error(std::string("\"known\".\"") + key + "\" must be a string");
    *field = j[key].get<std::string>();
  }
  if (k.standing != "" && k.standing != KnownStandingName(KnownStanding::kBack) &&
      k.standing != KnownStandingName(KnownStanding::kNoExpectation))
    return Status::Error("\"known\".\"standing\" must be \"back\" or \"no_expectation\", not " +
                         nlohmann::json(k.standing).dump());
  return k;
}

const char* KnownStandingName(KnownStanding s) {
  switch (s) {
    case KnownStanding::kClaims:
      return "";
    case KnownStanding::kBack:
      return "back";
    case KnownStanding::kNoExpectation:
      return "no_expectation";
  }
  return "";
}

KnownStanding KnownCause::StandingOn(const std::string& torch, std::string* why) const {
  if (why) why->clear();
  // A report's root cause, or a release nobody recorded: claimed as seen.
  if (!expected || torch.empty()) return KnownStanding::kClaims;
  // The ranges, for `why` only: a campaign asks for a standing on every finding.
  auto elsewhere = [&] {
    std::string ranges;
    for (size_t i : expecting) ranges += (ranges.empty() ? "" : "; ") + (*expected)[i].torch;
    return "this divergence on " + ranges;
  };
  const std::optional<size_t> here = ExpectationIndexFor(*expected, torch);
  if (!here) {
    if (why) {
      std::string all;
      for (const auto& x : *expected) all += (all.empty() ? "" : "; ") + x.torch;
      *why =
          "has no expectation for torch " + torch + " (it covers " + all + "; " + elsewhere() + ")";
    }
    return KnownStanding::kNoExpectation;
  }
  const VersionExpectation& x = (*expected)[*here];
  const bool lists = std::find(expecting.begin(), expecting.end(), *here) != expecting.end();
  const std::vector<std::string> missing = MissingCpuFlags(x);
  if (lists && missing.empty()) return KnownStanding::kClaims;
  if (lists) {
    std::string flags;
    for (const auto& f : missing) flags += (flags.empty() ? "" : ", ") + f;
    if (why)
      *why = "expects this divergence on torch " + torch + " only on a CPU with " + flags +
             ", which this one lacks";
    return KnownStanding::kNoExpectation;
  }
  if (why)
    *why = std::string("expects ") + (x.divergences.empty() ? "agreement" : "other divergences") +
           " on torch " + torch + " (" + x.torch + "); " + elsewhere();
  return KnownStanding::kBack;
}

KnownRecord KnownCause::Record(const std::string& torch) const {
  KnownRecord r{title, upstream, source, "", ""};
  r.standing = KnownStandingName(StandingOn(torch, &r.why));
  return r;
}

void KnownCatalogue::Add(KnownCause k) {
  if (std::find(sources_.begin(), sources_.end(), k.source) == sources_.end())
    sources_.push_back(k.source);
  by_signature_[k.signature].push_back(std::move(k));
}

const std::vector<KnownCause>* KnownCatalogue::Matching(const std::string& signature) const {
  auto it = by_signature_.find(signature);
  return it == by_signature_.end() ? nullptr : &it->second;
}

namespace {

// For a raising path's signature, the one an entry records it under: its divergence kind, not its
// error class ("raises:?"); "" for another signature.
std::string AnyErrorClass(const std::string& signature) {
  const std::string tag = "|raises:";
  size_t at = signature.find(tag);
  if (at == std::string::npos) return "";
  size_t end = signature.find('|', at + tag.size());
  return signature.substr(0, at + tag.size()) + "?" +
         (end == std::string::npos ? "" : signature.substr(end));
}

}  // namespace

const KnownCause* KnownCatalogue::Find(const std::string& signature,
                                       const std::string& torch) const {
  for (const std::string& key : {signature, AnyErrorClass(signature)})
    if (const auto* causes = key.empty() ? nullptr : Matching(key))
      for (const KnownCause& k : *causes)
        if (k.StandingOn(torch) == KnownStanding::kClaims) return &k;
  return nullptr;
}

std::optional<KnownRecord> KnownCatalogue::Unclaimed(const std::string& signature,
                                                     const std::string& torch) const {
  if (Find(signature, torch)) return std::nullopt;
  std::optional<KnownRecord> none_here;
  for (const std::string& key : {signature, AnyErrorClass(signature)})
    if (const auto* causes = key.empty() ? nullptr : Matching(key))
      for (const KnownCause& k : *causes) {
        KnownRecord r = k.Record(torch);
        if (r.standing == KnownStandingName(KnownStanding::kBack)) return r;
        if (!none_here) none_here = r;
      }
  return none_here;
}

std::string DescribeCatalogueMatch(const KnownCatalogue& catalogue, const std::string& signature,
                                   const std::string& torch) {
  if (const KnownCause* k = catalogue.Find(signature, torch))
    return "known: " + k->title + " (" + k->source + ")";
  if (auto u = catalogue.Unclaimed(signature, torch))
    return std::string(u->standing == KnownStandingName(KnownStanding::kBack)
                           ? "known bug back, or a fix that misses this form: "
                           : "not claimed: ") +
           u->source + " " + u->why;
  return "";
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

// The facts an entry's divergence records, as a finding of its kind on the entry's program would
// have them: the path and behaviour, its NaN and its compiler error mark.
RootCauseFacts EntryFacts(const Expectation& contract, DivergenceKind kind,
                          const ExpectedDivergence& d) {
  RootCauseFacts facts = ExpectedFacts(contract, kind, d.blamed, RecordedPathTraits(d.blamed));
  facts.nan = d.nan;
  facts.error_mark = d.error_mark;
  return facts;
}

// The signatures of `program` with each pointwise epilogue in place of its own (every epilogue
// node takes it), for an entry's divergence that shows whatever the epilogue: those whose contract
// still accepts the program.
std::vector<std::string> EpiloguesAlike(const Program& program, const VersionExpectation& x,
                                        DivergenceKind kind, const ExpectedDivergence& d) {
  std::vector<std::string> out;
  for (OpKind epilogue : AllOpKinds()) {
    if (!IsUnaryEpilogue(epilogue)) continue;
    Program alike = program;
    for (Node& n : alike.nodes)
      if (IsUnaryEpilogue(n.op)) n.op = epilogue;
    const Expectation contract = Expect(alike, ExpectationRelease(x.torch));
    if (contract.rejects) continue;
    out.push_back(RootCauseSignature(alike, contract, EntryFacts(contract, kind, d)));
  }
  return out;
}

std::vector<KnownCause> FromEntry(const RegressionEntry& e, const std::string& path) {
  std::vector<KnownCause> out;
  auto expected = std::make_shared<const std::vector<VersionExpectation>>(e.expected);
  for (size_t at = 0; at < e.expected.size(); ++at) {
    const VersionExpectation& x = e.expected[at];
    const Expectation contract = Expect(e.program, ExpectationRelease(x.torch));
    for (const auto& d : x.divergences) {
      auto kind = ParseDivergenceKind(d.kind);
      if (!kind) continue;  // ParseRegressionEntry admits known kinds only
      if (RestatesEagersFinding(contract, x, d)) continue;
      RootCauseFacts facts = EntryFacts(contract, *kind, d);
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
      if (d.epilogues_alike)
        for (const std::string& sig : EpiloguesAlike(e.program, x, *kind, d)) sigs.push_back(sig);
      for (const auto& sig : sigs) {
        auto same = std::find_if(out.begin(), out.end(),
                                 [&](const KnownCause& k) { return k.signature == sig; });
        if (same == out.end())
          out.push_back({sig, e.title, e.upstream, path, expected, {at}});
        else if (same->expecting.back() != at)
          same->expecting.push_back(at);
      }
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
    for (const auto& sig : ReportRootCauses(c.value()))
      out.push_back({sig, title, "", path, nullptr, {}});
    return out;
  }
  return Status::Error(
      path +
      ": not a regression entry or report (\"format\" must be \"mmdiff.regression\" or "
      "\"mmdiff.report\")");
}

Result<KnownCatalogue> LoadKnownCatalogue(const std::vector<std::string>& paths,
                                          const std::string& torch) {
  KnownCatalogue cat(torch);
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
