// Pass coverage: which of Inductor's graph rewrites (pattern-matcher entries, matmul
// decompositions) a campaign's programs reached. A compiled path reports the rewrites that fired
// while it compiled as internals "rewrite:<name>" (src/backends/python/rewrite_names.py names
// them); a program reaches a rewrite when any of its checked inputs' compiled runs reported it.
// summary.json keeps the counts ("rewrites"), `mmdiff fuzz --profile` and triage.html show them,
// and `mmdiff rewrites` lists the ones of the installed torch that no program reached. Lowering
// coverage shares the counts: a program's "lowering:<name>" internals are counted under that name.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "src/ir/outcome.h"
#include "src/support/status.h"

namespace mmdiff {

// The rewrites the results' compiled runs reported, added to `into` (names without the prefix).
void AddRewrites(const std::vector<PathResult>& results, std::set<std::string>& into);
// The lowerings they reported (kLoweringPrefix), added to `into` with their prefix: lowering
// coverage counts beside the rewrites ("lowering:template.CppGemmTemplate").
void AddLowerings(const std::vector<PathResult>& results, std::set<std::string>& into);

struct RewriteStats {
  int64_t programs = 0;      // programs that reached it
  int64_t first_index = -1;  // the smallest case index that reached it
  uint64_t first_seed = 0;   // that case's seed
  double first_found_s = 0;  // seconds into the campaign when that case was counted
};

struct RewriteCoverage {
  std::map<std::string, RewriteStats> rewrites;  // by name

  // One program (case `index`, seed `seed`, counted `found_s` into the campaign) and what it
  // reached.
  void AddProgram(const std::set<std::string>& reached, int64_t index, uint64_t seed,
                  double found_s);
  // Another campaign's or shard's coverage: programs add up, the first is the smallest index.
  RewriteCoverage& operator+=(const RewriteCoverage& o);
  nlohmann::json ToJson() const;
  // What ToJson wrote, or an error naming the rewrite and field that is wrong.
  static Result<RewriteCoverage> FromJson(const nlohmann::json& j);
};

// A rewrite's row for people: the programs that reached it, when first (case seed and seconds) and
// the buckets whose example reached it.
struct RewriteRow {
  std::string name;
  RewriteStats stats;
  std::vector<std::string> buckets;  // bucket hashes (or other labels), sorted
};

// The table of `rows` (most programs first), with `programs` the campaign's programs for the
// shares; "no compiled program reported a rewrite" when empty.
std::string RewriteTable(std::vector<RewriteRow> rows, int64_t programs);

// The rows of `coverage`, each with the buckets (hash -> the rewrites its example reached) that
// list it.
std::vector<RewriteRow> RewriteRows(const RewriteCoverage& coverage,
                                    const std::map<std::string, std::vector<std::string>>& buckets);

// A rewrite name as the worker writes it: letters, digits, '_', '.', ':' and '-', 1 to 200
// characters (anything else in a file is an error, not text for a table or a page).
bool ValidRewriteName(const std::string& name);

}  // namespace mmdiff
