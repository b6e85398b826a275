// The triage workflow.
#include "src/triage/triage.h"

#include <filesystem>

#include "src/support/files.h"
#include "src/triage/triage_html.h"
#include "src/triage/triage_input.h"
#include "src/triage/triage_markdown.h"
#include "src/triage/triage_rank.h"

namespace mmdiff::triage {

TriageOutcome RunTriage(const TriageOptions& o) {
  TriageOutcome out;
  auto loaded = LoadTriageInputs(o.inputs);
  if (!loaded.ok()) {
    out.failure = TriageFailure::kBadInput;
    out.message = loaded.error();
    return out;
  }
  out.data = std::move(loaded).value();
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
