// What a finding's cells across releases say.
#include "src/releases/release_history.h"

#include <algorithm>
#include <array>
#include <cstdio>

#include "src/releases/release_venvs.h"
#include "src/support/json_guard.h"

namespace mmdiff {

namespace {

constexpr std::array<std::string_view, 4> kStateNames = {"present", "other", "agree", "cannot-run"};
constexpr std::array<std::string_view, 6> kLabelNames = {"unknown",    "absent", "long-standing",
                                                         "regression", "fixed",  "intermittent"};

std::string Span(const std::string& a, const std::string& b) {
  return a == b ? a : a + "\u2013" + b;  // an en dash, as in "2.11.0–2.15.0"
}

std::string List(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : ", ") + s;
  return out;
}

}  // namespace

std::string_view ReleaseStateName(ReleaseState s) { return kStateNames[static_cast<size_t>(s)]; }

Result<ReleaseState> ParseReleaseState(std::string_view name) {
  for (size_t i = 0; i < kStateNames.size(); ++i)
    if (kStateNames[i] == name) return static_cast<ReleaseState>(i);
  return Status::Error("unknown release state '" + std::string(name) + "'");
}

std::string_view ReleaseLabelName(ReleaseLabel l) { return kLabelNames[static_cast<size_t>(l)]; }

Result<ReleaseLabel> ParseReleaseLabel(std::string_view name) {
  for (size_t i = 0; i < kLabelNames.size(); ++i)
    if (kLabelNames[i] == name) return static_cast<ReleaseLabel>(i);
  return Status::Error("unknown release label '" + std::string(name) + "'");
}

bool NextRelease(const std::string& a, const std::string& b) {
  int am = 0, an = 0, bm = 0, bn = 0;
  if (std::sscanf(a.c_str(), "%d.%d", &am, &an) != 2 ||
      std::sscanf(b.c_str(), "%d.%d", &bm, &bn) != 2)
    return false;
  return am == bm && (bn == an || bn == an + 1) && CompareTorchVersions(a, b) < 0;
}

ReleaseHistory SummarizeReleases(std::vector<ReleaseCell> cells) {
  std::sort(cells.begin(), cells.end(), [](const ReleaseCell& x, const ReleaseCell& y) {
    return CompareTorchVersions(x.release, y.release) < 0;
  });
  ReleaseHistory h;
  std::vector<const ReleaseCell*> ran;
  std::vector<std::string> all;
  for (const auto& c : cells) {
    all.push_back(c.release);
    if (c.state != ReleaseState::kCannotRun) ran.push_back(&c);
  }
  if (ran.empty()) {
    h.summary = all.empty() ? "not run" : "could not run in " + List(all);
    return h;
  }
  std::vector<size_t> present;
  for (size_t i = 0; i < ran.size(); ++i)
    if (ran[i]->state == ReleaseState::kPresent) present.push_back(i);
  if (present.empty()) {
    h.label = ReleaseLabel::kAbsent;
    h.summary = "absent in " + Span(ran.front()->release, ran.back()->release);
    return h;
  }
  const size_t first = present.front(), last = present.back();
  h.first_present = ran[first]->release;
  h.last_present = ran[last]->release;
  if (last - first + 1 != present.size()) {
    h.label = ReleaseLabel::kIntermittent;
    std::vector<std::string> in, out;
    for (const auto* c : ran) (c->state == ReleaseState::kPresent ? in : out).push_back(c->release);
    h.summary = "present in " + List(in) + "; absent in " + List(out);
    return h;
  }
  const std::string span = Span(h.first_present, h.last_present);
  const ReleaseCell* before = first > 0 ? ran[first - 1] : nullptr;
  const ReleaseCell* after = last + 1 < ran.size() ? ran[last + 1] : nullptr;
  if (after) {
    h.label = ReleaseLabel::kFixed;
    const bool known = NextRelease(h.last_present, after->release);
    if (known) h.fixed_in = after->release;
    h.summary = "present in " + span + (known ? ", fixed in " : ", absent in ") + after->release;
    if (before) h.summary += "; absent in " + before->release;
  } else if (before) {
    h.label = ReleaseLabel::kRegression;
    if (NextRelease(before->release, h.first_present)) {
      h.new_in = h.first_present;
      h.summary = "new in " + h.first_present + (first == last ? "" : ", present in " + span);
    } else {
      h.summary = "present in " + span + ", absent in " + before->release;
    }
  } else {
    h.label = ReleaseLabel::kLongStanding;
    h.summary = "present in " + span;
  }
  return h;
}

nlohmann::json ReleaseHistoryToJson(const ReleaseHistory& h) {
  return {{"label", ReleaseLabelName(h.label)},
          {"summary", h.summary},
          {"first_present", h.first_present},
          {"last_present", h.last_present},
          {"fixed_in", h.fixed_in},
          {"new_in", h.new_in}};
}

Result<ReleaseHistory> ReleaseHistoryFromJson(const nlohmann::json& j) {
  if (!j.is_object()) return Status::Error("release history: not an object");
  ReleaseHistory h;
  auto label = ParseReleaseLabel(StringField(j, "label"));
  if (!label.ok()) return Status::Error("release history: " + label.status().message());
  h.label = label.value();
  h.summary = StringField(j, "summary");
  if (h.summary.empty()) return Status::Error("release history: no \"summary\"");
  h.first_present = StringField(j, "first_present");
  h.last_present = StringField(j, "last_present");
  h.fixed_in = StringField(j, "fixed_in");
  h.new_in = StringField(j, "new_in");
  return h;
}

}  // namespace mmdiff
