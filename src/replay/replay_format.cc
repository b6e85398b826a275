// Replay output: the text table and JUnit XML.
#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "src/replay/replay.h"
#include "src/support/markup.h"

namespace mmdiff {

namespace {

std::string EntryName(const ReplayRow& r) {
  std::filesystem::path p(r.file);
  if (p.extension() == ".json") return p.stem().string();
  return p.filename().empty() ? r.file : p.filename().string();  // e.g. crash-<sha1>
}

std::string Clip(const std::string& s, size_t width) {
  return s.size() <= width ? s : s.substr(0, width - 3) + "...";
}

// Text for XML attributes and content.
std::string XmlEscape(const std::string& s) { return EscapeMarkup(s, /*keep_line_breaks=*/false); }

std::string Seconds(double s) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.3f", s);
  return buf;
}

}  // namespace

std::string FormatReplayTable(const std::vector<ReplayRow>& rows,
                              const std::string& torch_version) {
  const char* headers[5] = {"entry", "torch", "expected", "observed", "status"};
  const size_t caps[5] = {56, 18, 44, 44, 13};
  size_t widths[5];
  for (int i = 0; i < 5; ++i) widths[i] = std::string(headers[i]).size();
  auto cells = [](const ReplayRow& r) {
    return std::vector<std::string>{EntryName(r), r.torch_range.empty() ? "-" : r.torch_range,
                                    r.expected.empty() ? "-" : r.expected,
                                    r.observed.empty() ? "-" : r.observed,
                                    std::string(ReplayStatusName(r.status))};
  };
  for (const auto& r : rows) {
    auto c = cells(r);
    for (int i = 0; i < 5; ++i) widths[i] = std::min(caps[i], std::max(widths[i], c[i].size()));
  }
  std::string out;
  auto line = [&](const std::vector<std::string>& c) {
    std::string l;
    for (int i = 0; i < 5; ++i) {
      std::string cell = Clip(c[i], widths[i]);
      l += cell + (i < 4 ? std::string(widths[i] - cell.size() + 2, ' ') : "");
    }
    out += l + "\n";
  };
  line({headers[0], headers[1], headers[2], headers[3], headers[4]});
  for (const auto& r : rows) line(cells(r));
  bool any_detail = false;
  for (const auto& r : rows) {
    bool match = r.status == ReplayStatus::kMatch;
    if (match && r.note.empty()) continue;
    const std::string& text = match ? r.note : r.detail;
    if (!any_detail) out += "\n";
    any_detail = true;
    out += r.file + " (" + std::string(ReplayStatusName(r.status)) + "): " + Clip(text, 400) + "\n";
  }
  ReplayCounts n = CountRows(rows);
  char total[256];
  std::snprintf(total, sizeof(total),
                "\nreplay: %d entries on torch %s: %d match, %d fixed, %d new-behaviour, %d "
                "skipped, %d invalid\n",
                n.total(), torch_version.c_str(), n.match, n.fixed, n.new_behaviour, n.skipped,
                n.invalid);
  return out + total;
}

std::string ReplayJunitXml(const std::vector<ReplayRow>& rows, const std::string& torch_version) {
  ReplayCounts n = CountRows(rows);
  double total_s = 0;
  for (const auto& r : rows) total_s += r.seconds;
  std::string counts = " tests=\"" + std::to_string(n.total()) + "\" failures=\"" +
                       std::to_string(n.fixed + n.new_behaviour) + "\" errors=\"" +
                       std::to_string(n.invalid) + "\" skipped=\"" + std::to_string(n.skipped) +
                       "\" time=\"" + Seconds(total_s) + "\"";
  std::string x = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  x += "<testsuites name=\"mmdiff replay\"" + counts + ">\n";
  x += "  <testsuite name=\"mmdiff.replay\"" + counts + ">\n";
  x += "    <properties>\n      <property name=\"torch\" value=\"" + XmlEscape(torch_version) +
       "\"/>\n    </properties>\n";
  for (const auto& r : rows) {
    x += "    <testcase classname=\"mmdiff.replay\" name=\"" + XmlEscape(EntryName(r)) +
         "\" file=\"" + XmlEscape(r.file) + "\" time=\"" + Seconds(r.seconds) + "\"";
    std::string body;
    std::string facts = "entry: " + r.file + "\ntitle: " + r.title +
                        "\ntorch range: " + r.torch_range + "\nexpected: " + r.expected +
                        "\nobserved: " + r.observed + "\n";
    switch (r.status) {
      case ReplayStatus::kMatch:
        if (!r.note.empty()) body = "      <system-out>" + XmlEscape(r.note) + "</system-out>\n";
        break;
      case ReplayStatus::kFixed:
      case ReplayStatus::kNewBehaviour:
        body = "      <failure type=\"" + std::string(ReplayStatusName(r.status)) +
               "\" message=\"" + XmlEscape(r.detail) + "\">" + XmlEscape(facts) + "</failure>\n";
        break;
      case ReplayStatus::kSkipped:
        body = "      <skipped message=\"" + XmlEscape(r.detail) + "\"/>\n";
        break;
      case ReplayStatus::kInvalid:
        body = "      <error type=\"invalid\" message=\"" + XmlEscape(r.detail) + "\"/>\n";
        break;
    }
    x += body.empty() ? "/>\n" : ">\n" + body + "    </testcase>\n";
  }
  x += "  </testsuite>\n</testsuites>\n";
  return x;
}

}  // namespace mmdiff
