// The triage page.
#include "src/triage/triage_html.h"

#include <sstream>

#include "src/support/hash.h"
#include "src/triage/triage_markdown.h"
#include "src/triage/triage_plots.h"
#include "src/triage/triage_rank.h"
#include "src/triage/triage_text.h"

namespace mmdiff::triage {

namespace {

constexpr const char* kStyle = R"(
body { font: 14px/1.45 system-ui, sans-serif; margin: 24px; color: #222; }
h1 { margin-bottom: 4px; }
.stats { color: #555; }
.plots { display: flex; flex-wrap: wrap; gap: 18px; }
figure.plot { margin: 0; padding: 10px; border: 1px solid #ddd; border-radius: 6px; max-width: 100%; overflow-x: auto; }
figcaption { max-width: 660px; }
figcaption { font-size: 13px; color: #444; margin-bottom: 6px; }
.no-data { color: #777; font-style: italic; padding: 24px; }
svg text { font: 11px system-ui, sans-serif; fill: #333; }
svg .legend { font-size: 11px; }
svg .frame { fill: none; stroke: #999; }
svg .grid { stroke: #eee; }
svg .empty { fill: #f4f4f4; }
svg .cell-label { fill: #111; font-size: 11px; pointer-events: none; }
svg .bound { stroke: #555; stroke-width: 1.5; }
svg .step { fill: none; stroke: #555; stroke-width: 1.5; }
svg .mark { stroke: #fff; stroke-width: 0.8; }
table { border-collapse: collapse; margin-top: 8px; }
th, td { border: 1px solid #ddd; padding: 4px 6px; vertical-align: top; text-align: left; }
th { background: #f3f3f3; cursor: pointer; user-select: none; }
th[data-dir="asc"]::after { content: " \25B2"; }
th[data-dir="desc"]::after { content: " \25BC"; }
td.num { text-align: right; }
td.headline { max-width: 560px; }
.badge { color: #fff; border-radius: 4px; padding: 1px 5px; font-size: 12px; white-space: nowrap; }
code { font-size: 12px; }
)";

constexpr const char* kScript = R"(
(function () {
  var figures = document.querySelectorAll("figure.plot");
  for (var f = 0; f < figures.length; f++)
    figures[f].setAttribute("data-marks", String(figures[f].querySelectorAll("svg .mark").length));
  var table = document.getElementById("buckets");
  if (table && table.tHead) {
    var heads = table.tHead.rows[0].cells;
    var sortBy = function (col) {
      var body = table.tBodies[0];
      var rows = Array.prototype.slice.call(body.rows);
      var asc = heads[col].getAttribute("data-dir") !== "asc";
      rows.sort(function (a, b) {
        var x = a.cells[col].getAttribute("data-sort") || a.cells[col].textContent;
        var y = b.cells[col].getAttribute("data-sort") || b.cells[col].textContent;
        var nx = parseFloat(x), ny = parseFloat(y);
        var c = (!isNaN(nx) && !isNaN(ny)) ? nx - ny : x.localeCompare(y);
        return asc ? c : -c;
      });
      for (var h = 0; h < heads.length; h++) heads[h].removeAttribute("data-dir");
      heads[col].setAttribute("data-dir", asc ? "asc" : "desc");
      rows.forEach(function (r) { body.appendChild(r); });
    };
    for (var i = 0; i < heads.length; i++)
      heads[i].addEventListener("click", sortBy.bind(null, i));
  }
  document.documentElement.setAttribute("data-triage-ready", "1");
})();
)";

std::string Href(const std::string& path, const std::string& out_dir) {
  return HtmlEscape(UrlPath(RelativeTo(path, out_dir)));
}

std::string Link(const std::string& label, const std::string& path, const std::string& out_dir) {
  if (path.empty()) return "-";
  return "<a href=\"" + Href(path, out_dir) + "\">" + HtmlEscape(label) + "</a>";
}

std::string Badge(const TriageBucket& b) {
  return "<span class=\"badge\" style=\"background:" + ClassColour(b.cls) + "\">" +
         HtmlEscape(ClassTag(b.DecidedClass())) + "</span>";
}

void BucketTable(std::ostringstream& h, const std::vector<const TriageBucket*>& ranked,
                 size_t max_examples, const std::string& out_dir) {
  h << "<h2>New root causes</h2>\n";
  if (ranked.empty()) {
    h << "<p class=\"no-data\">No new root causes were found.</p>\n";
    return;
  }
  h << "<table "
       "id=\"buckets\">\n<thead><tr><th>rank</th><th>bucket</th><th>class</th><th>filing</th>"
       "<th>kind</th><th>blamed</th>"
       "<th>count</th><th>severity</th><th>campaigns</th><th>first "
       "seen</th><th>headline</th><th>report</th>"
       "<th>repro</th></tr></thead>\n<tbody>\n";
  for (size_t i = 0; i < ranked.size(); ++i) {
    const TriageBucket& b = *ranked[i];
    auto examples = b.Examples(max_examples);
    auto campaigns = b.Campaigns();
    std::string campaign_list;
    for (const auto& c : campaigns)
      campaign_list += (campaign_list.empty() ? "" : "<br>") + HtmlEscape(c);
    h << "<tr class=\"bucket\" id=\"bucket-" << HtmlEscape(b.hash) << "\">";
    h << "<td class=\"num\" data-sort=\"" << i + 1 << "\">" << i + 1 << "</td>";
    h << "<td><code title=\"" << HtmlEscape(b.signature) << "\">" << HtmlEscape(b.hash)
      << "</code></td>";
    h << "<td data-sort=\"" << static_cast<int>(b.Class()) << "\">"
      << HtmlEscape(FindingClassTitle(b.Class())) << "</td>";
    h << "<td data-sort=\"" << static_cast<int>(b.cls) << "\">" << Badge(b) << "</td>";
    h << "<td>" << HtmlEscape(b.kind) << "</td><td>"
      << HtmlEscape(b.blamed.empty() ? "?" : b.blamed) << "</td>";
    h << "<td class=\"num\" data-sort=\"" << b.count << "\">" << b.count << "</td>";
    h << "<td class=\"num\" data-sort=\"" << b.severity << "\">" << b.severity << "</td>";
    h << "<td data-sort=\"" << campaigns.size() << "\">" << campaign_list << "</td>";
    h << "<td data-sort=\"" << (b.first_found_s ? *b.first_found_s : 1e300) << "\">"
      << HtmlEscape(Seconds(b.first_found_s))
      << (b.first_seed ? "<br>seed " + std::to_string(*b.first_seed) : "") << "</td>";
    h << "<td class=\"headline\" title=\"" << HtmlEscape(b.headline) << "\">"
      << HtmlEscape(Clip(b.headline, 300));
    if (!b.summary.empty()) h << "<br><code>" << HtmlEscape(Clip(b.summary, 200)) << "</code>";
    if (b.releases) h << "<br>releases: " << HtmlEscape(b.releases->summary);
    if (b.unclaimed)
      h << "<br>" << (b.IsBack() ? "known bug back, or a fix that misses this form: " : "")
        << "catalogue " << HtmlEscape(b.unclaimed->source) << " (" << HtmlEscape(b.unclaimed->title)
        << ") " << HtmlEscape(b.unclaimed->why);
    h << "</td><td>";
    if (examples.empty()) h << "-";
    for (size_t e = 0; e < examples.size(); ++e)
      h << (e ? "<br>" : "")
        << Link(e ? "example " + std::to_string(e + 1) : "report.json", examples[e]->report_path,
                out_dir);
    h << "</td><td>"
      << Link("repro.py", examples.empty() ? "" : examples.front()->repro_path, out_dir)
      << "</td></tr>\n";
  }
  h << "</tbody>\n</table>\n";
}

// Known and baseline buckets: one line each.
void OneLineList(std::ostringstream& h, const std::string& title, const std::string& id,
                 const std::vector<const TriageBucket*>& buckets, const std::string& out_dir) {
  if (buckets.empty()) return;
  h << "<h2>" << HtmlEscape(title) << " (" << buckets.size() << ")</h2>\n<ul id=\"" << id
    << "\">\n";
  for (const TriageBucket* b : buckets) {
    std::string what = b->known ? b->known->title : b->headline;
    if (b->NotReproduced() && !b->standalone_line.empty()) what += " — " + b->standalone_line;
    std::string upstream = b->known ? b->known->upstream : "";
    auto examples = b->Examples(1);
    h << "<li><code>" << HtmlEscape(b->hash) << "</code> [" << b->count << " x] "
      << HtmlEscape(Clip(what, 300)) << (upstream.empty() ? "" : " (" + HtmlEscape(upstream) + ")")
      << (b->releases ? "; releases: " + HtmlEscape(b->releases->summary) : "") << " "
      << Link("report.json", examples.empty() ? "" : examples.front()->report_path, out_dir)
      << "</li>\n";
  }
  h << "</ul>\n";
}

// Pass coverage: each rewrite the campaigns' programs reached, with the buckets whose example
// reached it (links to their rows where they are in the table).
void RewriteSection(std::ostringstream& h, const TriageData& d) {
  h << "<h2>Inductor's rewrites reached</h2>\n";
  if (d.rewrites.rewrites.empty()) {
    h << "<p id=\"rewrites\">No summary read counts a rewrite (no compiled program reported one, "
         "or the campaigns are of an earlier mmdiff). <code>mmdiff rewrites</code> lists those "
         "never reached.</p>\n";
    return;
  }
  int64_t programs = 0;
  for (const auto& c : d.campaigns) programs += c.has_summary ? c.cases : 0;
  h << "<p>Programs whose compiled runs reported each of Inductor's graph rewrites (summary.json "
       "\"rewrites\"); <code>mmdiff rewrites</code> lists the family's rewrites never "
       "reached.</p>\n<table id=\"rewrites\"><thead><tr><th>rewrite</th><th>programs</th>"
       "<th>share</th><th>first case seed</th><th>buckets whose example reached it</th></tr>"
       "</thead><tbody>\n";
  for (const RewriteRow& r : RewriteRows(d.rewrites, d.bucket_rewrites)) {
    const double share =
        programs > 0 ? 100.0 * static_cast<double>(r.stats.programs) / static_cast<double>(programs)
                     : 0.0;
    std::ostringstream pct;
    pct.precision(1);
    pct << std::fixed << share << " %";
    h << "<tr><td><code>" << HtmlEscape(r.name) << "</code></td><td class=\"num\">"
      << r.stats.programs << "</td><td class=\"num\" data-sort=\"" << share << "\">" << pct.str()
      << "</td><td class=\"num\">" << r.stats.first_seed << "</td><td>";
    for (size_t i = 0; i < r.buckets.size(); ++i)
      h << (i ? " " : "") << "<a href=\"#bucket-" << HtmlEscape(r.buckets[i]) << "\"><code>"
        << HtmlEscape(r.buckets[i]) << "</code></a>";
    h << "</td></tr>\n";
  }
  h << "</tbody></table>\n";
}

}  // namespace

std::string TriageHtml(const TriageData& d, const std::vector<const TriageBucket*>& ranked,
                       const std::string& out_dir, size_t max_examples) {
  // The script's CSP nonce. A static page cannot keep a secret, and needs none: report text is
  // escaped, so nothing can add a <script> tag; the nonce is what lets the policy leave out
  // 'unsafe-inline', which would also allow event-handler attributes and javascript: URLs.
  const std::string nonce = HashHex(kScript);
  std::ostringstream h;
  h << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
    << "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src "
       "'unsafe-inline'; "
       "script-src 'nonce-"
    << nonce << "'\">\n"
    << "<title>mmdiff triage</title>\n<style>" << kStyle << "</style>\n</head>\n<body>\n";
  const BucketGroups groups = GroupBuckets(ranked);
  h << "<h1>mmdiff triage</h1>\n<p class=\"stats\">" << ranked.size() << " buckets ("
    << HtmlEscape(GroupCounts(groups)) << "), " << d.TotalCount() << " diverging cases, from "
    << d.campaigns.size() << " campaigns or report folders (" << d.summaries_read
    << " summaries and " << d.reports_read << " reports read, " << d.skipped.size()
    << " files skipped).</p>\n";
  h << "<p>" << HtmlEscape(RankingExplanation()) << " Click a column header to sort.</p>\n";
  h << "<div class=\"plots\">\n"
    << OpDtypePlot(d) << ErrorKPlot(d) << BucketsOverTimePlot(d) << "</div>\n";
  BucketTable(h, groups.fresh, max_examples, out_dir);
  OneLineList(h, "Not reproduced standalone", "unreproduced", groups.unreproduced, out_dir);
  OneLineList(h, "Known root causes", "known", groups.known, out_dir);
  OneLineList(h, "Seen in the baseline", "baseline", groups.baseline, out_dir);

  h << "<h2>Campaigns</h2>\n<table "
       "id=\"campaigns\"><thead><tr><th>campaign</th><th>summary</th><th>cases</th>"
       "<th>elapsed</th><th>buckets</th></tr></thead><tbody>\n";
  for (const auto& c : d.campaigns)
    h << "<tr><td>" << HtmlEscape(c.label) << "</td><td>"
      << (c.has_summary ? HtmlEscape(c.shard.empty() ? "yes" : "yes, shard " + c.shard)
                        : "no (one count per report)")
      << "</td><td class=\"num\">" << (c.has_summary ? std::to_string(c.cases) : "-")
      << "</td><td class=\"num\">" << (c.has_summary ? HtmlEscape(Seconds(c.elapsed_s)) : "-")
      << "</td><td class=\"num\">" << c.buckets << "</td></tr>\n";
  h << "</tbody></table>\n";
  RewriteSection(h, d);
  h << "<h2>Skipped files</h2>\n";
  if (d.skipped.empty()) h << "<p id=\"skipped\">None.</p>\n";
  if (!d.skipped.empty()) {
    h << "<ul id=\"skipped\">\n";
    for (const auto& s : d.skipped)
      h << "<li><code>" << HtmlEscape(s.path) << "</code>: " << HtmlEscape(s.reason) << "</li>\n";
    h << "</ul>\n";
  }
  h << "<script nonce=\"" << nonce << "\">" << kScript << "</script>\n</body>\n</html>\n";
  return h.str();
}

}  // namespace mmdiff::triage
