// Stage controls: the lower stages of torch.compile's ladder, run where they can change a verdict.
#include "src/campaign/stage_controls.h"

#include <algorithm>

#include "oracles/judge.h"
#include "src/ir/paths.h"

namespace mmdiff {

namespace {

bool Contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

// A path's place on the ladder (-1: none); a knob variant's is just above its base path's, which
// with the stages below it decides whether the variant's finding lowers to it (LoweredFacts: a
// reduction that drops what only the variant does must not keep the variant's name).
int Rank(const std::string& path) {
  if (const PathRow* row = FindPath(path); row && row->variant_of[0] != '\0')
    return LadderRank(row->variant_of) + 1;
  return LadderRank(path);
}

// The highest ladder rank among the paths a divergence involves (-1: none).
int HighestRank(const Divergence& d) {
  int rank = Rank(d.blamed);
  for (const auto& p : d.paths) rank = std::max(rank, Rank(p));
  return rank;
}

}  // namespace

const char* ControlsModeName(ControlsMode m) {
  return m == ControlsMode::kAlways ? "always" : "divergence";
}

std::optional<ControlsMode> ParseControlsMode(const std::string& s) {
  if (s == "divergence") return ControlsMode::kOnDivergence;
  if (s == "always") return ControlsMode::kAlways;
  return std::nullopt;
}

StagePlan PlanStages(const std::vector<std::string>& paths, ControlsMode mode) {
  StagePlan plan;
  const int top = static_cast<int>(AblationRungs().size()) - 1;
  bool defer = mode == ControlsMode::kOnDivergence && Contains(paths, AblationRungs().back()->name);
  for (const auto& p : paths) {
    int rank = LadderRank(p);
    (defer && rank >= 0 && rank < top ? plan.controls : plan.first).push_back(p);
  }
  return plan;
}

bool NeedsControls(const Verdict& v) {
  return std::any_of(v.divergences.begin(), v.divergences.end(),
                     [](const Divergence& d) { return HighestRank(d) > 0; });
}

CaseRun AddControls(const PathRunner& run, CaseRun c, const StagePlan& plan,
                    const std::vector<std::string>& order) {
  if (plan.controls.empty() || !NeedsControls(c.verdict)) return c;
  for (const auto& call : c.before)
    if (auto q = PriorCallProgram(c.program, call); q.ok())
      run(q.value(), call.recipe, plan.controls, /*fresh=*/false);
  std::vector<PathResult> results = std::move(c.results);
  for (auto& r : run(c.program, c.recipe, plan.controls, /*fresh=*/false))
    results.push_back(std::move(r));
  auto position = [&](const PathResult& r) {
    return std::find(order.begin(), order.end(), r.path) - order.begin();
  };
  std::stable_sort(results.begin(), results.end(), [&](const PathResult& a, const PathResult& b) {
    return position(a) < position(b);
  });
  return JudgeRun(run, c.program, c.recipe, std::move(results), c.before);
}

StagePlan FindingPaths(const Divergence& d, const std::vector<std::string>& paths) {
  StagePlan plan;
  int top = HighestRank(d);
  for (const auto& p : paths) {
    if (p == kReferencePath || p == kEagerPath || p == d.blamed || Contains(d.paths, p))
      plan.first.push_back(p);
    else if (int rank = LadderRank(p); rank >= 0 && rank < top)
      plan.controls.push_back(p);
  }
  return plan;
}

}  // namespace mmdiff
