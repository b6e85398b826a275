// Severity table and bucket ranking.
#include "src/triage/triage_rank.h"

#include <algorithm>

#include "oracles/verdict.h"

namespace mmdiff::triage {

int Severity(std::string_view kind) {
  auto k = ParseDivergenceKind(kind);
  return k ? DivergenceSeverity(*k) : 0;
}

std::string_view SeverityLegend() {
  return "severity 5: crash, timeout; 4: error_behaviour, backward_error; 3: error_class; 2: "
         "dtype, "
         "shape, device, meta; 1: value, ignored_input; 0: contract (and unknown kinds)";
}

bool RanksBefore(const TriageBucket& a, const TriageBucket& b) {
  if (a.IsNew() != b.IsNew()) return a.IsNew();
  if (a.NotReproduced() != b.NotReproduced()) return b.NotReproduced();
  // A catalogued bug back (or a fix's miss) before the other new ones.
  if (a.IsBack() != b.IsBack()) return a.IsBack();
  // New ones by what a maintainer acts on: a compiled path's wrong result first.
  if (a.IsNew() && a.Class() != b.Class()) return a.Class() < b.Class();
  if (a.cls != b.cls) return static_cast<int>(a.cls) < static_cast<int>(b.cls);
  // A regression (new in a recent release) before a long-standing behaviour of its class.
  if (a.IsRegression() != b.IsRegression()) return a.IsRegression();
  if (a.count != b.count) return a.count > b.count;
  if (a.severity != b.severity) return a.severity > b.severity;
  return a.hash < b.hash;
}

std::vector<const TriageBucket*> RankBuckets(const TriageData& d) {
  std::vector<const TriageBucket*> out;
  for (const auto& [hash, b] : d.buckets) out.push_back(&b);
  std::sort(out.begin(), out.end(),
            [](const TriageBucket* a, const TriageBucket* b) { return RanksBefore(*a, *b); });
  return out;
}

BucketGroups GroupBuckets(const std::vector<const TriageBucket*>& ranked) {
  BucketGroups g;
  for (const TriageBucket* b : ranked)
    (b->NotReproduced() ? g.unreproduced
     : b->IsNew()       ? g.fresh
     : b->known         ? g.known
                        : g.baseline)
        .push_back(b);
  return g;
}

std::string GroupCounts(const BucketGroups& g) {
  std::string s = std::to_string(g.fresh.size()) +
                  (g.fresh.size() == 1 ? " new root cause" : " new root causes");
  if (!g.unreproduced.empty())
    s += ", " + std::to_string(g.unreproduced.size()) + " not reproduced standalone";
  const size_t back = std::count_if(g.fresh.begin(), g.fresh.end(),
                                    [](const TriageBucket* b) { return b->IsBack(); });
  if (back) s += " (" + std::to_string(back) + " of them a known bug back or a fix's miss)";
  if (!g.known.empty()) s += ", " + std::to_string(g.known.size()) + " known";
  if (!g.baseline.empty()) s += ", " + std::to_string(g.baseline.size()) + " in the baseline";
  return s;
}

}  // namespace mmdiff::triage
