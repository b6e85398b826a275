// The catalogue of known behaviours: root causes already filed or saved, so that a campaign and
// triage list new root causes first and spend no reduction on known ones. Entries are regression
// entries (corpus/regression/*.json: every expected divergence of every torch range, signed by the
// current code from the entry's program and contract, but those that restate eager's own finding
// listed beside them, as Findings folds them) and reports (report.json of an earlier
// campaign: the root causes it is about). A regression entry may name an upstream issue in its
// "upstream" field (free text such as "pytorch/pytorch#177630"; never fetched).
//
// An entry claims a finding only on a torch release where it expects that divergence: a finding
// whose signature an entry expects on other releases only is a known bug back, or a fix that
// misses this form, and is treated as new (reduced, checked standalone, listed first). A report
// claims its root causes on every release.
#pragma once

#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "oracles/case_run.h"
#include "src/report/regression_entry.h"
#include "src/support/status.h"

namespace mmdiff {

// How a catalogue entry stands toward a finding of its signature on one torch release.
enum class KnownStanding {
  kClaims,         // it expects this divergence there: the finding is known
  kBack,           // it expects agreement there, or other divergences: a bug back, a fix's miss
  kNoExpectation,  // it has no expectation for that release (or this CPU): it claims nothing
};

struct KnownCause {
  std::string signature;  // the root-cause signature (oracles/root_cause.h)
  std::string title;      // the entry's title, or the report's headline
  std::string upstream;   // "" when none is recorded
  std::string source;     // the file it came from
  // A regression entry's expectations, in its order, and the indices of those that list this
  // divergence; none for a report's root cause (claimed on every release).
  std::shared_ptr<const std::vector<VersionExpectation>> expected;
  std::vector<size_t> expecting;
  // What reports, summaries and case files record of it, standing as on `torch`.
  KnownRecord Record(const std::string& torch) const;
  // kClaims for a report's cause; for an entry's, by the expectation ExpectationFor picks for
  // `torch` (an expectation holding on a CPU with flags this one lacks counts as none). `why`,
  // where not null, gets what a listing says of it (empty for kClaims), e.g. "expects agreement on
  // torch 2.15.0 (>=2.12.0); this divergence on >=2.11.0,<2.12".
  KnownStanding StandingOn(const std::string& torch, std::string* why = nullptr) const;
};

// "" (claims), "back", "no_expectation": KnownRecord::standing.
const char* KnownStandingName(KnownStanding s);

// {"title", "upstream" (when recorded), "source"}.
nlohmann::json KnownRecordToJson(const KnownRecord& k);
// What KnownRecordToJson wrote, read from an untrusted file: "title" and "source" strings,
// "upstream" a string when present; else an error naming the field.
Result<KnownRecord> KnownRecordFromJson(const nlohmann::json& j);

class KnownCatalogue {
 public:
  // `torch`: the release whose findings Find and Unclaimed judge by default (the installed one).
  explicit KnownCatalogue(std::string torch = "") : torch_(std::move(torch)) {}
  void Add(KnownCause k);
  // The first entry (files in sorted order) that claims `signature` on `torch` (by default the
  // catalogue's): else, for a raising path's signature ("|raises:<Class>|"), one that claims it
  // recorded without the class ("|raises:?|": entries keep kinds, not classes). Null when none.
  const KnownCause* Find(const std::string& signature) const { return Find(signature, torch_); }
  const KnownCause* Find(const std::string& signature, const std::string& torch) const;
  // Where no entry claims `signature` on `torch`: the record of one that matches it without
  // claiming it, an entry expecting agreement there first (KnownStanding::kBack), else one with no
  // expectation there. None where no entry matches, or one claims it.
  std::optional<KnownRecord> Unclaimed(const std::string& signature) const {
    return Unclaimed(signature, torch_);
  }
  std::optional<KnownRecord> Unclaimed(const std::string& signature,
                                       const std::string& torch) const;
  // The signatures known, whatever the release.
  size_t size() const { return by_signature_.size(); }
  const std::vector<std::string>& sources() const { return sources_; }
  const std::string& torch() const { return torch_; }

 private:
  const std::vector<KnownCause>* Matching(const std::string& signature) const;
  std::string torch_;
  std::map<std::string, std::vector<KnownCause>> by_signature_;
  std::vector<std::string> sources_;
};

// What the catalogue says of a finding signed `signature` on `torch`, in one line: "known: <title>
// (<source>)", "known bug back, or a fix that misses this form: <source> <why>", "not claimed:
// <source> <why>" (an entry with no expectation there), or "" when no entry matches it.
std::string DescribeCatalogueMatch(const KnownCatalogue& catalogue, const std::string& signature,
                                   const std::string& torch);

// The known causes in one file (a regression entry or a report). Errors name the file and what is
// wrong with it (unreadable, malformed, another format or version).
Result<std::vector<KnownCause>> ReadKnownFile(const std::string& path);

// Every *.json under each path (a folder, searched recursively, or a file) that is a regression
// entry or a report; other JSON files in a folder (programs, summaries, reduction.json, case.json)
// are passed over. A path that does not exist, or a named file that cannot be read as an entry or
// report, is an error. `torch`: the release the catalogue judges findings of by default.
Result<KnownCatalogue> LoadKnownCatalogue(const std::vector<std::string>& paths,
                                          const std::string& torch);

}  // namespace mmdiff
