// Behaviour features of a judged case (see behaviour.h).
#include "src/report/behaviour.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "src/ir/op.h"
#include "src/ir/static_types.h"
#include "src/report/bucket.h"

namespace mmdiff {

namespace {

std::string Outcome(const PathResult& r) {
  return r.path + "|" + std::string(OutcomeName(r.kind)) + "|" + r.error_class;
}

std::string Contract(const Expectation& e) {
  return "contract|" + (e.rejects ? "rejects|" + e.violation.rule : std::string("accepts"));
}

// A diverging case's buckets (one per root cause): a new bucket is always a new feature, so the
// corpus keeps an input for every bucket the fuzzer met.
void AddBucket(const CaseRun& c, std::set<std::string>& features) {
  for (const auto& k : CaseFindings(c)) features.insert("bucket|" + k.signature);
}

void AddFine(const CaseRun& c, std::set<std::string>& features) {
  std::set<std::string> dtypes, devices;
  for (const auto& in : c.program.inputs) {
    dtypes.insert(std::string(DTypeName(in.dtype)));
    devices.insert(std::string(DeviceName(in.device)));
  }
  std::string operands;
  for (const auto& d : dtypes) operands += d + ",";
  operands += "|";
  for (const auto& d : devices) operands += d + ",";
  std::set<std::string> ops;
  for (const auto& n : c.program.nodes) ops.insert(std::string(GetOpSpec(n.op).name));
  for (const auto& r : c.results) {
    std::string outcome = Outcome(r);
    features.insert("outcome|" + outcome);
    for (const auto& op : ops) features.insert("op|" + op + "|" + operands + "|" + outcome);
  }
  features.insert(Contract(c.contract));
  for (const auto& d : c.verdict.divergences) {
    std::string kind(DivergenceKindName(d.kind));
    features.insert("divergence|" + kind + "|" + d.blamed + "|" + d.classification);
    if (d.kind == DivergenceKind::kValue && d.allowed > 0 && std::isfinite(d.got) &&
        std::isfinite(d.expected)) {
      double ratio = std::fabs(d.got - d.expected) / d.allowed;
      features.insert("band|" + kind + "|" + d.blamed + "|" +
                      std::to_string(std::ilogb(std::max(ratio, 1e-300))));
    }
  }
  AddBucket(c, features);
}

void AddCoarse(const CaseRun& c, std::set<std::string>& features) {
  std::map<std::string, StaticType> types = InferStaticTypes(c.program);
  std::map<std::string, Device> devices;
  for (const auto& in : c.program.inputs) devices[in.name] = in.device;
  std::vector<std::string> operands;  // per node: "op|dtype,dtype,...|device set"
  for (const auto& n : c.program.nodes) {
    std::string dtypes;
    std::set<std::string> on;
    for (const auto& a : n.args) {
      auto t = types.find(a);
      dtypes +=
          (t == types.end() ? std::string("?") : std::string(DTypeName(t->second.dtype))) + ",";
      auto d = devices.find(a);
      if (d != devices.end()) on.insert(std::string(DeviceName(d->second)));
    }
    if (n.device)
      devices[n.name] = *n.device;  // a move
    else if (!n.args.empty() && devices.contains(n.args[0]))
      devices[n.name] = devices[n.args[0]];
    std::string where;
    for (const auto& d : on) where += d + ",";
    operands.push_back(std::string(GetOpSpec(n.op).name) + "|" + dtypes + "|" + where);
  }
  for (const auto& r : c.results) {
    std::string outcome = Outcome(r);
    features.insert("outcome|" + outcome);
    for (const auto& o : operands) features.insert("op|" + o + "|" + outcome);
  }
  features.insert(Contract(c.contract));
  for (const auto& d : c.verdict.divergences)
    features.insert("divergence|" + std::string(DivergenceKindName(d.kind)) + "|" + d.blamed);
}

void AddBuckets(const CaseRun& c, std::set<std::string>& features) {
  for (const auto& r : c.results) features.insert("outcome|" + Outcome(r));
  features.insert(Contract(c.contract));
  for (const auto& d : c.verdict.divergences)
    features.insert("divergence|" + std::string(DivergenceKindName(d.kind)) + "|" + d.blamed);
  AddBucket(c, features);
}

// The buckets set, and where a rejected program breaks its contract (rule, op, operand dtypes and
// devices: the place a contract bucket names) whether or not a path disagrees there.
void AddSites(const CaseRun& c, std::set<std::string>& features) {
  AddBuckets(c, features);
  if (c.contract.rejects) features.insert("site|" + RejectionSite(c.program, c.contract));
}

}  // namespace

std::vector<std::string> BehaviourFeatures(const CaseRun& c, FeatureSet set) {
  std::set<std::string> features;
  switch (set) {
    case FeatureSet::kFine:
      AddFine(c, features);
      break;
    case FeatureSet::kCoarse:
      AddCoarse(c, features);
      break;
    case FeatureSet::kBuckets:
      AddBuckets(c, features);
      break;
    case FeatureSet::kSites:
      AddSites(c, features);
      break;
  }
  // What a compiled path chose, as it reports it cheaply (every set): the kernels and templates
  // Inductor picked, its fallbacks and pattern rewrites, and whether the run compiled.
  for (const auto& r : c.results) {
    if (!r.compile.present) continue;
    features.insert("compile|" + r.path + "|" +
                    (r.compile.compiled ? "compiled"
                     : r.compile.reused ? "reused"
                                        : "none"));
    for (const auto& internal : r.compile.internals)
      features.insert("compile|" + r.path + "|" + internal);
  }
  return {features.begin(), features.end()};
}

}  // namespace mmdiff
