// Finding, reading and merging campaigns and reports.
#include "src/triage/triage_input.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>

#include "oracles/root_cause_fold.h"
#include "src/releases/release_table.h"
#include "src/support/files.h"
#include "src/support/json_guard.h"
#include "src/support/json_limits.h"
#include "src/triage/report_facts.h"

namespace mmdiff::triage {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// Files found under the inputs, keyed by canonical path (so that a file reached twice counts
// once), with the path as the user's input spelled it.
struct Found {
  std::map<std::string, std::string> summaries;
  std::map<std::string, std::string> reports;
};

std::string Canonical(const fs::path& p) {
  std::error_code ec;
  fs::path c = fs::weakly_canonical(p, ec);
  return (ec ? p.lexically_normal() : c).string();
}

Status Discover(const std::string& input, Found& found) {
  std::error_code ec;
  fs::path root(input);
  auto st = fs::status(root, ec);
  if (!fs::exists(st)) return Status::Error("no such file or folder: " + input);
  auto add = [&](const fs::path& p) {
    std::string name = p.filename().string();
    auto& into = name == "summary.json" ? found.summaries : found.reports;
    into.try_emplace(Canonical(p), p.lexically_normal().string());
  };
  if (fs::is_regular_file(st)) {
    // A summary stands for its campaign folder, reports included.
    if (root.filename() == "summary.json")
      return Discover(root.parent_path().empty() ? "." : root.parent_path().string(), found);
    add(root);
    return Status::Ok();
  }
  if (!fs::is_directory(st)) return Status::Error("not a file or folder: " + input);
  // Follows folder links (shards gathered as links), entering each real folder once.
  bool any = false;
  std::set<std::string> entered = {Canonical(root)};
  fs::recursive_directory_iterator it(root,
                                      fs::directory_options::skip_permission_denied |
                                          fs::directory_options::follow_directory_symlink,
                                      ec);
  fs::recursive_directory_iterator end;
  if (ec) return Status::Error("cannot read folder " + input + ": " + ec.message());
  for (; it != end; it.increment(ec)) {
    if (ec) return Status::Error("cannot read folder " + input + ": " + ec.message());
    if (it->is_directory(ec)) {
      // A finding's reduced/ folder (mmdiff reduce, campaigns) is the same finding made smaller,
      // not another sighting of its bucket.
      bool reduced_copy = it->path().filename() == "reduced" &&
                          fs::exists(it->path().parent_path() / "report.json");
      if (reduced_copy || !entered.insert(Canonical(it->path())).second)
        it.disable_recursion_pending();
      continue;
    }
    std::string name = it->path().filename().string();
    if ((name == "summary.json" || name == "report.json") && it->is_regular_file(ec)) {
      add(it->path());
      any = true;
    }
  }
  if (!any)
    return Status::Error("no mmdiff campaign (summary.json) or report (report.json) under " +
                         input);
  return Status::Ok();
}

Result<json> ReadJson(const std::string& path) {
  auto text = ReadFile(path);
  if (!text.ok()) return text.status();
  auto j = ParseJsonBounded(text.value());
  if (!j.ok()) return Status::Error(j.error() + " (truncated?)");
  return j;
}

// Calls a reader, turning a JSON type error (a field of an unexpected type) into an error value.
template <typename T>
Result<T> Guarded(Result<T> (*read)(const json&), const json& j) {
  try {
    return read(j);
  } catch (const json::exception& e) {
    return Status::Error("a field has an unexpected type: " + std::string(e.what()));
  }
}

struct SummaryEntry {
  std::string hash, signature, headline, finding;
  std::string standalone;  // the standalone check's status (version 3), "" when none
  int64_t count = 0;
  std::optional<uint64_t> first_seed;
  std::optional<double> first_found_s;
  std::vector<std::string> rewrites;  // those its example reached
};

struct Summary {
  std::string shard;  // "i/n" for a shard of a campaign, "" otherwise
  int64_t cases = 0;
  double elapsed_s = 0;
  std::vector<SummaryEntry> buckets;
  RewriteCoverage rewrites;  // none in a summary of an earlier mmdiff
};

Result<Summary> ParseSummary(const json& j) {
  if (!j.is_object() || j.value("format", json()) != "mmdiff.fuzz-summary")
    return Status::Error(
        "not an mmdiff campaign summary (\"format\" must be \"mmdiff.fuzz-summary\")");
  // Version 2 buckets are root causes, version 3 adds each new one's standalone check; version 1
  // (an earlier mmdiff's) is read the same way.
  const json version = j.value("version", json());
  if (version != 1 && version != 2 && version != 3)
    return Status::Error("unsupported summary version " + version.dump() +
                         ": this mmdiff reads versions 1 to 3");
  if (!j.contains("buckets") || !j["buckets"].is_array())
    return Status::Error("missing field \"buckets\" (a list)");
  Summary s;
  if (j.contains("cases") && j["cases"].is_number_integer()) s.cases = j["cases"].get<int64_t>();
  if (j.contains("shard") && j["shard"].is_string()) s.shard = j["shard"].get<std::string>();
  if (j.contains("elapsed_s") && j["elapsed_s"].is_number())
    s.elapsed_s = j["elapsed_s"].get<double>();
  if (j.contains("rewrites")) {
    auto rewrites = RewriteCoverage::FromJson(j["rewrites"]);
    if (!rewrites.ok()) return rewrites.status();
    s.rewrites = rewrites.value();
  }
  for (size_t i = 0; i < j["buckets"].size(); ++i) {
    const json& b = j["buckets"][i];
    std::string where = "buckets[" + std::to_string(i) + "]";
    if (!b.is_object() || !b.contains("hash") || !b["hash"].is_string() ||
        b["hash"].get<std::string>().empty())
      return Status::Error(where + ": missing field \"hash\"");
    if (!b.contains("count") || !b["count"].is_number_integer() || b["count"].get<int64_t>() < 1)
      return Status::Error(where + ": \"count\" must be a positive integer");
    SummaryEntry e;
    e.hash = b["hash"].get<std::string>();
    e.count = b["count"].get<int64_t>();
    e.signature = b.value("signature", "");
    e.headline = b.value("headline", "");
    e.finding = b.value("finding", "findings/" + e.hash);
    if (b.contains("first_seed") && b["first_seed"].is_number_unsigned())
      e.first_seed = b["first_seed"].get<uint64_t>();
    if (b.contains("first_found_s") && b["first_found_s"].is_number())
      e.first_found_s = b["first_found_s"].get<double>();
    if (b.contains("standalone")) {
      const json& st = b["standalone"];
      std::string status = st.is_object() && st.contains("status") && st["status"].is_string()
                               ? st["status"].get<std::string>()
                               : "";
      for (const char* known : {"reproduced", "flaky", "not_reproduced", "not_checked"})
        if (status == known) e.standalone = known;
      if (e.standalone.empty())
        return Status::Error(where + ": \"standalone\" must name its status");
    }
    if (b.contains("rewrites")) {
      if (!b["rewrites"].is_array()) return Status::Error(where + ": \"rewrites\" must be a list");
      for (const json& r : b["rewrites"]) {
        if (!r.is_string() || !ValidRewriteName(r.get<std::string>()))
          return Status::Error(where + ": \"rewrites\" must list rewrite names");
        e.rewrites.push_back(r.get<std::string>());
      }
    }
    s.buckets.push_back(std::move(e));
  }
  return s;
}

class Loader {
 public:
  explicit Loader(TriageData& d) : d_(d) {}

