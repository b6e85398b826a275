// The triage workflow.
#include "src/triage/triage.h"

#include <filesystem>
#include <set>

#include "src/support/files.h"
#include "src/triage/triage_html.h"
#include "src/triage/triage_input.h"
#include "src/triage/triage_markdown.h"
#include "src/triage/triage_rank.h"

namespace mmdiff::triage {

void MarkKnown(TriageData& d, const KnownCatalogue& catalogue,
               const std::set<std::string>& baseline) {
  for (auto& [hash, b] : d.buckets)
    for (const auto& cause : b.root_causes) {
      // Judged on the torch the bucket's case ran on; a bucket without one, on the catalogue's.
      const std::string& torch = b.torch.empty() ? catalogue.torch() : b.torch;
      if (const KnownCause* k = catalogue.Find(cause, torch); k && !b.known)
        b.known = k->Record(torch);
      else if (!b.known && !b.unclaimed)
        b.unclaimed = catalogue.Unclaimed(cause, torch);
      b.in_baseline |= baseline.count(cause) > 0;
    }
}

TriageOutcome RunTriage(const TriageOptions& o) {
  TriageOutcome out;
  auto loaded = LoadTriageInputs(o.inputs);
  if (!loaded.ok()) {
    out.failure = TriageFailure::kBadInput;
    out.message = loaded.error();
    return out;
  }
  out.data = std::move(loaded).value();
  auto catalogue = LoadKnownCatalogue(o.known_paths, o.torch);
  if (!catalogue.ok()) {
    out.failure = TriageFailure::kBadInput;
    out.message = "--known: " + catalogue.error();
    return out;
  }
  std::set<std::string> seen_before;
  if (!o.baseline.empty()) {
    auto baseline = LoadTriageInputs(o.baseline);
    if (!baseline.ok()) {
      out.failure = TriageFailure::kBadInput;
      out.message = "--baseline: " + baseline.error();
      return out;
    }
    for (const auto& [hash, b] : baseline.value().buckets)
      seen_before.insert(b.root_causes.begin(), b.root_causes.end());
  }
  MarkKnown(out.data, catalogue.value(), seen_before);
  Status dir = MakeWritableDir(o.out_dir);
  if (!dir.ok()) {
    out.failure = TriageFailure::kOutput;
    out.message = "output folder: " + dir.message();
    return out;
  }
  auto ranked = RankBuckets(out.data);
  namespace fs = std::filesystem;
  std::string md_path = (fs::path(o.out_dir) / "triage.md").string();
  std::string html_path = (fs::path(o.out_dir) / "triage.html").string();
  for (const auto& [path, text] :
       {std::pair{md_path, TriageMarkdown(out.data, ranked, o.out_dir, o.max_examples)},
        std::pair{html_path, TriageHtml(out.data, ranked, o.out_dir, o.max_examples)}}) {
    Status w = WriteFileAtomic(path, text);
    if (!w.ok()) {
      out.failure = TriageFailure::kOutput;
      out.message = w.message();
      return out;
    }
    out.written.push_back(path);
  }
  return out;
}

}  // namespace mmdiff::triage
