// The triage data model: what triage reads from a report, merged buckets with the campaigns that
// saw them, and the samples the plots draw.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "oracles/case_run.h"
#include "src/releases/release_history.h"
#include "src/report/finding_class.h"
#include "src/report/rewrite_coverage.h"

namespace mmdiff::triage {

// How a bucket is filed, in rank order: filable first, precision-only last.
//  kFilable: some divergence is classified "filable" (PyTorch's rule for compiler accuracy
//  reports). kPrecisionOnly: every divergence is classified "precision-only". kUnclassified:
//  everything else (eager's own bugs, crashes, contract gaps, meta divergences).
enum class BucketClass { kFilable, kUnclassified, kPrecisionOnly };
std::string_view BucketClassName(BucketClass c);  // "filable", "unclassified", "precision-only"

// One value divergence of one report: the worst element's |got - expected| and the reduction
// dimension K of the matmul-family node behind that output.
struct ErrorSample {
  std::string bucket_hash;
  std::string blamed;
  BucketClass cls = BucketClass::kUnclassified;  // the divergence's own classification
  int64_t k = 0;
  double error = 0;    // |got - expected|, finite and > 0
  double allowed = 0;  // the bound it exceeded (may be 0: exact products)
};

// The program facts the op x dtype grid uses: the matmul-family ops (and attention) in program
// order, without repeats, and the distinct input dtypes, sorted.
struct ProgramFacts {
  std::vector<std::string> ops;
  std::vector<std::string> dtypes;
};

// What triage reads from one report.json.
struct ReportFacts {
  std::string hash, signature, headline, summary;
  // The root causes the report is about, signed by the current code (oracles/root_cause.h): one
  // for a version 2 report, every finding of its case for a version 1 report; the report's own
  // bucket signature when its case cannot be read back.
  std::vector<std::string> root_causes;
  bool reduced_root_cause = false;  // root_causes are its reduced case's (reduced/report.json)
  std::string repro;                // the reproducer's file name, next to the report ("" if none)
  std::string kind, blamed;  // of the divergence the headline describes (the report's finding)
  std::vector<std::string> kinds;  // of every divergence
  BucketClass cls = BucketClass::kUnclassified;
  // The class its report records (report "class", "filing", "by_design"); none in an older one.
  std::optional<RootCauseClass> root_class;
  std::string torch;  // the torch its case ran on (report "versions"), "" when not recorded
  int severity = 0;
  ProgramFacts program;
  std::vector<ErrorSample> errors;
  int unplotted_errors = 0;  // value divergences with a non-finite or zero error, or no known K
  std::optional<uint64_t> input_seed;
  // The finding across torch releases, from `mmdiff releases` (releases.json next to the report);
  // none when it has not been run there.
  std::optional<ReleaseHistory> releases;
  // The campaign's standalone check of the finding (report "standalone"): its status
  // ("reproduced", "flaky", "not_reproduced", "not_checked") and line; "" when not recorded.
  std::string standalone, standalone_line;
};

// One campaign's (or one loose report's) view of a bucket.
struct Sighting {
  std::string campaign;  // the campaign folder (or the loose report's folder), as found
  int64_t count = 1;     // the summary's count, or 1 for a report without a summary
  std::optional<double> first_found_s;
  std::optional<uint64_t> first_seed;
  std::string report_path;  // "" when the campaign's report.json is missing or could not be read
  std::string repro_path;   // "" when there is no repro.py next to it
  std::optional<ProgramFacts> program;  // from that report
};

// A bucket merged over every input.
struct TriageBucket {
  std::string hash, signature, headline, summary, kind, blamed;
  std::vector<std::string>
      root_causes;  // from its reports (ReportFacts::root_causes), else its signature
  std::optional<KnownRecord> known;  // the catalogue entry of a known root cause; none: not known
  // An entry that matches it without claiming it on its torch (KnownCatalogue::Unclaimed); none
  // when none matches, or it is known.
  std::optional<KnownRecord> unclaimed;
  // New, and an entry expects agreement (or other divergences) on its torch: a known bug back, or
  // a fix that misses this form; listed before the other new ones.
  bool IsBack() const { return IsNew() && unclaimed && unclaimed->standing == "back"; }
  std::string torch;         // the torch its first report's case ran on; "" when not recorded
  bool in_baseline = false;  // a baseline campaign (triage --baseline) saw one of its root causes
  // New: neither in the catalogue nor in the baseline. Listed first and in full, unless it was not
  // reproduced standalone.
  bool IsNew() const { return !known && !in_baseline; }
  // The campaign's standalone check (its report's, or its summary's): the first listed status of
  // its sightings, else the first other one; "" when none recorded one (reports of an earlier
  // mmdiff, `mmdiff run`).
  std::string standalone, standalone_line;
  // New, and its campaign did not reproduce it standalone: listed apart, never among the new ones.
  bool NotReproduced() const { return IsNew() && standalone == "not_reproduced"; }
  // What a maintainer is asked to act on (src/report/finding_class.h), by its root cause.
  FindingClass Class() const;
  // Its class as its report decided it; for a bucket without one (an older report, a summary
  // line), by its root cause and its filing.
  std::optional<RootCauseClass> root_class;
  RootCauseClass DecidedClass() const;
  std::vector<std::string> kinds;
  BucketClass cls = BucketClass::kUnclassified;
  int severity = 0;
  bool from_report = false;  // facts from a report.json; false: only a summary's headline was read
  int64_t count = 0;         // summed over sightings
  std::optional<double> first_found_s;  // the earliest over campaigns (seconds into its campaign)
  std::optional<uint64_t> first_seed;   // the seed of that earliest sighting
  std::string first_campaign;
  std::vector<Sighting> sightings;
  // Buckets of the same single root cause merged into this one (MergeByRootCause): typically
  // campaign buckets whose cases differed until reduction.
  std::vector<std::string> merged_hashes;
  bool reduced_root_cause = false;         // root_causes were signed by a report's reduced case
  std::optional<ReleaseHistory> releases;  // the first of its reports' that has one
  // Present in the newest release run, absent in an older one (`mmdiff releases`).
  bool IsRegression() const { return releases && releases->label == ReleaseLabel::kRegression; }