  // Reads a report (of the bucket `hash`, when given, or of one of `sharing`: the buckets whose
  // summary entries name the same folder, which hold the smallest case of their common root
  // cause); on failure records it as skipped and returns null. A report is read once.
  const ReportFacts* Read(const std::string& shown, const std::string& hash = "",
                          const std::set<std::string>& sharing = {}) {
    auto j = ReadJson(shown);
    auto facts = j.ok() ? Guarded(ReadReportFacts, j.value()) : Result<ReportFacts>(j.status());
    if (facts.ok() && !hash.empty() && facts.value().hash != hash &&
        !sharing.count(facts.value().hash))
      facts = Status::Error("its bucket hash " + facts.value().hash +
                            " differs from the summary's " + hash);
    if (facts.ok() && read_.count(shown)) return read_[shown];
    if (!facts.ok()) {
      d_.skipped.push_back({shown, facts.error()});
      return nullptr;
    }
    ++d_.reports_read;
    // A finding's reduced case is what its root cause is signed by (the reduction narrows an error
    // on an accepted program to the op that raises it); the unreduced signature is the fallback.
    fs::path reduced = fs::path(shown).parent_path() / "reduced" / "report.json";
    std::error_code ec;
    if (fs::is_regular_file(reduced, ec)) {
      auto rj = ReadJson(reduced.string());
      auto rf = rj.ok() ? Guarded(ReadReportFacts, rj.value()) : Result<ReportFacts>(rj.status());
      if (rf.ok() && !rf.value().root_causes.empty()) {
        facts.value().root_causes = rf.value().root_causes, facts.value().reduced_root_cause = true;
        // ... and what it says names the op that fails, not the whole program.
        if (!rf.value().headline.empty()) facts.value().headline = rf.value().headline;
      } else
        d_.skipped.push_back(
            {reduced.string(), (rf.ok() ? std::string("no root cause") : rf.error()) +
                                   " (the bucket is signed by its unreduced case)"});
    }
    // What `mmdiff releases` found across torch releases, when it has been run on this finding.
    fs::path releases = fs::path(shown).parent_path() / "releases.json";
    if (fs::is_regular_file(releases, ec)) {
      auto hj = ReadJson(releases.string());
      auto h = hj.ok() ? GuardJson("releases.json", [&] { return FirstFindingHistory(hj.value()); })
                       : Result<ReleaseHistory>(hj.status());
      if (h.ok())
        facts.value().releases = h.value();
      else
        d_.skipped.push_back({releases.string(), h.error() + " (the releases line is left out)"});
    }
    d_.unplotted_errors += facts.value().unplotted_errors;
    d_.errors.insert(d_.errors.end(), facts.value().errors.begin(), facts.value().errors.end());
    facts_.push_back(std::make_unique<ReportFacts>(std::move(facts).value()));
    return read_[shown] = facts_.back().get();
  }

