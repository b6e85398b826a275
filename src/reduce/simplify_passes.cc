// The structure-keeping simplification passes.
#include "src/reduce/simplify_passes.h"

#include <algorithm>
#include <functional>
#include <optional>
#include <utility>
#include <vector>

#include "src/ir/autocast.h"
#include "src/reduce/program_edits.h"

namespace mmdiff {

namespace {

// The dtypes simpler than d, simplest first.
std::vector<DType> SimplerDTypes(DType d) {
  std::vector<DType> out;
  for (DType e : AllDTypes())
    if (DTypeRank(e) < DTypeRank(d)) out.push_back(e);
  std::sort(out.begin(), out.end(), [](DType a, DType b) { return DTypeRank(a) < DTypeRank(b); });
  return out;
}

std::string Name(DType d) { return std::string(DTypeName(d)); }

// An edit of one node in place; returns false when it does not apply to the node.
using NodeEdit = std::function<bool(Node&)>;

// Tries each edit on each node, in order; the edits keep the program's structure, so node indices
// stay valid after a kept step.
bool EditNodes(ReduceSession& s, const std::vector<std::pair<std::string, NodeEdit>>& edits) {
  bool kept = false;
  for (size_t i = 0; i < s.program().nodes.size() && !s.exhausted(); ++i) {
    for (const auto& [what, edit] : edits) {
      Program candidate = s.program();
      if (!edit(candidate.nodes[i])) continue;
      std::string description = candidate.nodes[i].name + ": " + what;
      kept |= s.Try(Tidy(std::move(candidate)), description);
      if (s.exhausted()) break;
    }
  }
  return kept;
}

}  // namespace

bool SimplifyDTypes(ReduceSession& s) {
  bool kept = false;
  for (size_t i = 0; i < s.program().inputs.size() && !s.exhausted(); ++i) {
    for (DType to : SimplerDTypes(s.program().inputs[i].dtype)) {
      Program candidate = s.program();
      InputSpec& in = candidate.inputs[i];
      std::string what = in.name + ": dtype " + Name(in.dtype) + " -> " + Name(to);
      in.dtype = to;
      if (s.Try(candidate, what)) {
        kept = true;
        break;
      }
      if (s.exhausted()) break;
    }
  }
  for (size_t i = 0; i < s.program().nodes.size() && !s.exhausted(); ++i) {
    const Node& n = s.program().nodes[i];
    if (!n.dtype) continue;
    std::vector<std::optional<DType>> targets;
    if (n.op == OpKind::kSoftmax) targets.push_back(std::nullopt);
    for (DType to : SimplerDTypes(*n.dtype)) targets.push_back(to);
    for (const auto& to : targets) {
      Program candidate = s.program();
      Node& c = candidate.nodes[i];
      std::string what = c.name + ": dtype " + Name(*c.dtype) + " -> " + (to ? Name(*to) : "none");
      c.dtype = to;
      if (s.Try(candidate, what)) {
        kept = true;
        break;
      }
      if (s.exhausted()) break;
    }
  }
  return kept;
}

bool SimplifyDevices(ReduceSession& s) {
  bool kept = false;
  for (size_t i = 0; i < s.program().inputs.size() && !s.exhausted(); ++i) {
    if (s.program().inputs[i].device == Device::kCpu) continue;
    Program candidate = s.program();
    candidate.inputs[i].device = Device::kCpu;
    kept |= s.Try(candidate, candidate.inputs[i].name + ": device -> cpu");
  }
  kept |= EditNodes(s, {{"moves to cpu", [](Node& n) {
                           if (n.op != OpKind::kToDevice || !n.device || *n.device == Device::kCpu)
                             return false;
                           n.device = Device::kCpu;
                           return true;
                         }}});
  return kept;
}

bool SimplifyGradients(ReduceSession& s) {
  bool kept = false;
  for (size_t i = 0; i < s.program().inputs.size() && !s.exhausted(); ++i) {
    if (!s.program().inputs[i].requires_grad) continue;
    Program candidate = s.program();
    candidate.inputs[i].requires_grad = false;
    kept |= s.Try(candidate, candidate.inputs[i].name + ": requires_grad -> false");
  }
  return kept;
}

bool SimplifyWeights(ReduceSession& s) {
  bool kept = false;
  for (size_t i = 0; i < s.program().inputs.size() && !s.exhausted(); ++i) {
    if (!IsWeight(s.program().inputs[i])) continue;
    Program candidate = s.program();
    const std::string role(InputRoleName(candidate.inputs[i].role));
    candidate.inputs[i].role = InputRole::kInput;
    kept |= s.Try(candidate, candidate.inputs[i].name + ": " + role + " -> input");
  }
  return kept;
}

namespace {
// The program without the regions no node runs in and no used region encloses (renumbered).
Program DropUnusedRegions(Program p) {
  std::vector<bool> used(p.autocast.size(), false);
  for (const auto& n : p.nodes)
    for (size_t r : RegionPath(p, n.autocast)) used[r] = true;
  std::vector<size_t> index(p.autocast.size(), 0);
  std::vector<AutocastRegion> kept;
  for (size_t r = 0; r < p.autocast.size(); ++r) {
    if (!used[r]) continue;
    index[r] = kept.size();
    AutocastRegion region = p.autocast[r];
    if (region.parent) region.parent = index[*region.parent];  // used: its parent is too
    kept.push_back(region);
  }
  for (auto& n : p.nodes)
    if (n.autocast) n.autocast = index[*n.autocast];
  p.autocast = std::move(kept);
  return p;
}
}  // namespace

bool SimplifyAutocast(ReduceSession& s) {
  if (s.program().autocast.empty()) return false;
  Program none = s.program();
  none.autocast.clear();
  for (auto& n : none.nodes) n.autocast.reset();
  if (s.Try(none, "autocast regions dropped")) return true;
  bool kept = false;
  for (size_t i = 0; i < s.program().nodes.size() && !s.exhausted(); ++i) {
    const Node& n = s.program().nodes[i];
    if (!n.autocast) continue;
    Program candidate = s.program();
    candidate.nodes[i].autocast = candidate.autocast[*n.autocast].parent;
    kept |= s.Try(DropUnusedRegions(candidate), n.name + ": one autocast region out");
  }
  return kept;
}

bool SimplifyLayouts(ReduceSession& s) {
  bool kept = false;
  for (size_t i = 0; i < s.program().inputs.size() && !s.exhausted(); ++i) {
    if (s.program().inputs[i].layout == Layout::kContiguous) continue;
    Program candidate = s.program();
    candidate.inputs[i].layout = Layout::kContiguous;
    kept |= s.Try(Tidy(candidate), candidate.inputs[i].name + ": layout -> contiguous");
  }
  return kept;
}

bool SimplifyAttributes(ReduceSession& s) {
  const Node defaults;
  return EditNodes(
      s, {{"alpha -> 1",
           [&](Node& n) {
             if (n.alpha == defaults.alpha) return false;
             n.alpha = defaults.alpha;
             return true;
           }},
          {"beta -> 1",
           [&](Node& n) {
             if (n.beta == defaults.beta) return false;
             n.beta = defaults.beta;
             return true;
           }},
          {"spelled .to()", [](Node& n) { return std::exchange(n.method_spelling, false); }},
          {"is_causal -> False", [](Node& n) { return std::exchange(n.is_causal, false); }},
          {"enable_gqa -> False", [](Node& n) { return std::exchange(n.enable_gqa, false); }},
          {"scale -> default",
           [](Node& n) { return std::exchange(n.scale, std::nullopt).has_value(); }}});
}

bool SimplifyValues(ReduceSession& s) {
  bool kept = false;
  const InputRecipe plain;
  auto attempt = [&](InputRecipe r, const std::string& what) {
    if (r.kind != "uniform") r.lo = plain.lo, r.hi = plain.hi;
    if (r.kind != "normal") r.mean = plain.mean, r.std = plain.std;
    if (r.kind == "grid16") r.special = 0;  // grid16 has no special values
    if (!s.exhausted() && s.Try(s.program(), r, what)) kept = true;
  };
  // The weights' own recipe (a case's later calls keep its first call's weights): the weights'
  // values from the recipe itself.
  if (!s.recipe().weights.empty()) {
    InputRecipe r = s.recipe();
    r.weights.clear();
    attempt(r, "the weights' own values -> the recipe's");
  }
  if (s.recipe().special > 0) {
    InputRecipe r = s.recipe();
    r.special = 0;
    attempt(r, "special-value rate -> 0");
  }
  for (const char* kind : {"exact", "grid16"}) {
    if (RecipeKindRank(kind) >= RecipeKindRank(s.recipe().kind)) continue;
    InputRecipe r = s.recipe();
    std::string what = "value class " + r.kind + " -> " + kind;
    r.kind = kind;
    attempt(r, what);
  }
  // Parameters the value class does not read, back to their defaults.
  attempt(s.recipe(), "unused recipe parameters -> defaults");
  if (s.recipe().seed != 0) {
    InputRecipe r = s.recipe();
    r.seed = 0;
    attempt(r, "input seed -> 0");
  }
  return kept;
}

}  // namespace mmdiff
