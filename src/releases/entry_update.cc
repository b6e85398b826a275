// Rewriting an entry's expected ranges from measured releases.
#include "src/releases/entry_update.h"

#include <algorithm>
#include <optional>
#include <sstream>

#include "src/releases/release_venvs.h"
#include "src/replay/replay.h"
#include "src/support/json_limits.h"
#include "src/support/torch_version.h"

namespace mmdiff {

namespace {

using ojson = nlohmann::ordered_json;

// What holds at one point of the release line: an old expectation (by index), what a release did,
// or nothing known.
struct Point {
  std::string release;
  int old = -1;                       // index into entry.expected
  const ReleaseCell* cell = nullptr;  // measured (when old < 0)
};

bool SameMeasured(const ReleaseCell& a, const ReleaseCell& b) {
  if (a.diverges != b.diverges || a.divergences.size() != b.divergences.size()) return false;
  for (const auto& d : a.divergences)
    if (std::none_of(b.divergences.begin(), b.divergences.end(), [&](const ExpectedDivergence& e) {
          return e.kind == d.kind && e.blamed == d.blamed;
        }))
      return false;
  return true;
}

// Whether an old expectation says exactly what a release did (the same divergences, each blamed on
// the same path).
bool SameAsOld(const VersionExpectation& old, const ReleaseCell& c) {
  ReleaseCell as_old;
  as_old.diverges = old.diverges;
  as_old.divergences = old.divergences;
  return SameMeasured(as_old, c);
}

bool SameHolds(const Point& a, const Point& b, const RegressionEntry& e) {
  if (a.old >= 0 && b.old >= 0) return a.old == b.old;
  if (a.old >= 0 && b.cell) return SameAsOld(e.expected[static_cast<size_t>(a.old)], *b.cell);
  if (b.old >= 0 && a.cell) return SameAsOld(e.expected[static_cast<size_t>(b.old)], *a.cell);
  if (!a.cell || !b.cell) return !a.cell && !b.cell && a.old < 0 && b.old < 0;
  return SameMeasured(*a.cell, *b.cell);
}

// The versions an old range's clauses name (">=2.11.0,<2.12" -> 2.11.0, 2.12).
std::vector<std::string> Bounds(const std::string& range) {
  std::vector<std::string> out;
  std::stringstream ss(range);
  for (std::string clause; std::getline(ss, clause, ',');) {
    size_t at = clause.find_first_of("0123456789");
    if (at != std::string::npos) out.push_back(clause.substr(at));
  }
  return out;
}

VersionExpectation Measured(const ReleaseCell& c) {
  VersionExpectation x;
  x.diverges = c.diverges;
  x.divergences = c.divergences;
  return x;
}

}  // namespace

EntryUpdate PlanEntryUpdate(const std::string& file_text, const RegressionEntry& entry,
                            const ReleaseRow& row, const std::string& date) {
  EntryUpdate u;
  bool contradicted = false;
  std::vector<const ReleaseCell*> ran;
  for (size_t i = 0; i < row.cells.size(); ++i) {
    if (row.cells[i].state == ReleaseState::kCannotRun) continue;
    ran.push_back(&row.cells[i]);
    // An expectation that holds only on another CPU says nothing here.
    contradicted |= !row.expected[i] || (row.expected[i]->applies && !row.expected[i]->matches);
  }
  if (!contradicted) return u;
  for (const auto& x : entry.expected)
    if (!x.cpu_flags.empty()) {
      u.refused = "it holds CPU-specific expectations (cpu_flags): edit its ranges by hand";
      return u;
    }
  // The points: the releases that ran and the old ranges' bounds, in release order, once each.
  std::vector<std::string> releases;
  for (const auto* c : ran) releases.push_back(c->release);
  for (const auto& x : entry.expected)
    for (const auto& b : Bounds(x.torch)) releases.push_back(b);
  std::sort(releases.begin(), releases.end(), [](const std::string& a, const std::string& b) {
    return CompareTorchVersions(a, b) < 0;
  });
  releases.erase(std::unique(releases.begin(), releases.end(),
                             [](const std::string& a, const std::string& b) {
                               return CompareTorchVersions(a, b) == 0;
                             }),
                 releases.end());
  std::vector<Point> points;
  for (const auto& r : releases) {
    Point p{r};
    for (size_t i = 0; i < row.cells.size(); ++i)
      if (row.cells[i].state != ReleaseState::kCannotRun &&
          CompareTorchVersions(row.cells[i].release, r) == 0)
        p.cell = &row.cells[i];
    const std::string at = p.cell ? p.cell->torch : r;
    for (size_t i = 0; i < entry.expected.size() && p.old < 0; ++i) {
      auto in = TorchVersionInRange(at, entry.expected[i].torch);
      if (in.ok() && in.value()) p.old = static_cast<int>(i);
    }
    if (p.cell && p.old >= 0) {  // does the release match it? (as CompareWithExpectation)
      const VersionExpectation& old = entry.expected[static_cast<size_t>(p.old)];
      bool matches = old.diverges == p.cell->diverges;
      for (const auto& w : old.divergences)
        matches &=
            std::any_of(p.cell->divergences.begin(), p.cell->divergences.end(),
                        [&](const ExpectedDivergence& d) {
                          return d.kind == w.kind && (w.blamed.empty() || d.blamed == w.blamed);
                        });
      if (!matches) p.old = -1;
    }
    if (p.cell && p.old >= 0) p.cell = nullptr;  // the old expectation holds there
    points.push_back(p);
  }
  // Consecutive points with one expectation are one range.
  std::vector<std::pair<size_t, size_t>> groups;  // [first, end) into points
  for (size_t i = 0; i < points.size(); ++i) {
    if (!groups.empty() && SameHolds(points[i - 1], points[i], entry))
      groups.back().second = i + 1;
    else
      groups.push_back({i, i + 1});
  }
  auto doc = ojson::parse(file_text, nullptr, false);
  if (doc.is_discarded() || !doc.is_object() || !doc.contains("expected")) {
    u.refused = "its file cannot be read back";
    return u;
  }
  ojson expected = ojson::array();
  for (const auto& x : entry.expected)
    u.diff += "- " + x.torch + ": " + DescribeExpectation(x) + "\n";
  for (size_t g = 0; g < groups.size(); ++g) {
    const Point& first = points[groups[g].first];
    if (first.old < 0 && !first.cell) continue;  // nothing known there
    // An old expectation in the group is kept (note and all); the releases measured beside it
    // are named in its note.
    const Point* rep = &first;
    std::string seen;
    for (size_t i = groups[g].first; i < groups[g].second; ++i) {
      if (points[i].old >= 0 && rep->old < 0) rep = &points[i];
      if (points[i].cell) seen += (seen.empty() ? "" : ", ") + points[i].cell->torch;
    }
    const std::string measured = "measured by `mmdiff releases` on " + date + " in torch " + seen;
    std::string range = ">=" + first.release;
    if (g + 1 < groups.size()) range += ",<" + points[groups[g + 1].first].release;
    ojson x;
    VersionExpectation described;
    if (rep->old >= 0) {
      x = doc["expected"][static_cast<size_t>(rep->old)];
      described = entry.expected[static_cast<size_t>(rep->old)];
      if (!seen.empty()) {
        std::string note =
            x.contains("note") && x["note"].is_string() ? x["note"].get<std::string>() : "";
        x["note"] = note.empty() ? measured : note + "; " + measured;
      }
    } else {
      described = Measured(*first.cell);
      x["verdict"] = described.diverges ? "diverge" : "agree";
      if (described.diverges) {
        ojson ds = ojson::array();
        for (const auto& d : described.divergences)
          ds.push_back({{"kind", d.kind}, {"blamed", d.blamed}});
        x["divergences"] = ds;
      }
      x["note"] = measured;
    }
    ojson with_range = {{"torch", range}};
    for (auto it = x.begin(); it != x.end(); ++it)
      if (it.key() != "torch") with_range[it.key()] = it.value();
    expected.push_back(with_range);
    u.diff += "+ " + range + ": " + DescribeExpectation(described) + "\n";
  }
  doc["expected"] = expected;
  u.text = doc.dump(2) + "\n";
  u.changed = u.text != file_text;
  return u;
}

}  // namespace mmdiff
