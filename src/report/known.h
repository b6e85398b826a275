// The catalogue of known behaviours: root causes already filed or saved, so that a campaign and
// triage list new root causes first and spend no reduction on known ones. Entries are regression
// entries (corpus/regression/*.json: every expected divergence of every torch range, signed by the
// current code from the entry's program and contract, but those that restate eager's own finding
// listed beside them, as Findings folds them) and reports (report.json of an earlier
// campaign: the root causes it is about). A regression entry may name an upstream issue in its
// "upstream" field (free text such as "pytorch/pytorch#177630"; never fetched).
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "oracles/case_run.h"
#include "src/support/status.h"

namespace mmdiff {

struct KnownCause {
  std::string signature;  // the root-cause signature (oracles/root_cause.h)
  std::string title;      // the entry's title, or the report's headline
  std::string upstream;   // "" when none is recorded
  std::string source;     // the file it came from
  // What reports, summaries and case files record of it.
  KnownRecord Record() const { return {title, upstream, source}; }
};

// {"title", "upstream" (when recorded), "source"}.
nlohmann::json KnownRecordToJson(const KnownRecord& k);
// What KnownRecordToJson wrote, read from an untrusted file: "title" and "source" strings,
// "upstream" a string when present; else an error naming the field.
Result<KnownRecord> KnownRecordFromJson(const nlohmann::json& j);

class KnownCatalogue {
 public:
  // The first entry read for a signature wins (files are read in sorted order).
  void Add(KnownCause k);
  // The entry of `signature`; else, for a raising path's signature ("|raises:<Class>|"), the entry
  // recorded without the class ("|raises:?|": entries keep kinds, not classes).
  const KnownCause* Find(const std::string& signature) const;
  size_t size() const { return by_signature_.size(); }
  const std::vector<std::string>& sources() const { return sources_; }

 private:
  std::map<std::string, KnownCause> by_signature_;
  std::vector<std::string> sources_;
};

// The known causes in one file (a regression entry or a report). Errors name the file and what is
// wrong with it (unreadable, malformed, another format or version).
Result<std::vector<KnownCause>> ReadKnownFile(const std::string& path);

// Every *.json under each path (a folder, searched recursively, or a file) that is a regression
// entry or a report; other JSON files in a folder (programs, summaries, reduction.json, case.json)
// are passed over. A path that does not exist, or a named file that cannot be read as an entry or
// report, is an error.
Result<KnownCatalogue> LoadKnownCatalogue(const std::vector<std::string>& paths);

}  // namespace mmdiff
