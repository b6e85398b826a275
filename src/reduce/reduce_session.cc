// ReduceSession: budget, cache and the simplicity measure of one reduction.
#include "src/reduce/reduce_session.h"

#include <algorithm>

#include "src/ir/program_json.h"
#include "src/ir/verifier.h"

namespace mmdiff {

int DTypeRank(DType d) {
  switch (d) {
    case DType::kFloat32:
      return 0;
    case DType::kFloat64:
      return 1;
    case DType::kFloat16:
      return 2;
    case DType::kBFloat16:
      return 3;
    case DType::kInt64:
      return 4;
    case DType::kInt32:
      return 5;
    case DType::kInt8:
      return 6;
    case DType::kUInt8:
      return 7;
    case DType::kBool:
      return 8;
  }
  return 9;
}

int RecipeKindRank(const std::string& kind) {
  if (kind == "exact") return 0;
  if (kind == "grid16") return 1;
  if (kind == "uniform") return 2;
  return 3;
}

Complexity MeasureComplexity(const Program& p, const InputRecipe& r) {
  Complexity c{};
  c[0] = static_cast<int64_t>(p.nodes.size());
  c[1] = static_cast<int64_t>(p.inputs.size());
  for (const auto& in : p.inputs) {
    c[2] += std::max<int64_t>(Numel(in.shape), 0);
    for (int64_t d : in.shape) c[3] += d;
    c[4] += DTypeRank(in.dtype);
    c[5] += in.device != Device::kCpu;
    c[6] += in.layout == Layout::kTransposed;
    c[9] += in.requires_grad;
    c[11] += IsWeight(in);
  }
  const Node defaults;
  for (const auto& n : p.nodes) {
    if (n.dtype) c[4] += DTypeRank(*n.dtype) + (n.op == OpKind::kSoftmax ? 1 : 0);
    c[5] += n.device && *n.device != Device::kCpu;
    c[10] += n.autocast.has_value();
    c[7] += (n.alpha != defaults.alpha) + (n.beta != defaults.beta) + n.method_spelling +
            n.is_causal + n.scale.has_value() + n.enable_gqa;
  }
  c[10] += static_cast<int64_t>(p.autocast.size());
  const InputRecipe plain;
  c[8] = RecipeKindRank(r.kind) + (r.special > 0) + (r.seed != 0) + (r.lo != plain.lo) +
         (r.hi != plain.hi) + (r.mean != plain.mean) + (r.std != plain.std) + !r.weights.empty();
  return c;
}

bool SimplerThan(const Complexity& a, const Complexity& b) {
  bool lower = false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i] > b[i]) return false;
    lower |= a[i] < b[i];
  }
  return lower;
}

ReduceSession::ReduceSession(const Program& p, const InputRecipe& r,
                             const ReducePredicate& predicate, const ReduceOptions& o)
    : program_(p), recipe_(r), predicate_(predicate), options_(o) {
  result_.program = p;
  result_.recipe = r;
}

bool ReduceSession::Try(const Program& candidate, const InputRecipe& recipe,
                        const std::string& what) {
  if (exhausted()) return false;
  if (candidate.nodes.empty() || !Verify(candidate).ok()) {
    ++result_.skipped_invalid;
    return false;
  }
  if (!SimplerThan(MeasureComplexity(candidate, recipe), MeasureComplexity(program_, recipe_)))
    return false;
  std::string key = ProgramToJson(candidate).dump() + RecipeToJson(recipe).dump();
  if (!asked_.insert(key).second) return false;
  ++result_.predicate_calls;
  if (!predicate_(candidate, recipe)) return false;
  program_ = candidate;
  recipe_ = recipe;
  ++result_.steps_kept;
  result_.steps.push_back(what);
  if (options_.on_step) options_.on_step(what);
  return true;
}

ReduceResult ReduceSession::Finish() {
  result_.program = program_;
  result_.recipe = recipe_;
  return result_;
}

}  // namespace mmdiff
