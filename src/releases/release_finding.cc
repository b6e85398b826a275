// Reading findings for `mmdiff releases` and relating a release's run to them.
#include "src/releases/release_finding.h"

#include <algorithm>
#include <filesystem>
#include <set>

#include "src/releases/release_venvs.h"
#include "src/replay/replay.h"
#include "src/report/report.h"
#include "src/support/files.h"
#include "src/support/hash.h"
#include "src/support/json_guard.h"
#include "src/support/json_limits.h"

namespace mmdiff {

namespace fs = std::filesystem;

namespace {

void AddSorted(std::vector<std::string>& out, std::vector<std::string> found) {
  std::sort(found.begin(), found.end());
  out.insert(out.end(), found.begin(), found.end());
}

// The report.json of each finding folder in `dir`/findings.
std::vector<std::string> FindingReports(const fs::path& dir) {
  std::vector<std::string> found;
  std::error_code ec;
  for (fs::directory_iterator it(dir / "findings", ec), end; !ec && it != end; it.increment(ec))
    if (fs::is_regular_file(it->path() / "report.json", ec))
      found.push_back((it->path() / "report.json").string());
  return found;
}

// A *.json file in a folder that is a regression entry or a report (a campaign's summary.json is
// neither).
bool IsFindingFile(const fs::path& file) {
  auto text = ReadFile(file.string());
  if (!text.ok()) return false;
  auto j = ParseJsonBounded(text.value());
  if (!j.ok()) return true;  // unreadable: LoadReleaseFinding says why
  std::string format = StringField(j.value(), "format");
  return format == "mmdiff.regression" || format == "mmdiff.report";
}

}  // namespace

Result<std::vector<std::string>> CollectReleaseFiles(const std::vector<std::string>& args) {
  std::vector<std::string> files;
  for (const auto& arg : args) {
    std::error_code ec;
    if (!fs::is_directory(arg, ec)) {
      if (!fs::exists(arg, ec)) return Status::Error(arg + ": no such file or folder");
      files.push_back(arg);
      continue;
    }
    const fs::path dir(arg);
    std::vector<std::string> here;
    if (fs::is_regular_file(dir / "report.json", ec))
      here.push_back((dir / "report.json").string());
    AddSorted(here, FindingReports(dir));
    std::vector<std::string> shards, loose;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
      const std::string name = it->path().filename().string();
      if (name.rfind("shard-", 0) == 0 && it->is_directory(ec)) {
        auto r = FindingReports(it->path());
        shards.insert(shards.end(), r.begin(), r.end());
      } else if (it->path().extension() == ".json" && name != "report.json" &&
                 it->is_regular_file(ec) && IsFindingFile(it->path())) {
        loose.push_back(it->path().string());
      }
    }
    AddSorted(here, shards);
    AddSorted(here, loose);
    if (here.empty())
      return Status::Error(arg +
                           ": the folder holds no report.json, no findings/*/report.json and no "
                           "regression entries");
    files.insert(files.end(), here.begin(), here.end());
  }
  // A file named twice (a folder and a report in it) runs once.
  std::vector<std::string> once;
  std::set<std::string> seen;
  for (const auto& f : files) {
    std::error_code ec;
    fs::path canonical = fs::weakly_canonical(f, ec);
    if (seen.insert(ec ? f : canonical.string()).second) once.push_back(f);
  }
  return once;
}

