// Finding folders, written atomically and recoverable after a kill.
#include "src/campaign/finding_store.h"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "src/gen/focus.h"
#include "src/issue/issue_text.h"
#include "src/report/known.h"
#include "src/report/rerun_records_json.h"
#include "src/report/rewrite_coverage.h"
#include "src/support/files.h"
#include "src/support/hash.h"
#include "src/support/json_limits.h"

namespace mmdiff {

namespace fs = std::filesystem;

namespace {
constexpr const char* kTmpSuffix = ".tmp";
constexpr const char* kOldSuffix = ".old";
}  // namespace

Status StoreFinding(const std::string& out_dir, const FindingCase& fc, const CaseRun& c,
                    const RunContext& ctx, const ReducedFinding* reduced) {
  fs::path findings = fs::path(out_dir) / "findings";
  const std::string& name = fc.folder.empty() ? fc.hash : fc.folder;
  fs::path final_dir = findings / name;
  fs::path tmp = findings / (name + kTmpSuffix + std::to_string(getpid()));
  fs::path old = findings / (name + kOldSuffix);
  std::error_code ec;
  fs::remove_all(tmp, ec);
  if (Status s = WriteFinding(tmp.string(), c, ctx); !s.ok()) return s;
  nlohmann::json cj = {
      {"hash", fc.hash},         {"signature", fc.signature}, {"root_cause", fc.root_cause},
      {"headline", fc.headline}, {"index", fc.index},         {"seed", fc.seed},
      {"found_s", fc.found_s}};
  if (fc.known) cj["known"] = KnownRecordToJson(*fc.known);
  if (fc.unclaimed) cj["unclaimed"] = KnownRecordToJson(*fc.unclaimed);
  if (c.standalone) cj["standalone"] = StandaloneToJson(*c.standalone);
  AddClassFields(cj, CaseClass(reduced && reduced->reduction.steps_kept > 0 ? reduced->run : c));
  if (!fc.focus.empty()) {
    cj["focus"] = fc.focus;
    cj["rewrites"] = fc.rewrites;
  }
  if (Status s = WriteFileAtomic((tmp / "case.json").string(), cj.dump(2) + "\n"); !s.ok())
    return s;
  if (reduced && reduced->reduction.steps_kept > 0)
    if (Status s = WriteReducedFinding((tmp / "reduced").string(), *reduced, ctx); !s.ok())
      return s;
  // A new root cause's text to file upstream, of the case its folder leads with (the reduced one).
  if (!fc.known) {
    const bool kept = reduced && reduced->reduction.steps_kept > 0;
    auto sources = ReadIssueSources(tmp.string());
    if (!sources.ok()) return sources.status();
    sources.value().report_path = kept ? "reduced/report.json" : "report.json";
    auto text = IssueMarkdown(sources.value());
    if (!text.ok()) return Status::Error("issue.md: " + text.error());
    if (Status s = WriteFileAtomic((tmp / "issue.md").string(), text.value()); !s.ok()) return s;
  }
  // Replace: move the old folder aside, move the new one in, drop the old one. A kill in between
  // leaves the old folder under .old, which RecoverFindings puts back.
  if (fs::exists(final_dir)) {
    fs::remove_all(old, ec);
    fs::rename(final_dir, old, ec);
    if (ec) return Status::Error("cannot replace " + final_dir.string() + ": " + ec.message());
  }
  fs::rename(tmp, final_dir, ec);
  if (ec) return Status::Error("cannot move " + tmp.string() + " into place: " + ec.message());
  fs::remove_all(old, ec);
  return Status::Ok();
}

std::vector<FindingCase> RecoverFindings(const std::string& out_dir) {
  std::vector<FindingCase> out;
  fs::path findings = fs::path(out_dir) / "findings";
  std::error_code ec;
  if (!fs::is_directory(findings, ec)) return out;
  std::vector<fs::path> entries;
  for (const auto& e : fs::directory_iterator(findings, ec)) entries.push_back(e.path());
  for (const auto& p : entries) {
    std::string name = p.filename().string();
    if (name.find(kTmpSuffix) != std::string::npos) {
      fs::remove_all(p, ec);  // never renamed into place: incomplete
    } else if (name.size() > 4 && name.substr(name.size() - 4) == kOldSuffix) {
      fs::path final_dir = findings / name.substr(0, name.size() - 4);
      if (fs::exists(final_dir))
        fs::remove_all(p, ec);
      else
        fs::rename(p, final_dir, ec);
    }
  }
  for (const auto& e : fs::directory_iterator(findings, ec)) {
    if (!fs::exists(e.path() / "case.json", ec)) continue;
    try {
      auto text = ReadFile((e.path() / "case.json").string());
      auto parsed =
          text.ok() ? ParseJsonBounded(text.value()) : Result<nlohmann::json>(text.status());
      if (!parsed.ok()) throw std::runtime_error(parsed.error());
      const nlohmann::json& j = parsed.value();
      std::string signature = j.at("signature").get<std::string>();
      // The folder and bucket names the campaign builds paths and keys from: its own shapes only.
      const std::string folder = e.path().filename().string();
      if (!IsHashHex(j.at("hash").get<std::string>()) || !IsHashHex(folder))
        throw std::runtime_error("its hash or folder is not 16 hex digits");
      if (j.at("index").get<int64_t>() < 0) throw std::runtime_error("a negative case index");
      FindingCase fc{j.at("hash").get<std::string>(),
                     signature,
                     e.path().filename().string(),
                     j.value("root_cause", signature),
                     j.at("headline").get<std::string>(),
                     j.at("index").get<int64_t>(),
                     j.at("seed").get<uint64_t>(),
                     j.value("found_s", 0.0),
                     std::nullopt};
      if (j.contains("known")) {
        auto known = KnownRecordFromJson(j["known"]);
        if (!known.ok()) throw std::runtime_error(known.error());
        fc.known = known.value();
      }
      if (j.contains("unclaimed")) {
        auto unclaimed = KnownRecordFromJson(j["unclaimed"]);
        if (!unclaimed.ok()) throw std::runtime_error(unclaimed.error());
        fc.unclaimed = unclaimed.value();
      }
      if (j.contains("standalone")) {
        auto rec = StandaloneFromJson(j.at("standalone"));
        if (!rec.ok()) throw std::runtime_error(rec.error());
        fc.standalone = rec.value();
      }
      fc.root_class = ClassFromFields(j);
      fc.focus = j.value("focus", "");
      if (!fc.focus.empty() && !FindFocus(fc.focus)) throw std::runtime_error("an unknown focus");
      fc.rewrites = j.value("rewrites", std::vector<std::string>{});
      for (const auto& r : fc.rewrites)
        if (!ValidRewriteName(r)) throw std::runtime_error("a rewrite that is not a rewrite name");
      out.push_back(std::move(fc));
    } catch (const std::exception& ex) {
      spdlog::warn("ignoring {}: unreadable case.json ({})", e.path().string(), ex.what());
    }
  }
  return out;
}

void DropFinding(const std::string& out_dir, const std::string& folder) {
  if (folder.empty() || folder == "." || folder == ".." || folder.find('/') != std::string::npos)
    return;
  fs::path findings = fs::path(out_dir) / "findings";
  fs::path doomed = findings / (folder + kTmpSuffix + "-dropped");
  std::error_code ec;
  fs::remove_all(doomed, ec);
  fs::rename(findings / folder, doomed, ec);
  if (!ec) fs::remove_all(doomed, ec);
}

}  // namespace mmdiff