  // A sighting with the report's paths and program facts filled in.
  static Sighting SightingOf(const std::string& campaign, const std::string& report,
                             const ReportFacts* f) {
    Sighting s;
    s.campaign = campaign;
    if (!f) return s;
    s.report_path = report;
    std::error_code ec;
    fs::path repro = fs::path(report).parent_path() / (f->repro.empty() ? "repro.py" : f->repro);
    if (fs::is_regular_file(repro, ec)) s.repro_path = repro.string();
    s.program = f->program;
    s.first_seed = f->input_seed;
    return s;
  }

  // A report without a summary entry: one count.
  void AddLoose(const std::string& campaign, const std::string& report) {
    const ReportFacts* f = Read(report);
    if (f)
      MergeSighting(d_, f->hash, SightingOf(campaign, report, f), f, f->signature, f->headline);
  }

 private:
  TriageData& d_;
  std::vector<std::unique_ptr<ReportFacts>> facts_;
  std::map<std::string, const ReportFacts*> read_;  // by the path shown
};

// The nearest folder above `report` that holds a summary, or "".
std::string OwningCampaign(const std::string& report, const std::set<std::string>& campaign_dirs) {
  fs::path p = fs::path(report).parent_path();
  while (!p.empty()) {
    if (campaign_dirs.count(p.string())) return p.string();
    if (p == p.root_path() || p.parent_path() == p) break;
    p = p.parent_path();
  }
  return "";
}

}  // namespace