  // The campaigns that saw it, without repeats, in the order they were read.
  std::vector<std::string> Campaigns() const;
  // Up to `max` sightings that have a report.json, the earliest first.
  std::vector<const Sighting*> Examples(size_t max) const;
  // The sighting's own program facts, else the first known ones.
  const ProgramFacts* FactsFor(const Sighting& s) const;
};

struct CampaignInfo {
  std::string label;         // the folder
  bool has_summary = false;  // false: loose reports, one count each
  std::string shard;         // the summary's "shard" ("i/n"), if any
  int64_t cases = 0;
  double elapsed_s = 0;
  int64_t buckets = 0;
};

struct SkippedFile {
  std::string path;
  std::string reason;
};

struct TriageData {
  std::map<std::string, TriageBucket> buckets;  // by hash
  // Pass coverage summed over the summaries read (src/report/rewrite_coverage.h): the rewrites
  // their programs reached, and per bucket hash those its example reached.
  RewriteCoverage rewrites;
  std::map<std::string, std::vector<std::string>> bucket_rewrites;
  std::vector<CampaignInfo> campaigns;
  std::vector<SkippedFile> skipped;  // unreadable or invalid files, left out with a warning
  std::vector<ErrorSample> errors;
  int64_t reports_read = 0;
  int64_t summaries_read = 0;
  int64_t unplotted_errors = 0;
  int64_t TotalCount() const;
};

// Merges one sighting of a bucket into `d`. `facts` is the report read for it, or null when only a
// summary entry is known (then `signature` and `headline` come from the summary, and kind, blame
// and class are read from the headline). Keeps the earliest first_found_s with its seed.
// `standalone`: the summary's standalone status of the bucket, where the report says none.
void MergeSighting(TriageData& d, const std::string& hash, Sighting s, const ReportFacts* facts,
                   const std::string& signature, const std::string& headline,
                   const std::string& standalone = "");

// Merges buckets that share their one root cause, where at least one of them was signed by its
// reduced case (buckets whose cases differ until reduction) or by other rules than its report's
// bucket signature (a report of an earlier mmdiff), into the earliest found of them: its
// hash stays, counts, sightings and the others' hashes are added to it. A bucket with several root
// causes (a version 1 report) stays as it is.
void MergeByRootCause(TriageData& d);

}  // namespace mmdiff::triage
