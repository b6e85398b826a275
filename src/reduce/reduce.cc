// The reduction driver: every pass in turn, repeated until a round keeps nothing.
#include "src/reduce/reduce.h"

#include <array>

#include "src/reduce/ddmin.h"
#include "src/reduce/program_edits.h"
#include "src/reduce/reduce_session.h"
#include "src/reduce/shrink_dims.h"
#include "src/reduce/simplify_passes.h"

namespace mmdiff {

ReduceResult Reduce(const Program& p, const InputRecipe& r,
                    const ReducePredicate& still_interesting, const ReduceOptions& options) {
  // Cheapest and most drastic first: whole outputs and tails, chunks of nodes, single nodes; then
  // sizes, which make every later predicate call cheaper; then the structure-keeping
  // simplifications.
  using Pass = bool (*)(ReduceSession&);
  static constexpr std::array<Pass, 13> kPasses = {
      ReduceOutputs,    TruncateAfterNode,  RemoveNodeChunks, BypassNodes,    SimplifyGradients,
      SimplifyAutocast, SimplifyWeights,    ShrinkDims,       SimplifyDTypes, SimplifyDevices,
      SimplifyLayouts,  SimplifyAttributes, SimplifyValues};
  ReduceSession s(p, r, still_interesting, options);
  // Dead nodes still run (and may raise), so dropping them is a step like any other.
  s.Try(Tidy(p), "dropped dead nodes and unused inputs");
  bool fixed_point = false;
  for (int round = 0; round < options.max_rounds && !fixed_point && !s.exhausted(); ++round) {
    bool kept = false;
    for (Pass pass : kPasses) {
      if (s.exhausted()) break;
      kept |= pass(s);
    }
    fixed_point = !kept && !s.exhausted();
  }
  ReduceResult result = s.Finish();
  result.budget_exhausted = !fixed_point && s.exhausted();
  return result;
}

}  // namespace mmdiff
