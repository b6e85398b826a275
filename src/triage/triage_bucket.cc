// Merging sightings of a bucket over campaigns and shards.
#include "src/triage/triage_bucket.h"

#include <algorithm>

#include "oracles/verdict.h"
#include "src/triage/triage_rank.h"

namespace mmdiff::triage {

std::string_view BucketClassName(BucketClass c) {
  switch (c) {
    case BucketClass::kFilable:
      return "filable";
    case BucketClass::kUnclassified:
      return "unclassified";
    case BucketClass::kPrecisionOnly:
      return "precision-only";
  }
  return "?";
}

std::vector<std::string> TriageBucket::Campaigns() const {
  std::vector<std::string> out;
  for (const auto& s : sightings)
    if (std::find(out.begin(), out.end(), s.campaign) == out.end()) out.push_back(s.campaign);
  return out;
}

const ProgramFacts* TriageBucket::FactsFor(const Sighting& s) const {
  if (s.program) return &*s.program;
  for (const auto& o : sightings)
    if (o.program) return &*o.program;
  return nullptr;
}

int64_t TriageData::TotalCount() const {
  int64_t n = 0;
  for (const auto& [hash, b] : buckets) n += b.count;
  return n;
}

namespace {

// A version 2 summary's signature reads "<kind>|path=<path>|..." and its headline ends in
// "[filable]" or "[precision-only]" where that applies; a version 1 headline reads
// "<kind> [blamed: <path>, <classification>]: <detail>" (the blame label is absent when nobody is
// blamed). Used only when the bucket's report could not be read.
void FillFromHeadline(TriageBucket& b, const std::string& headline) {
  size_t bar = b.signature.find("|path=");
  if (bar != std::string::npos && ParseDivergenceKind(b.signature.substr(0, bar))) {
    b.kind = b.signature.substr(0, bar);
    b.kinds = {b.kind};
    b.severity = Severity(b.kind);
    size_t start = bar + 6, end = b.signature.find('|', start);
    b.blamed =
        b.signature.substr(start, end == std::string::npos ? std::string::npos : end - start);
    if (b.blamed.rfind("?", 0) == 0) b.blamed.clear();
    auto ends_with = [&](const std::string& tail) {
      return headline.size() >= tail.size() &&
             headline.compare(headline.size() - tail.size(), tail.size(), tail) == 0;
    };
    if (ends_with("[filable]")) b.cls = BucketClass::kFilable;
    if (ends_with("[precision-only]")) b.cls = BucketClass::kPrecisionOnly;
    return;
  }
  size_t end = headline.find_first_of(" [:");
  b.kind = headline.substr(0, end == std::string::npos ? headline.size() : end);
  b.kinds = {b.kind};
  b.severity = Severity(b.kind);
  size_t label = headline.find("[blamed: ");
  size_t colon = headline.find(": ");
  if (label != std::string::npos && (colon == std::string::npos || label < colon)) {
    size_t start = label + 9;
    size_t close = headline.find(']', start);
    std::string inside =
        headline.substr(start, close == std::string::npos ? std::string::npos : close - start);
    size_t comma = inside.find(", ");
    b.blamed = inside.substr(0, comma);
    std::string cls = comma == std::string::npos ? "" : inside.substr(comma + 2);
    if (cls == "filable") b.cls = BucketClass::kFilable;
    if (cls == "precision-only") b.cls = BucketClass::kPrecisionOnly;
  }
}

void FillFromFacts(TriageBucket& b, const ReportFacts& f) {
  b.signature = f.signature;
  b.headline = f.headline;
  b.summary = f.summary;
  b.kind = f.kind;
  b.kinds = f.kinds;
  b.blamed = f.blamed;
  b.cls = f.cls;
  b.root_class = f.root_class;
  b.torch = f.torch;
  b.severity = f.severity;
  b.from_report = true;
}

void AddRootCauses(TriageBucket& b, const std::vector<std::string>& causes) {
  for (const auto& c : causes)
    if (std::find(b.root_causes.begin(), b.root_causes.end(), c) == b.root_causes.end())
      b.root_causes.push_back(c);
}

// True when sighting a was seen before sighting b: earlier time; a time beats none; then lower
// seed.
bool Earlier(const std::optional<double>& ta, const std::optional<uint64_t>& sa,
             const std::optional<double>& tb, const std::optional<uint64_t>& sb) {
  if (ta && tb && *ta != *tb) return *ta < *tb;
  if (ta.has_value() != tb.has_value()) return ta.has_value();
  if (sa && sb) return *sa < *sb;
  return sa.has_value() && !sb.has_value();
}

}  // namespace

std::vector<const Sighting*> TriageBucket::Examples(size_t max) const {
  std::vector<const Sighting*> out;
  for (const auto& s : sightings)
    if (!s.report_path.empty()) out.push_back(&s);
  std::stable_sort(out.begin(), out.end(), [](const Sighting* a, const Sighting* b) {
    return Earlier(a->first_found_s, a->first_seed, b->first_found_s, b->first_seed);
  });
  if (out.size() > max) out.resize(max);
  return out;
}

FindingClass TriageBucket::Class() const {
  return ClassOfRootCause(root_causes.empty() ? signature : root_causes.front());
}

RootCauseClass TriageBucket::DecidedClass() const {
  if (root_class) return *root_class;
  return ClassifyRootCause(root_causes.empty() ? signature : root_causes.front(),
                           cls == BucketClass::kPrecisionOnly ? "precision-only" : "");
}

namespace {
bool Listed(const std::string& status) { return status == "reproduced" || status == "flaky"; }
}  // namespace

void MergeSighting(TriageData& d, const std::string& hash, Sighting s, const ReportFacts* facts,
                   const std::string& signature, const std::string& headline,
                   const std::string& standalone) {
  auto [it, is_new] = d.buckets.try_emplace(hash);
  TriageBucket& b = it->second;
  if (is_new) {
    b.hash = hash;
    b.signature = signature;
    b.headline = headline;
    if (!facts) FillFromHeadline(b, headline);
  }
  // The first report read decides the bucket's facts; a summary-only bucket takes them from a
  // report as soon as one turns up.
  if (facts && !b.from_report) FillFromFacts(b, *facts);
  AddRootCauses(b, facts ? facts->root_causes : std::vector<std::string>{signature});
  b.reduced_root_cause |= facts && facts->reduced_root_cause;
  if (facts && facts->releases && !b.releases) b.releases = facts->releases;
  const std::string status = facts && !facts->standalone.empty() ? facts->standalone : standalone;
  if (!status.empty() && (b.standalone.empty() || (Listed(status) && !Listed(b.standalone)))) {
    b.standalone = status;
    b.standalone_line = facts ? facts->standalone_line : "";
  }
  b.count += s.count;
  if (b.sightings.empty() ||
      Earlier(s.first_found_s, s.first_seed, b.first_found_s, b.first_seed)) {
    b.first_found_s = s.first_found_s;
    b.first_seed = s.first_seed;
    b.first_campaign = s.campaign;
  }
  // Buckets of one campaign that share a folder (their cases reduced to one root cause) are one
  // sighting of that report.
  for (Sighting& seen : b.sightings)
    if (!s.report_path.empty() && seen.campaign == s.campaign &&
        seen.report_path == s.report_path) {
      seen.count += s.count;
      if (Earlier(s.first_found_s, s.first_seed, seen.first_found_s, seen.first_seed))
        seen.first_found_s = s.first_found_s, seen.first_seed = s.first_seed;
      return;
    }
  b.sightings.push_back(std::move(s));
}

void MergeByRootCause(TriageData& d) {
  std::map<std::string, std::vector<std::string>> by_cause;  // root cause -> bucket hashes
  for (const auto& [hash, b] : d.buckets)
    if (b.root_causes.size() == 1) by_cause[b.root_causes[0]].push_back(hash);
  for (auto& [cause, hashes] : by_cause) {
    // Only where the root cause is not what the campaign bucketed by: signed by a reduced case, or
    // by this mmdiff's signing where the report was written by an earlier one.
    auto resigned = [&](const std::string& x) {
      const TriageBucket& b = d.buckets.at(x);
      return b.reduced_root_cause || (b.from_report && b.signature != cause);
    };
    if (hashes.size() < 2 || std::none_of(hashes.begin(), hashes.end(), resigned)) continue;
    auto host = std::min_element(
        hashes.begin(), hashes.end(), [&](const std::string& x, const std::string& y) {
          const TriageBucket &a = d.buckets.at(x), &b = d.buckets.at(y);
          if (Earlier(a.first_found_s, a.first_seed, b.first_found_s, b.first_seed)) return true;
          if (Earlier(b.first_found_s, b.first_seed, a.first_found_s, a.first_seed)) return false;
          return x < y;
        });
    TriageBucket& h = d.buckets.at(*host);
    for (const auto& other : hashes) {
      if (other == *host) continue;
      TriageBucket& o = d.buckets.at(other);
      h.count += o.count;
      if (!h.from_report && o.from_report) {  // the facts of a report beat a summary's headline
        h.signature = o.signature, h.headline = o.headline, h.summary = o.summary, h.kind = o.kind;
        h.kinds = o.kinds, h.blamed = o.blamed, h.cls = o.cls, h.severity = o.severity,
        h.from_report = true;
      }
      if (Earlier(o.first_found_s, o.first_seed, h.first_found_s, h.first_seed)) {
        h.first_found_s = o.first_found_s;
        h.first_seed = o.first_seed;
        h.first_campaign = o.first_campaign;
      }
      for (auto& s : o.sightings) h.sightings.push_back(std::move(s));
      h.reduced_root_cause |= o.reduced_root_cause;
      if (!h.releases) h.releases = o.releases;
      if (!o.standalone.empty() &&
          (h.standalone.empty() || (Listed(o.standalone) && !Listed(h.standalone))))
        h.standalone = o.standalone, h.standalone_line = o.standalone_line;
      h.merged_hashes.push_back(other);
      h.merged_hashes.insert(h.merged_hashes.end(), o.merged_hashes.begin(), o.merged_hashes.end());
      d.buckets.erase(other);
    }
  }
}

}  // namespace mmdiff::triage