Result<TriageData> LoadTriageInputs(const std::vector<std::string>& inputs) {
  if (inputs.empty())
    return Status::Error(
        "no input given: name campaign folders, shard folders or report.json files");
  Found found;
  for (const auto& in : inputs) {
    Status s = Discover(in, found);
    if (!s.ok()) return s;
  }
  TriageData d;
  Loader loader(d);
  // Campaign folders (canonical -> as shown), and each one's reports.
  std::map<std::string, std::string> campaigns;
  for (const auto& [canon, shown] : found.summaries)
    campaigns.try_emplace(fs::path(canon).parent_path().string(),
                          fs::path(shown).parent_path().string());
  std::set<std::string> campaign_dirs;
  for (const auto& [dir, shown] : campaigns) campaign_dirs.insert(dir);
  std::map<std::string, std::vector<std::pair<std::string, std::string>>>
      reports_of;                                         // campaign -> (canon, shown)
  std::map<std::string, std::vector<std::string>> loose;  // folder shown -> reports
  for (const auto& [canon, shown] : found.reports) {
    std::string owner = OwningCampaign(canon, campaign_dirs);
    if (owner.empty()) {
      // A finding folder of a campaign whose summary is gone belongs to that campaign's folder.
      fs::path folder = fs::path(shown).parent_path();
      if (folder.parent_path().filename() == "findings")
        folder = folder.parent_path().parent_path();
      loose[folder.string()].push_back(shown);
    } else
      reports_of[owner].push_back({canon, shown});
  }

  for (const auto& [dir, label] : campaigns) {
    CampaignInfo info{label.empty() ? "." : label};
    std::string summary_shown = (fs::path(label) / "summary.json").string();
    auto j = ReadJson(summary_shown);
    auto summary = j.ok() ? Guarded(ParseSummary, j.value()) : Result<Summary>(j.status());
    std::set<std::string> used;  // canonical report paths consumed by summary entries
    if (!summary.ok()) {
      d.skipped.push_back({summary_shown, summary.error() + " (its reports count once each)"});
    } else {
      ++d.summaries_read;
      info.has_summary = true;
      info.cases = summary.value().cases;
      info.shard = summary.value().shard;
      info.elapsed_s = summary.value().elapsed_s;
      info.buckets = static_cast<int64_t>(summary.value().buckets.size());
      d.rewrites += summary.value().rewrites;
      for (const auto& e : summary.value().buckets)
        if (!e.rewrites.empty()) d.bucket_rewrites[e.hash] = e.rewrites;
      std::map<std::string, std::set<std::string>> sharing;  // folder -> the buckets naming it
      for (const auto& e : summary.value().buckets) sharing[e.finding].insert(e.hash);
      for (const auto& e : summary.value().buckets) {
        fs::path report = fs::path(label) / e.finding / "report.json";
        std::string canon = Canonical(fs::path(dir) / e.finding / "report.json");
        const ReportFacts* f = nullptr;
        if (found.reports.count(canon)) {
          used.insert(canon);
          f = loader.Read(report.string(), e.hash, sharing[e.finding]);
        } else {
          d.skipped.push_back({report.string(), "listed in " + summary_shown + " but missing"});
        }
        Sighting s = Loader::SightingOf(info.label, report.string(), f);
        s.count = e.count;
        s.first_found_s = e.first_found_s;
        s.first_seed = e.first_seed ? e.first_seed : s.first_seed;
        if (f && f->hash != e.hash) {
          // A bucket whose case reduced to the root cause of the bucket whose folder it names: one
          // entry, with both buckets' cases.
          MergeSighting(d, f->hash, std::move(s), f, f->signature, f->headline, e.standalone);
          auto& merged = d.buckets[f->hash].merged_hashes;
          if (std::find(merged.begin(), merged.end(), e.hash) == merged.end())
            merged.push_back(e.hash);
          continue;
        }
        MergeSighting(d, e.hash, std::move(s), f, e.signature, e.headline, e.standalone);
      }
    }
    for (const auto& [canon, shown] : reports_of[dir]) {
      if (used.count(canon)) continue;
      loader.AddLoose(info.label, shown);
      if (!info.has_summary) ++info.buckets;
    }
    d.campaigns.push_back(info);
  }
  for (const auto& [folder, reports] : loose) {
    CampaignInfo info{folder.empty() ? "." : folder};
    for (const auto& r : reports) loader.AddLoose(info.label, r);
    info.buckets = static_cast<int64_t>(reports.size());
    d.campaigns.push_back(info);
  }
  if (d.reports_read + d.summaries_read == 0) {
    std::string why;
    for (const auto& s : d.skipped) why += "\n  " + s.path + ": " + s.reason;
    return Status::Error("no input could be read:" + why);
  }
  MergeByRootCause(d);
  // A folded root cause (a documented behaviour, whatever the op) is headed by what it is, with the
  // ops its reports' programs hold.
  for (auto& [hash, b] : d.buckets) {
    if (b.root_causes.size() != 1 || !IsFoldedRootCause(b.root_causes[0])) continue;
    std::set<std::string> ops;
    for (const auto& s : b.sightings)
      if (s.program) ops.insert(s.program->ops.begin(), s.program->ops.end());
    std::string seen;
    for (const auto& op : ops) seen += (seen.empty() ? "" : ", ") + op;
    b.headline = FoldedHeadline(b.root_causes[0]) + "; ops seen: " + (seen.empty() ? "?" : seen) +
                 " " + ClassTag(b.DecidedClass());
  }
  return d;
}

}  // namespace mmdiff::triage
