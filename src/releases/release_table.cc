// Printing and writing `mmdiff releases`'s table.
#include "src/releases/release_table.h"

#include <algorithm>
#include <filesystem>
#include <sstream>

#include "mmdiff/build_info.h"
#include "src/support/format_version.h"
#include "src/support/utf8.h"

namespace mmdiff {

namespace {

// A row's name: an entry's file name, a finding folder's name for its report.json.
std::string RowName(const ReleaseRow& r) {
  std::filesystem::path p(r.file);
  if (p.filename() == "report.json" && p.has_parent_path())
    return p.parent_path().filename().string();
  return p.filename().string();
}

std::string CellText(const ReleaseRow& r, size_t i) {
  const ReleaseCell& c = r.cells[i];
  std::string text(ReleaseStateName(c.state));
  if (c.state == ReleaseState::kCannotRun) text = "-";
  const auto& x = r.expected[i];
  if (x && x->applies && !x->matches && c.state != ReleaseState::kCannotRun) text += " (!)";
  if (r.entry && !x && c.state != ReleaseState::kCannotRun) text += " (?)";
  return text;
}

// Display width of UTF-8 text: code points (the summaries hold an en dash).
size_t Width(const std::string& s) {
  return static_cast<size_t>(std::count_if(
      s.begin(), s.end(), [](char ch) { return (static_cast<unsigned char>(ch) & 0xC0) != 0x80; }));
}

std::string Pad(const std::string& s, size_t w) {
  return s + std::string(w - std::min(w, Width(s)), ' ');
}

}  // namespace

int CountUnexpected(const ReleasesTable& t) {
  int n = 0;
  for (const auto& r : t.rows)
    for (size_t i = 0; i < r.cells.size(); ++i)
      n += r.expected[i] && r.expected[i]->applies && !r.expected[i]->matches &&
           r.cells[i].state != ReleaseState::kCannotRun;
  return n;
}

std::string FormatReleasesTable(const ReleasesTable& t) {
  std::vector<std::string> header = {"finding"};
  for (const auto& c : t.releases) header.push_back(c.release);
  header.push_back("history");
  std::vector<std::vector<std::string>> lines = {header};
  for (const auto& r : t.rows) {
    std::vector<std::string> line = {TerminalLine(RowName(r))};
    for (size_t i = 0; i < r.cells.size(); ++i) line.push_back(CellText(r, i));
    line.push_back(r.history.summary);
    lines.push_back(line);
  }
  std::vector<size_t> width(header.size(), 0);
  for (const auto& l : lines)
    for (size_t i = 0; i < l.size(); ++i) width[i] = std::max(width[i], Width(l[i]));
  std::ostringstream o;
  for (const auto& l : lines) {
    std::string text;
    for (size_t i = 0; i < l.size(); ++i)
      text += i + 1 < l.size() ? Pad(l[i], width[i]) + "  " : l[i];
    o << text << "\n";
  }
  // What a cell alone does not say: which finding a report's row is, ...
  std::ostringstream notes;
  for (const auto& r : t.rows)
    if (!r.entry && !r.title.empty())
      notes << "  " << TerminalLine(RowName(r)) << ": " << TerminalLine(r.title) << "\n";
  // ... and what happened in a release where it is not simply there or gone.
  for (const auto& r : t.rows) {
    for (size_t i = 0; i < r.cells.size(); ++i) {
      const ReleaseCell& c = r.cells[i];
      const std::string where = TerminalLine(RowName(r)) + " in " + c.release + ": ";
      if (c.state == ReleaseState::kCannotRun)
        notes << "  " << where << "cannot run: " << TerminalLine(c.detail) << "\n";
      else if (c.state == ReleaseState::kOther)
        notes << "  " << where << "another divergence: " << TerminalLine(c.observed)
              << (c.detail.empty() ? "" : " (" + TerminalLine(c.detail) + ")") << "\n";
      const auto& x = r.expected[i];
      if (x && x->applies && !x->matches && c.state != ReleaseState::kCannotRun)
        notes << "  " << where << "(!) the entry expects " << x->expected << " for "
              << x->torch_range << ": " << TerminalLine(x->difference) << "\n";
    }
  }
  if (!notes.str().empty()) o << "\n" << notes.str();
  o << "\nStates: present (the finding: a report's bucket, an entry's expected divergence), other "
       "(the paths diverge otherwise), agree, - (cannot run); (!) an entry's expectation for that "
       "release says otherwise; (?) the entry has no expectation for that release (--update adds "
       "one).\n";
  return o.str();
}

nlohmann::json ReleasesTableToJson(const ReleasesTable& t) {
  nlohmann::json releases = nlohmann::json::array(), rows = nlohmann::json::array();
  for (const auto& c : t.releases) releases.push_back({{"release", c.release}, {"torch", c.torch}});
  for (const auto& r : t.rows) {
    nlohmann::json cells = nlohmann::json::array();
    for (size_t i = 0; i < r.cells.size(); ++i) {
      const ReleaseCell& c = r.cells[i];
      nlohmann::json cell = {{"release", c.release},
                             {"torch", ValidUtf8(c.torch)},
                             {"state", ReleaseStateName(c.state)},
                             {"observed", ValidUtf8(c.observed)},
                             {"buckets", c.buckets},
                             {"detail", ValidUtf8(c.detail)},
                             {"seconds", c.seconds}};
      if (const auto& x = r.expected[i])
        cell["expected"] = {{"torch", x->torch_range},
                            {"verdict", x->expected},
                            {"matches", x->matches},
                            {"applies", x->applies},
                            {"difference", ValidUtf8(x->difference)}};
      cells.push_back(cell);
    }
    nlohmann::json row = {{"file", ValidUtf8(r.file)},
                          {"title", ValidUtf8(r.title)},
                          {"kind", r.entry ? "entry" : "report"},
                          {"history", ReleaseHistoryToJson(r.history)},
                          {"cells", cells}};
    if (!r.entry) row["bucket"] = r.bucket;
    rows.push_back(row);
  }
  return {{"format", "mmdiff.releases"},
          {"version", kReleasesFormatVersion},
          {"mmdiff", build_info::kMmdiffVersion},
          {"releases", releases},
          {"findings", rows}};
}

nlohmann::json FindingReleasesJson(const ReleasesTable& t, size_t i) {
  ReleasesTable one;
  one.releases = t.releases;
  one.rows = {t.rows.at(i)};
  return ReleasesTableToJson(one);
}

Result<ReleaseHistory> FirstFindingHistory(const nlohmann::json& j) {
  if (!j.is_object() || j.value("format", nlohmann::json()) != "mmdiff.releases")
    return Status::Error("not a releases document (format \"mmdiff.releases\")");
  if (auto v = ReadFormatVersion(j, "releases", kReleasesFormatVersion, kReleasesFormatVersion);
      !v.ok())
    return v.status();
  if (!j.contains("findings") || !j["findings"].is_array() || j["findings"].empty() ||
      !j["findings"][0].is_object() || !j["findings"][0].contains("history"))
    return Status::Error("no finding with a \"history\"");
  return ReleaseHistoryFromJson(j["findings"][0]["history"]);
}

}  // namespace mmdiff
