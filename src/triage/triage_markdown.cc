// Markdown triage summary.
#include "src/triage/triage_markdown.h"

#include <sstream>

#include "src/triage/triage_rank.h"
#include "src/triage/triage_text.h"

namespace mmdiff::triage {

namespace {

std::string Link(const std::string& label, const std::string& path, const std::string& out_dir) {
  if (path.empty()) return "-";
  return "[" + MarkdownCell(label) + "](" + UrlPath(RelativeTo(path, out_dir)) + ")";
}

std::string FirstSeen(const TriageBucket& b) {
  std::string s = Seconds(b.first_found_s);
  if (b.first_seed) s += ", seed " + std::to_string(*b.first_seed);
  return s + ", " + b.first_campaign;
}

std::string Join(const std::vector<std::string>& items, const std::string& sep) {
  std::string out;
  for (const auto& x : items) out += (out.empty() ? "" : sep) + x;
  return out;
}

}  // namespace

std::string RankingExplanation() {
  return "New root causes (in no --known catalogue and no --baseline campaign) come first and in "
         "full, ranked by what a maintainer acts on: a compiled path's silent wrong result, a "
         "compiled path raising or crashing on a valid program, a compiled path accepting what "
         "the rule rejects, eager's own bugs, error-class differences and meta-only behaviour, "
         "documented behaviour (by design). New ones that their campaign did not reproduce "
         "standalone (case rerun in a fresh worker, repro.py in a fresh Python) follow, one line "
         "each, then known ones and those seen in the baseline. "
         "Within a class, buckets are ranked filable first (a divergence PyTorch's rule for "
         "compiler accuracy reports calls filable), then unclassified ones, then precision-only "
         "ones (every divergence precision-only); then regressions first (a finding `mmdiff "
         "releases` found in "
         "the newest torch release it ran and not in an older one: its releases.json), then by "
         "count (diverging cases, summed over campaigns), then by severity (" +
         std::string(SeverityLegend()) + "), then by bucket hash.";
}

std::string TriageMarkdown(const TriageData& d, const std::vector<const TriageBucket*>& ranked,
                           const std::string& out_dir, size_t max_examples) {
  std::ostringstream md;
  md << "# mmdiff triage\n\n";
  const BucketGroups groups = GroupBuckets(ranked);
  md << ranked.size() << " buckets (" << GroupCounts(groups) << "), " << d.TotalCount()
     << " diverging cases, from " << d.campaigns.size() << " campaigns or report folders ("
     << d.summaries_read << " summaries and " << d.reports_read << " reports read, "
     << d.skipped.size() << " files skipped).\n\n";
  md << RankingExplanation() << "\n\n";
  const std::vector<const TriageBucket*>& all = ranked;
  {
    const std::vector<const TriageBucket*>& ranked = groups.fresh;  // in full: the new root causes
    if (all.empty())
      md << "No divergences were found.\n\n";
    else if (ranked.empty())
      md << "No new root causes: every bucket is known or in the baseline.\n\n";
    size_t backs = 0;
    for (const TriageBucket* b : ranked)
      if (b->IsBack()) {
        if (!backs++)
          md << "## Known bugs back, or fixes that miss this form\n\nA catalogue entry expects "
                "these on other torch releases only; they are listed in full below, first.\n\n";
        md << "- `" << b->hash << "` " << MarkdownCell(Clip(b->headline, 240)) << ": "
           << MarkdownCell(b->unclaimed->source) << " (" << MarkdownCell(b->unclaimed->title)
           << ") " << MarkdownCell(b->unclaimed->why) << "\n";
      }
    if (backs) md << "\n";
    if (!ranked.empty()) {
      md << "| rank | bucket | class | filing | kind | blamed | count | severity | campaigns | "
            "first seen | headline | report | repro |\n";
      md << "|---:|---|---|---|---|---|---:|---:|---|---|---|---|---|\n";
    }
    for (size_t i = 0; i < ranked.size(); ++i) {
      const TriageBucket& b = *ranked[i];
      auto examples = b.Examples(1);
      const Sighting* ex = examples.empty() ? nullptr : examples.front();
      auto campaigns = b.Campaigns();
      md << "| " << i + 1 << " | `" << b.hash << "` | " << FindingClassTitle(b.Class()) << " | "
         << MarkdownCell(ClassTag(b.DecidedClass())) << " | " << MarkdownCell(b.kind) << " | "
         << MarkdownCell(b.blamed.empty() ? "?" : b.blamed) << " | " << b.count << " | "
         << b.severity << " | " << campaigns.size() << ": " << MarkdownCell(Join(campaigns, ", "))
         << " | " << MarkdownCell(FirstSeen(b)) << " | " << MarkdownCell(Clip(b.headline, 240))
         << " | " << Link("report.json", ex ? ex->report_path : "", out_dir) << " | "
         << Link("repro.py", ex ? ex->repro_path : "", out_dir) << " |\n";
    }

    if (!ranked.empty()) md << "\n## Buckets\n";
    for (size_t i = 0; i < ranked.size(); ++i) {
      const TriageBucket& b = *ranked[i];
      md << "\n### " << i + 1 << ". `" << b.hash << "`: " << FindingClassTitle(b.Class()) << " ("
         << MarkdownCell(b.kind) << ")\n\n";
      md << "- class: " << MarkdownCell(ClassTag(b.DecidedClass())) << "\n";
      md << "- headline: " << MarkdownCell(b.headline) << "\n";
      if (b.unclaimed)
        md << "- catalogue: " << MarkdownCell(b.unclaimed->source) << " ("
           << MarkdownCell(b.unclaimed->title) << ") " << MarkdownCell(b.unclaimed->why) << "\n";
      md << "- signature: " << MarkdownCell(b.signature) << "\n";
      if (b.root_causes.size() == 1 && b.root_causes[0] != b.signature)
        md << "- root cause ("
           << (b.reduced_root_cause ? "signed by the reduced case" : "signed by this mmdiff")
           << "): " << MarkdownCell(b.root_causes[0]) << "\n";
      if (!b.merged_hashes.empty())
        md << "- also campaign buckets " << MarkdownCell(Join(b.merged_hashes, ", "))
           << ": the same root cause\n";
      if (!b.summary.empty()) md << "- program: " << MarkdownCell(b.summary) << "\n";
      if (b.releases)
        md << "- releases: " << MarkdownCell(b.releases->summary) << " (`mmdiff releases`)\n";
      if (!b.standalone_line.empty())
        md << "- standalone: " << MarkdownCell(b.standalone_line) << "\n";
      if (!b.from_report)
        md << "- no report.json could be read: kind, blame and class come from the summary's "
              "headline\n";
      md << "- seen by:";
      for (const auto& s : b.sightings)
        md << (&s == &b.sightings.front() ? " " : "; ") << MarkdownCell(s.campaign) << " ("
           << s.count << ", first at " << Seconds(s.first_found_s) << ")";
      md << "\n- examples:";
      auto examples = b.Examples(max_examples);
      if (examples.empty()) md << " none readable";
      for (const Sighting* s : examples)
        md << " " << Link(RelativeTo(s->report_path, out_dir), s->report_path, out_dir)
           << (s->repro_path.empty() ? "" : " (" + Link("repro.py", s->repro_path, out_dir) + ")")
           << ";";
      md << "\n";
    }
  }
  auto one_line = [&](const TriageBucket& b, const std::string& what) {
    auto examples = b.Examples(1);
    md << "- `" << b.hash << "` [" << b.count << " x] " << MarkdownCell(what)
       << (b.releases ? "; releases: " + MarkdownCell(b.releases->summary) : "") << " ("
       << Link("report.json", examples.empty() ? "" : examples.front()->report_path, out_dir)
       << ")\n";
  };
  if (!groups.unreproduced.empty())
    md << "\n## Not reproduced standalone (" << groups.unreproduced.size()
       << ")\n\nTheir case rerun in a fresh worker, or their repro.py in a fresh Python, did not "
          "show the finding again: not filable as they are.\n\n";
  for (const TriageBucket* b : groups.unreproduced)
    one_line(*b, Clip(b->headline, 240) +
                     (b->standalone_line.empty() ? "" : " — " + Clip(b->standalone_line, 300)));
  if (!groups.known.empty()) md << "\n## Known root causes (" << groups.known.size() << ")\n\n";
  for (const TriageBucket* b : groups.known) {
    const std::string& upstream = b->known->upstream;
    one_line(*b, b->known->title + (upstream.empty() ? "" : " (" + upstream + ")"));
  }
  if (!groups.baseline.empty())
    md << "\n## Seen in the baseline (" << groups.baseline.size() << ")\n\n";
  for (const TriageBucket* b : groups.baseline) one_line(*b, Clip(b->headline, 240));

  md << "\n## Campaigns\n\n| campaign | summary | cases | elapsed | buckets "
        "|\n|---|---|---:|---:|---:|\n";
  for (const auto& c : d.campaigns)
    md << "| " << MarkdownCell(c.label) << " | "
       << (c.has_summary ? MarkdownCell(c.shard.empty() ? "yes" : "yes, shard " + c.shard)
                         : "no (one count per report)")
       << " | " << (c.has_summary ? std::to_string(c.cases) : "-") << " | "
       << (c.has_summary ? Seconds(c.elapsed_s) : "-") << " | " << c.buckets << " |\n";

  md << "\n## Skipped files\n\n";
  if (d.skipped.empty()) md << "None.\n";
  for (const auto& s : d.skipped)
    md << "- " << MarkdownCell(s.path) << ": " << MarkdownCell(s.reason) << "\n";
  return md.str();
}

}  // namespace mmdiff::triage