Result<ReleaseFinding> LoadReleaseFinding(const std::string& file) {
  auto text = ReadFile(file);
  if (!text.ok()) return Status::Error(file + ": " + text.error());
  auto j = ParseJsonBounded(text.value());
  if (!j.ok()) return Status::Error(file + ": " + j.status().message());
  ReleaseFinding f;
  f.file = file;
  if (StringField(j.value(), "format") == "mmdiff.regression") {
    auto e = ParseRegressionEntry(text.value());
    if (!e.ok()) return Status::Error(file + ": " + e.status().message());
    f.title = e.value().title;
    f.program = e.value().program;
    f.recipe = e.value().recipe;
    f.before = e.value().before;
    f.paths = e.value().paths;
    f.regression = std::move(e.value());
    return f;
  }
  if (Status s = CheckReportFormat(j.value()); !s.ok())
    return Status::Error(file + ": neither a regression entry nor a report: " + s.message());
  auto c = ReadReportCase(j.value());
  if (!c.ok()) return Status::Error(file + ": " + c.status().message());
  f.title = StringField(j.value(), "headline");
  f.program = std::move(c.value().program);
  f.recipe = c.value().recipe;
  f.before = c.value().before;
  f.paths = c.value().paths;
  f.bucket = c.value().bucket_hash;
  if (j.value().contains("versions") && j.value()["versions"].is_object())
    f.found_in = StringField(j.value()["versions"], "torch");
  if (f.bucket.empty()) return Status::Error(file + ": the report names no bucket hash");
  return f;
}

void PickEntryFinding(ReleaseFinding& f, const std::vector<std::string>& releases) {
  if (!f.regression) return;
  f.finding.reset();
  for (const auto& r : releases) {
    auto x = ExpectationFor(*f.regression, r);
    if (x && x->diverges) {
      f.finding = x;
      return;
    }
  }
  for (const auto& x : f.regression->expected)
    if (x.diverges) {
      f.finding = x;
      return;
    }
}

void ClassifyReleaseRun(const ReleaseFinding& f, const CaseRun& run, ReleaseCell& cell) {
  cell.observed = DescribeVerdict(run.verdict);
  cell.diverges = run.verdict.diverges();
  cell.divergences.clear();
  for (const auto& d : run.verdict.divergences) {
    ExpectedDivergence x{std::string(DivergenceKindName(d.kind)), d.blamed};
    if (std::none_of(
            cell.divergences.begin(), cell.divergences.end(),
            [&](const ExpectedDivergence& y) { return y.kind == x.kind && y.blamed == x.blamed; }))
      cell.divergences.push_back(x);
  }
  std::vector<FindingKey> keys = CaseFindings(run);
  std::vector<std::string> hashes;
  for (const auto& k : keys) hashes.push_back(HashHex(k.signature));
  cell.buckets.clear();
  for (const auto& h : hashes) cell.buckets += (cell.buckets.empty() ? "" : ",") + h;
  if (!run.verdict.diverges()) {
    cell.state = ReleaseState::kAgree;
    return;
  }
  bool present = false;
  if (f.regression) {
    present = f.finding && CompareWithExpectation(run.verdict, *f.finding).empty();
  } else {
    present = std::find(hashes.begin(), hashes.end(), f.bucket) != hashes.end();
  }
  cell.state = present ? ReleaseState::kPresent : ReleaseState::kOther;
  if (!present && !keys.empty()) cell.detail = Headline(WithFinding(run, keys.front()));
}

std::optional<ExpectedInRelease> CompareWithEntry(const ReleaseFinding& f, const std::string& torch,
                                                  const Verdict& observed) {
  if (!f.regression) return std::nullopt;
  auto x = ExpectationFor(*f.regression, torch);
  if (!x) return std::nullopt;
  ExpectedInRelease out;
  out.expected = DescribeExpectation(*x);
  out.torch_range = x->torch;
  out.difference = CompareWithExpectation(observed, *x);
  out.matches = out.difference.empty();
  out.applies = MissingCpuFlags(*x).empty();
  return out;
}

// A report's release (the one it was found in) when that release ran the case and did not find
// it; "" otherwise.
std::string NotReproducedWhereFound(const ReleaseFinding& f,
                                    const std::vector<ReleaseCell>& cells) {
  if (f.regression || f.found_in.empty()) return "";
  for (const auto& c : cells)
    if (CompareTorchVersions(c.release, f.found_in) == 0 && c.state != ReleaseState::kCannotRun &&
        c.state != ReleaseState::kPresent)
      return c.release;
  return "";
}

}  // namespace mmdiff
