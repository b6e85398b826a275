// Pass coverage: the rewrites a campaign's programs reached.
#include "src/report/rewrite_coverage.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <sstream>

namespace mmdiff {

void AddRewrites(const std::vector<PathResult>& results, std::set<std::string>& into) {
  for (const PathResult& r : results)
    for (const std::string& internal : r.compile.internals)
      if (internal.size() > kRewritePrefix.size() && internal.starts_with(kRewritePrefix))
        into.insert(internal.substr(kRewritePrefix.size()));
}

void AddLowerings(const std::vector<PathResult>& results, std::set<std::string>& into) {
  for (const PathResult& r : results)
    for (const std::string& internal : r.compile.internals)
      if (internal.size() > kLoweringPrefix.size() && internal.starts_with(kLoweringPrefix))
        into.insert(internal);
}

void RewriteCoverage::AddProgram(const std::set<std::string>& reached, int64_t index, uint64_t seed,
                                 double found_s) {
  for (const std::string& name : reached) {
    RewriteStats& s = rewrites[name];
    ++s.programs;
    if (s.first_index < 0 || index < s.first_index) {
      s.first_index = index;
      s.first_seed = seed;
      s.first_found_s = found_s;
    }
  }
}

RewriteCoverage& RewriteCoverage::operator+=(const RewriteCoverage& o) {
  for (const auto& [name, theirs] : o.rewrites) {
    RewriteStats& s = rewrites[name];
    s.programs += theirs.programs;
    if (theirs.first_index >= 0 && (s.first_index < 0 || theirs.first_index < s.first_index)) {
      s.first_index = theirs.first_index;
      s.first_seed = theirs.first_seed;
      s.first_found_s = theirs.first_found_s;
    }
  }
  return *this;
}

nlohmann::json RewriteCoverage::ToJson() const {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [name, s] : rewrites)
    j[name] = {{"programs", s.programs},
               {"first_index", s.first_index},
               {"first_seed", s.first_seed},
               {"first_found_s", s.first_found_s}};
  return j;
}

Result<RewriteCoverage> RewriteCoverage::FromJson(const nlohmann::json& j) {
  if (!j.is_object()) return Status::Error("\"rewrites\" must be an object");
  RewriteCoverage c;
  for (const auto& [name, v] : j.items()) {
    const std::string where = "rewrites." + nlohmann::json(name).dump();
    if (!ValidRewriteName(name)) return Status::Error(where + " is not a rewrite name");
    if (!v.is_object()) return Status::Error(where + " must be an object");
    auto count = [&](const char* key, int64_t min) -> Result<int64_t> {
      if (!v.contains(key) || !v.at(key).is_number_integer())
        return Status::Error(where + "." + key + " must be an integer");
      int64_t n = v.at(key).get<int64_t>();
      if (n < min || n > (int64_t{1} << 53))
        return Status::Error(where + "." + key + " is out of range: " + v.at(key).dump());
      return n;
    };
    auto programs = count("programs", 1);
    if (!programs.ok()) return programs.status();
    auto first = count("first_index", 0);
    if (!first.ok()) return first.status();
    if (!v.contains("first_seed") || !v.at("first_seed").is_number_unsigned())
      return Status::Error(where + ".first_seed must be a non-negative integer");
    if (!v.contains("first_found_s") || !v.at("first_found_s").is_number())
      return Status::Error(where + ".first_found_s must be a number");
    const double found = v.at("first_found_s").get<double>();
    if (!(found >= 0 && found < 1e12))
      return Status::Error(where +
                           ".first_found_s is out of range: " + v.at("first_found_s").dump());
    c.rewrites[name] = {programs.value(), first.value(), v.at("first_seed").get<uint64_t>(), found};
  }
  return c;
}

std::vector<RewriteRow> RewriteRows(
    const RewriteCoverage& coverage,
    const std::map<std::string, std::vector<std::string>>& buckets) {
  std::vector<RewriteRow> rows;
  for (const auto& [name, s] : coverage.rewrites) {
    RewriteRow row{name, s, {}};
    for (const auto& [hash, reached] : buckets)
      if (std::find(reached.begin(), reached.end(), name) != reached.end())
        row.buckets.push_back(hash);
    rows.push_back(std::move(row));
  }
  return rows;
}

std::string RewriteTable(std::vector<RewriteRow> rows, int64_t programs) {
  if (rows.empty()) return "no compiled program reported a rewrite\n";
  std::stable_sort(rows.begin(), rows.end(), [](const RewriteRow& a, const RewriteRow& b) {
    return a.stats.programs > b.stats.programs;
  });
  int width = 7;  // "rewrite"
  for (const RewriteRow& r : rows) width = std::max(width, static_cast<int>(r.name.size()));
  std::ostringstream out;
  char line[512];
  std::snprintf(line, sizeof line, "%-*s  %8s  %6s  %22s  %s\n", width, "rewrite", "programs",
                "share", "first (case seed, s)", "buckets whose example reached it");
  out << line;
  for (const RewriteRow& r : rows) {
    const double share =
        programs > 0 ? 100.0 * static_cast<double>(r.stats.programs) / static_cast<double>(programs)
                     : 0.0;
    std::string buckets;
    for (const std::string& b : r.buckets) buckets += (buckets.empty() ? "" : " ") + b;
    char first[64];
    std::snprintf(first, sizeof first, "%llu, %.0f",
                  static_cast<unsigned long long>(r.stats.first_seed), r.stats.first_found_s);
    std::snprintf(line, sizeof line, "%-*s  %8lld  %5.1f%%  %22s  ", width, r.name.c_str(),
                  static_cast<long long>(r.stats.programs), share, first);
    out << line << (buckets.empty() ? "-" : buckets) << "\n";
  }
  return out.str();
}

bool ValidRewriteName(const std::string& name) {
  if (name.empty() || name.size() > 200) return false;
  return std::all_of(name.begin(), name.end(), [](char ch) {
    return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == '.' || ch == ':' ||
           ch == '-';
  });
}

}  // namespace mmdiff
