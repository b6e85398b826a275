// Ablation reruns.
#include "src/campaign/ablation.h"

#include <algorithm>

#include "oracles/judge.h"
#include "oracles/root_cause.h"
#include "oracles/signature_text.h"
#include "src/ir/paths.h"
#include "src/report/run_case.h"

namespace mmdiff {

const std::vector<AblationStage>& AblationLadder() {
  static const std::vector<AblationStage> kLadder = [] {
    std::vector<AblationStage> stages;
    for (const PathRow* r : AblationRungs()) stages.push_back({r->name, r->description});
    return stages;
  }();
  return kLadder;
}

std::vector<AblationStage> VariantStages(const std::string& path) {
  std::vector<AblationStage> stages;
  for (const PathRow* r : VariantsOf(path)) stages.push_back({r->name, r->description});
  return stages;
}

namespace {

// A path other than the judge's own (eager, the reference, eager on meta).
bool BeyondEager(const std::string& path) {
  return !path.empty() && path != kEagerPath && path != kReferencePath && path != kEagerMetaPath;
}

std::string OutcomeText(const PathResult& r) {
  std::string s(OutcomeName(r.kind));
  if (r.kind == OutcomeKind::kError) s += ": " + r.error_class + ": " + r.message.substr(0, 160);
  if (r.kind == OutcomeKind::kOk && !r.outputs.empty())
    s += " (" + std::string(DTypeName(r.outputs[0].dtype)) + ")";
  if (r.kind == OutcomeKind::kCrash || r.kind == OutcomeKind::kTimeout ||
      r.kind == OutcomeKind::kUnsupported)
    s += ": " + r.message.substr(0, 160);
  return s;
}

// The first divergence that involves `path`, if any.
const Divergence* Involving(const Verdict& v, const std::string& path) {
  for (const auto& d : v.divergences)
    if (d.blamed == path || std::find(d.paths.begin(), d.paths.end(), path) != d.paths.end())
      return &d;
  return nullptr;
}

}  // namespace

std::optional<Ablation> RunAblation(Supervisor& sup, const CaseRun& c,
                                    std::map<std::string, std::string>* signatures) {
  // The finding's own divergence decides what the ladder is run for.
  std::string blamed;
  if (c.finding < c.verdict.divergences.size()) {
    const Divergence& d = c.verdict.divergences[c.finding];
    if (BeyondEager(d.blamed)) blamed = d.blamed;
    for (const auto& p : d.paths)
      if (blamed.empty() && BeyondEager(p)) blamed = p;
  }
  if (blamed.empty()) return std::nullopt;
  Ablation out;
  if (const PathResult* eager = FindResult(c.results, kEagerPath))
    out.stages.push_back({kEagerPath, "eager", OutcomeText(*eager), true, ""});
  auto run = [&](const AblationStage& s) {
    if (!sup.Offers(s.path)) return false;
    CaseRun rerun = RerunCase(sup, c, {kReferencePath, kEagerPath, s.path});
    const Divergence* d = Involving(rerun.verdict, s.path);
    const PathResult* r = FindResult(rerun.results, s.path);
    out.stages.push_back(
        {s.path, s.backend, r ? OutcomeText(*r) : "not run", d == nullptr, d ? d->detail : ""});
    if (d && !out.first_divergent) out.first_divergent = s.path;
    if (d && signatures)
      for (const FindingKey& k :
           Findings(rerun.program, rerun.contract, rerun.results, rerun.verdict))
        if (&rerun.verdict.divergences[k.divergence] == d) (*signatures)[s.path] = k.signature;
    return d != nullptr;
  };
  // The knob variants of the top rung, where it diverges or one of them is blamed.
  const std::string top = AblationLadder().back().path;
  bool top_diverges = false, blamed_done = false;
  for (const auto& s : AblationLadder()) {
    bool diverges = run(s);
    top_diverges |= s.path == top && diverges;
    blamed_done |= s.path == blamed;
  }
  const PathTraits* blamed_traits = sup.Traits(blamed);
  if (top_diverges || (blamed_traits && blamed_traits->variant))
    for (const auto& s : VariantStages(top)) {
      run(s);
      blamed_done |= s.path == blamed;
    }
  if (!blamed_done) run({blamed, blamed});
  return out;
}

namespace {

// `signature` with its "|path=<from>|" field as "|path=<to>|"; "" where it has no such field.
std::string WithPath(const std::string& signature, const std::string& from, const std::string& to) {
  const std::string field = "|path=" + from + "|";
  const size_t at = signature.find(field);
  if (at == std::string::npos) return "";
  return signature.substr(0, at) + "|path=" + to + "|" + signature.substr(at + field.size());
}

}  // namespace

std::string LowerToBaseVariant(const std::string& root_cause, const std::string& signature,
                               const std::map<std::string, std::string>& signatures) {
  const PathRow* v = FindPath(SignatureField(signature, "path="));
  if (!v) return root_cause;
  const PathRow* best = nullptr;  // of the bases that diverge alike, one with fewest knobs
  for (const PathRow& base : PathCatalogue()) {
    auto it = signatures.find(base.name);
    if (VariantBuildsOn(*v, base) && it != signatures.end() &&
        it->second == WithPath(signature, v->name, base.name) &&
        (!best || VariantBuildsOn(*best, base)))
      best = &base;
  }
  const std::string lowered = best ? WithPath(root_cause, v->name, best->name) : "";
  return lowered.empty() ? root_cause : lowered;
}

}  // namespace mmdiff
