// Ignored inputs and the rerun check.
#include "oracles/ignored_inputs.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

#include "oracles/judge.h"
#include "oracles/tolerance.h"
#include "src/ir/shape.h"

namespace mmdiff {

namespace {

bool IgnoresBias(const Node& n) {
  return GetOpSpec(n.op).has_alpha_beta && n.beta == 0.0 && !n.args.empty();
}

// The values (inputs and nodes) that reach no output except as an ignored bias.
std::set<std::string> IgnoredValues(const Program& p) {
  // Each value's uses: (node index, argument position).
  std::map<std::string, std::vector<std::pair<size_t, size_t>>> uses;
  for (size_t i = 0; i < p.nodes.size(); ++i)
    for (size_t a = 0; a < p.nodes[i].args.size(); ++a) uses[p.nodes[i].args[a]].push_back({i, a});
  std::set<std::string> outputs(p.outputs.begin(), p.outputs.end()), ignored;
  auto only_ignored = [&](const std::string& v) {
    auto it = uses.find(v);
    if (outputs.count(v) || it == uses.end()) return false;  // an unused value is not "ignored"
    for (auto [node, arg] : it->second) {
      const Node& n = p.nodes[node];
      if (!(arg == 0 && IgnoresBias(n)) && !ignored.count(n.name)) return false;
    }
    return true;
  };
  // Nodes come in topological order: a node's users come after it.
  for (size_t i = p.nodes.size(); i-- > 0;)
    if (only_ignored(p.nodes[i].name)) ignored.insert(p.nodes[i].name);
  for (const auto& in : p.inputs)
    if (only_ignored(in.name)) ignored.insert(in.name);
  return ignored;
}

// x and y are the same result: NaN meets NaN, and +0 meets -0 (a zero's sign is not judged).
bool Same(double x, double y) { return (std::isnan(x) && std::isnan(y)) || x == y; }

std::string Num(double x) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.9g", x);
  return buf;
}

std::string Names(const Program& p, const std::vector<int>& inputs) {
  std::string s;
  for (int i : inputs)
    s += (s.empty() ? "" : ", ") + (i >= 0 && static_cast<size_t>(i) < p.inputs.size()
                                        ? p.inputs[i].name
                                        : "#" + std::to_string(i));
  return s;
}

// Two finite values within rounding of each other, where the reference bounds the element: a
// path whose two runs round differently (e.g. a GPU kernel's atomics) has not read the input.
bool WithinRounding(double x, double y, const PathResult* ref, size_t o, size_t e) {
  if (!ref || !ref->ok() || o >= ref->outputs.size() || !std::isfinite(x) || !std::isfinite(y))
    return false;
  const TensorValue& r = ref->outputs[o];
  if (e >= r.data.size() || e >= r.bound.size()) return false;
  double allowed = AllowedError(r.dtype, r.data[e], r.bound[e]);
  return std::isfinite(allowed) && std::fabs(x - y) <= 2 * allowed;
}

// How `a` (as given) and `b` (zeroed) differ, or "" when they do not; the first differing element
// goes into d.
std::string Change(const PathResult& a, const PathResult& b, const PathResult* ref, Divergence& d) {
  if (b.kind == OutcomeKind::kError) return "raises " + b.error_class + " where it returned";
  if (!b.ok()) return std::string(OutcomeName(b.kind)) + " where it returned";
  if (a.outputs.size() != b.outputs.size()) return "returns another number of outputs";
  for (size_t o = 0; o < a.outputs.size(); ++o) {
    const TensorValue &x = a.outputs[o], &y = b.outputs[o];
    d.output = static_cast<int>(o);
    if (x.dtype != y.dtype || x.shape != y.shape || x.device != y.device)
      return "returns another result type (output " + std::to_string(o) + ")";
    if (x.data.size() != y.data.size()) continue;  // no values (meta)
    for (size_t e = 0; e < x.data.size(); ++e) {
      if (Same(x.data[e], y.data[e]) || WithinRounding(x.data[e], y.data[e], ref, o, e)) continue;
      d.element = static_cast<int64_t>(e);
      d.got = x.data[e];
      d.expected = y.data[e];
      return "output " + std::to_string(o) + " element " + std::to_string(e) + " is " +
             Num(x.data[e]) + " with them as given and " + Num(y.data[e]) + " with zeros";
    }
  }
  d.output = -1;
  return "";
}

// Whether `e` already stands for a fault of `path`: blamed on it, or unblamed and naming it (eager
// is named by nearly every divergence, as the baseline: only its blame counts).
bool AccountsFor(const Divergence& e, const std::string& path) {
  return e.blamed == path || (e.blamed.empty() && path != kEagerPath &&
                              std::find(e.paths.begin(), e.paths.end(), path) != e.paths.end());
}

}  // namespace

