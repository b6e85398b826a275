// Severity table and bucket ranking.
#include "src/triage/triage_rank.h"

#include <algorithm>

namespace mmdiff::triage {

int Severity(std::string_view kind) {
  if (kind == "crash" || kind == "timeout") return 5;
  if (kind == "error_behaviour") return 4;
  if (kind == "error_class") return 3;
  if (kind == "dtype" || kind == "shape" || kind == "device" || kind == "meta") return 2;
  if (kind == "value") return 1;
  return 0;
}

std::string_view SeverityLegend() {
  return "severity 5: crash, timeout; 4: error_behaviour; 3: error_class; 2: dtype, shape, device, "
         "meta; "
         "1: value; 0: contract (and unknown kinds)";
}

bool RanksBefore(const TriageBucket& a, const TriageBucket& b) {
  if (a.cls != b.cls) return static_cast<int>(a.cls) < static_cast<int>(b.cls);
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

}  // namespace mmdiff::triage
