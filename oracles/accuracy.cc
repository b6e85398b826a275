// PyTorch's accuracy rule against the program's math in float64.
#include "oracles/accuracy.h"

#include <cmath>

#include "oracles/judge.h"

namespace mmdiff {

namespace {

struct Rmse {
  double squared = 0;
  int64_t counted = 0;
  bool low_precision = false;
  bool measured = false;  // every output had fp64's shape
  double value() const { return counted ? std::sqrt(squared / static_cast<double>(counted)) : 0; }
};

Rmse Measure(const PathResult& fp64, const PathResult& r) {
  Rmse m;
  if (!r.ok() || r.outputs.size() != fp64.outputs.size()) return m;
  for (size_t o = 0; o < r.outputs.size(); ++o) {
    const TensorValue &e = fp64.outputs[o], &g = r.outputs[o];
    if (e.shape != g.shape || e.data.size() != g.data.size()) return m;
    m.low_precision |= IsHalfFloat(g.dtype);
    for (size_t i = 0; i < g.data.size(); ++i) {
      const bool bounded = e.bound.empty() || std::isfinite(e.bound[i]);
      if (!bounded || !std::isfinite(g.data[i]) || !std::isfinite(e.data[i])) continue;
      m.squared += (g.data[i] - e.data[i]) * (g.data[i] - e.data[i]);
      ++m.counted;
    }
  }
  m.measured = true;
  return m;
}

}  // namespace

std::string AccuracyClass(double path_rmse, double eager_rmse, bool low_precision,
                          int64_t counted) {
  const double m = low_precision || counted < 1000 ? 3.0 : 2.0;
  return path_rmse > m * eager_rmse + kSameTolerance / 10 ? "filable" : "precision-only";
}

bool WantsFloat64Run(const Verdict& v) {
  for (const auto& d : v.divergences)
    if (d.kind == DivergenceKind::kValue && !d.classification.empty() && !d.rmse_float64)
      return true;
  return false;
}

bool ClassifyAgainstFloat64(Verdict& v, const std::vector<PathResult>& results,
                            const PathResult& fp64) {
  const PathResult* eager = FindResult(results, kEagerPath);
  if (!fp64.ok() || !eager) return false;
  const Rmse ev = Measure(fp64, *eager);
  if (!ev.measured) return false;
  bool changed = false;
  for (auto& d : v.divergences) {
    if (d.kind != DivergenceKind::kValue || d.classification.empty() || d.paths.size() != 2)
      continue;
    const PathResult* r = FindResult(results, d.paths[1]);
    if (!r) continue;
    const Rmse xv = Measure(fp64, *r);
    if (!xv.measured || xv.counted == 0) continue;
    d.eager_rmse = ev.value();
    d.path_rmse = xv.value();
    d.rmse_float64 = true;
    d.classification = AccuracyClass(d.path_rmse, d.eager_rmse, xv.low_precision, xv.counted);
    if (!d.blamed.empty() && (!std::isfinite(d.got) || !std::isfinite(d.expected)))
      d.classification = "filable";
    changed = true;
  }
  if (changed) OrderDivergences(v);
  return changed;
}

}  // namespace mmdiff