std::vector<int> IgnoredInputs(const Program& p) {
  std::set<std::string> ignored = IgnoredValues(p);
  std::vector<int> out;
  for (size_t i = 0; i < p.inputs.size(); ++i)
    if (ignored.count(p.inputs[i].name)) out.push_back(static_cast<int>(i));
  return out;
}

const Node* IgnoringNode(const Program& p) {
  std::set<std::string> ignored = IgnoredValues(p);
  for (const auto& n : p.nodes)
    if (IgnoresBias(n) && ignored.count(n.args[0]) && !ignored.count(n.name)) return &n;
  return nullptr;
}

std::vector<int> IgnoredSpecialInputs(const Program& p, const InputRecipe& r) {
  std::vector<int> out;
  if (r.special <= 0 && WeightRecipe(r).special <= 0) return out;
  for (int i : IgnoredInputs(p)) {
    if (std::binary_search(r.zeroed.begin(), r.zeroed.end(), i) || i >= kMaxZeroed) continue;
    const InputSpec& in = p.inputs[static_cast<size_t>(i)];
    if (!IsFloating(in.dtype)) continue;
    std::vector<double> v = InputValues(p, r, static_cast<size_t>(i));
    if (std::any_of(v.begin(), v.end(), [](double x) { return !std::isfinite(x); }))
      out.push_back(i);
  }
  return out;
}

InputRecipe WithZeroed(InputRecipe r, const std::vector<int>& inputs) {
  r.zeroed.insert(r.zeroed.end(), inputs.begin(), inputs.end());
  std::sort(r.zeroed.begin(), r.zeroed.end());
  r.zeroed.erase(std::unique(r.zeroed.begin(), r.zeroed.end()), r.zeroed.end());
  return r;
}

std::vector<Divergence> CheckIgnoredInputs(const Program& p, const std::vector<int>& zeroed,
                                           const std::vector<PathResult>& original,
                                           const std::vector<PathResult>& rerun) {
  const std::string names = Names(p, zeroed);
  const Node* node = IgnoringNode(p);
  const std::string why = "; " +
                          (node ? std::string(GetOpSpec(node->op).name) : std::string("the op")) +
                          " has beta = 0, so " + names + " must be ignored";
  std::vector<Divergence> changed;
  for (const auto& a : original) {
    if (!a.ok() || a.path == kReferencePath) continue;
    const PathResult* b = FindResult(rerun, a.path);
    if (!b || b->kind == OutcomeKind::kUnsupported) continue;  // nothing was checked
    Divergence d;
    d.kind = DivergenceKind::kIgnoredInput;
    d.paths = {a.path};
    d.blamed = a.path;
    std::string what = Change(a, *b, FindResult(original, kReferencePath), d);
    if (what.empty()) continue;
    d.detail = a.path + " changes when " + names +
               " (holding NaN or inf) are replaced by zeros: " + what + why;
    // Eager's own runs (eager, eager_1thread) break the documentation; any other path breaks what
    // eager does: reading NaN from an ignored input is no matter of precision.
    d.classification = a.path.rfind(kEagerPath, 0) == 0 ? "" : "filable";
    changed.push_back(d);
  }
  auto eager = std::find_if(changed.begin(), changed.end(),
                            [](const Divergence& d) { return d.blamed == kEagerPath; });
  if (eager == changed.end()) return changed;
  Divergence d = *eager;
  for (const auto& c : changed)
    if (c.blamed != kEagerPath) d.paths.push_back(c.blamed);
  if (d.paths.size() > 1) d.detail += " (so do the other paths named)";
  return {d};
}

void AddIgnoredInputDivergences(Verdict& v, const std::vector<Divergence>& found,
                                const Verdict& with_zeros) {
  bool changed = false;
  for (const auto& d : found) {
    auto explained = [&](const Divergence& e) {
      return std::any_of(d.paths.begin(), d.paths.end(),
                         [&](const std::string& p) { return AccountsFor(e, p); });
    };
    // A fault the path keeps with zeros is its own: the rerun says nothing clear about it.
    if (std::any_of(with_zeros.divergences.begin(), with_zeros.divergences.end(), explained))
      continue;
    // What the path did wrong only with the ignored input as given is this one fault.
    v.divergences.erase(std::remove_if(v.divergences.begin(), v.divergences.end(), explained),
                        v.divergences.end());
    v.divergences.push_back(d);
    changed = true;
  }
  if (changed) OrderDivergences(v);
}

}  // namespace mmdiff
