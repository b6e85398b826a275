// Bucket signatures.
#include "src/report/bucket.h"

#include <algorithm>
#include <set>

namespace mmdiff {

std::string BucketSignature(const Program& p, const std::vector<PathResult>& results, const Verdict& v) {
  std::set<std::string> parts;
  for (const auto& d : v.divergences) {
    std::string s = std::string(DivergenceKindName(d.kind)) + ":";
    for (size_t i = 0; i < d.paths.size(); ++i) s += (i ? "/" : "") + d.paths[i];
    s += ":blamed=" + (d.blamed.empty() ? std::string("?") : d.blamed);
    if (d.kind == DivergenceKind::kCrash || d.kind == DivergenceKind::kTimeout) {
      for (const auto& r : results)
        if (r.path == d.paths[0]) s += ":stage=" + r.stage;
    }
    parts.insert(s);
  }
  std::string ops;
  for (const auto& n : p.nodes)
    if (n.op != OpKind::kCast) ops += (ops.empty() ? "" : ",") + std::string(GetOpSpec(n.op).name);
  std::set<std::string> dtypes, devices, errors;
  for (const auto& in : p.inputs) {
    dtypes.insert(std::string(DTypeName(in.dtype)));
    devices.insert(std::string(DeviceName(in.device)));
  }
  for (const auto& r : results)
    if (r.kind == OutcomeKind::kError) errors.insert(r.path + "=" + r.error_class);
  auto join = [](const std::set<std::string>& s) {
    std::string out;
    for (const auto& x : s) out += (out.empty() ? "" : ",") + x;
    return out;
  };
  return join(parts) + "|ops=" + ops + "|dtypes=" + join(dtypes) + "|devices=" + join(devices) + "|errors=" + join(errors);
}

}  // namespace mmdiff
