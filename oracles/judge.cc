// The first-version oracle: outcome, error class, result type, values within the reference bound.
#include "oracles/judge.h"

#include <algorithm>
#include <cmath>

#include "oracles/accuracy.h"
#include "oracles/tolerance.h"

namespace mmdiff {

namespace {

bool Judgeable(const PathResult* r) {
  return r && (r->kind == OutcomeKind::kOk || r->kind == OutcomeKind::kError);
}

std::string Describe(const PathResult& r) {
  if (r.kind == OutcomeKind::kError)
    return r.path + " raises " + r.error_class + (r.backward ? " in backward" : "") + " (" +
           r.message + ")";
  std::string s = r.path + " returns ";
  for (size_t i = 0; i < r.outputs.size(); ++i) {
    const auto& t = r.outputs[i];
    s += (i ? ", " : "") + std::string(DTypeName(t.dtype)) + ShapeString(t.shape) + "@" +
         std::string(DeviceName(t.device));
  }
  return s;
}

// Whether the path ran the program's forward: it returned, or raised only in the backward pass.
bool ForwardRan(const PathResult& r) {
  return r.ok() || (r.kind == OutcomeKind::kError && r.backward);
}

// Whether a result matches what the contract expects (ok-ness, error class, types).
bool MatchesContract(const Expectation& c, const PathResult& r) {
  // A violation of the forward must raise there: raising in backward is accepting the forward.
  if (c.rejects)
    return r.kind == OutcomeKind::kError && r.backward == c.violation.backward &&
           r.error_class == c.violation.error_class;
  if (r.kind != OutcomeKind::kOk || r.outputs.size() != c.outputs.size()) return false;
  for (size_t i = 0; i < r.outputs.size(); ++i) {
    const auto& t = r.outputs[i];
    const auto& e = c.outputs[i];
    if (t.dtype != e.dtype || t.shape != e.shape || t.device != e.device) return false;
  }
  return true;
}

std::string Blame(const Expectation& c, const PathResult& a, const PathResult& b) {
  bool ma = MatchesContract(c, a), mb = MatchesContract(c, b);
  if (ma && !mb) return b.path;
  if (mb && !ma) return a.path;
  return "";
}

// Outcome and type comparison of two judgeable results; appends at most one divergence per kind.
void CompareShapes(const Expectation& c, const PathResult& a, const PathResult& b, Verdict& v) {
  int first_output = -1;  // the first output whose type differs
  auto add = [&](DivergenceKind k, std::string detail) {
    v.divergences.push_back({k, {a.path, b.path}, Blame(c, a, b), std::move(detail)});
    v.divergences.back().output = first_output;
    // A compiled path that breaks the contract where eager keeps it is a compiler bug report.
    if (v.divergences.back().blamed == b.path) v.divergences.back().classification = "filable";
  };
  if (a.ok() != b.ok()) {
    std::string contract = c.rejects
                               ? "the contract says it must raise " + c.violation.error_class +
                                     " (" + c.violation.rule + ": " + c.violation.message + ")"
                               : "the contract says it must succeed";
    // Both ran the forward and one raised in the backward pass: a finding of its own kind. One
    // that raised in the forward where the other ran it differs in the forward's outcome.
    bool both_ran = ForwardRan(a) && ForwardRan(b);
    add(both_ran ? DivergenceKind::kBackwardError : DivergenceKind::kErrorBehaviour,
        Describe(a) + "; " + Describe(b) + "; " + contract);
    return;
  }
  if (!a.ok() && a.backward != b.backward) {  // one raises in the forward, the other in backward
    add(DivergenceKind::kErrorBehaviour, Describe(a) + "; " + Describe(b));
    return;
  }
  if (!a.ok()) {
    if (a.error_class != b.error_class)
      add(DivergenceKind::kErrorClass, Describe(a) + "; " + Describe(b));
    return;
  }
  if (a.outputs.size() != b.outputs.size()) {
    add(DivergenceKind::kShape,
        "different numbers of outputs: " + Describe(a) + "; " + Describe(b));
    return;
  }
  bool dtype = false, shape = false, device = false;
  for (size_t i = 0; i < a.outputs.size(); ++i) {
    dtype |= a.outputs[i].dtype != b.outputs[i].dtype;
    shape |= a.outputs[i].shape != b.outputs[i].shape;
    device |= a.outputs[i].device != b.outputs[i].device;
    if (first_output < 0 && (dtype || shape || device)) first_output = static_cast<int>(i);
  }
  if (dtype)
    add(DivergenceKind::kDType, "result dtype differs: " + Describe(a) + "; " + Describe(b));
  if (shape)
    add(DivergenceKind::kShape, "result shape differs: " + Describe(a) + "; " + Describe(b));
  if (device)
    add(DivergenceKind::kDevice, "result device differs: " + Describe(a) + "; " + Describe(b));
}

// Whether eager on meta does what the contract says of the cpu program: raises its class, or
// returns its dtypes and shapes (on meta).
bool MetaMatchesContract(const Expectation& c, const PathResult& meta) {
  if (c.rejects)
    return meta.kind == OutcomeKind::kError && meta.backward == c.violation.backward &&
           meta.error_class == c.violation.error_class;
  if (!meta.ok() || meta.outputs.size() != c.outputs.size()) return false;
  for (size_t i = 0; i < meta.outputs.size(); ++i)
    if (meta.outputs[i].dtype != c.outputs[i].dtype || meta.outputs[i].shape != c.outputs[i].shape)
      return false;
  return true;
}

// Eager on meta must predict eager on cpu: the same outcome, error class, dtypes and shapes (meta
// holds no values and lives on another device). Where it does not, meta is wrong: cpu computed;
// unless meta does what the contract says and cpu does not, where cpu is (an empty mixed-dtype bmm
// that eager on cpu accepts and the meta function rejects, as the rule says).
// `judged`: eager's contract divergence is judged (a reference ran), which meta's then restates.
void CompareMeta(const Expectation& c, const PathResult& cpu, const PathResult& meta, bool judged,
                 Verdict& v) {
  std::string what;
  if (cpu.ok() != meta.ok())
    what = "outcome";
  else if (!cpu.ok() && cpu.error_class != meta.error_class)
    what = "error class";
  else if (cpu.ok() && cpu.outputs.size() != meta.outputs.size())
    what = "number of outputs";
  for (size_t i = 0; what.empty() && cpu.ok() && i < cpu.outputs.size(); ++i) {
    if (cpu.outputs[i].dtype != meta.outputs[i].dtype)
      what = "result dtype";
    else if (cpu.outputs[i].shape != meta.outputs[i].shape)
      what = "result shape";
  }
  if (what.empty()) return;
  bool cpu_wrong = judged && MetaMatchesContract(c, meta) && !MatchesContract(c, cpu);
  v.divergences.push_back({DivergenceKind::kMeta,
                           {kEagerPath, kEagerMetaPath},
                           cpu_wrong ? kEagerPath : kEagerMetaPath,
                           "eager on meta predicts another " + what + " than eager on cpu: " +
                               Describe(cpu) + "; on meta " + Describe(meta)});
}

struct ValueCheck {
  bool within = true;
  bool judged = false;
  Divergence worst{DivergenceKind::kValue};
  double worst_ratio = 0;
  // Root-mean-square error against the reference over the elements both hold finite values for.
  double squared_error = 0;
  int64_t counted = 0;
  bool low_precision = false;  // a float16/bfloat16 output
  double Rmse() const {
    return counted ? std::sqrt(squared_error / static_cast<double>(counted)) : 0;
  }
};

// Every element of `r` against the reference: |got - expected| <= AllowedError, NaN and infinities
// by position and sign, and the specials the reference says an element may also be. The worst
// element is a program output's where any is beyond its bound: gradients computed from a wrong
// forward follow from it, so the forward's is the finding (and its root cause, `values`).
ValueCheck CheckValues(const Expectation& c, const PathResult& ref, const PathResult& r) {
  ValueCheck out;
  if (!ref.ok() || !r.ok() || ref.outputs.size() != r.outputs.size()) return out;
  for (size_t o = 0; o < r.outputs.size(); ++o) {
    const TensorValue &e = ref.outputs[o], &g = r.outputs[o];
    if (e.shape != g.shape || e.dtype != g.dtype || g.data.size() != e.data.size() ||
        g.data.empty())
      continue;
    if (!out.judged) out.worst.diverging_elements = out.worst.nan_reference_elements = 0;
    out.judged = true;
    out.low_precision |= IsHalfFloat(g.dtype);
    const bool gradient = IsGradient(c, static_cast<int>(o));
    for (size_t i = 0; i < g.data.size(); ++i) {
      if (std::isfinite(g.data[i]) && std::isfinite(e.data[i])) {
        out.squared_error += (g.data[i] - e.data[i]) * (g.data[i] - e.data[i]);
        ++out.counted;
      }
      double allowed = AllowedError(g.dtype, e.data[i], e.bound.empty() ? 0 : e.bound[i]);
      if (std::isinf(allowed)) continue;
      double got = g.data[i], want = e.data[i];
      if (AllowedValue(got, want, allowed, e.also.empty() ? 0 : e.also[i])) continue;
      double diff = std::fabs(got - want);
      out.within = false;
      ++out.worst.diverging_elements;
      out.worst.nan_reference_elements += std::isnan(want) ? 1 : 0;
      double ratio = std::isfinite(diff) ? diff / std::max(allowed, 1e-300) : INFINITY;
      // Outputs before gradients, then the largest ratio.
      const bool first = out.worst.element < 0;
      const bool worst_gradient = !first && IsGradient(c, out.worst.output);
      if (first || (gradient == worst_gradient ? ratio >= out.worst_ratio : !gradient)) {
        out.worst_ratio = ratio;
        out.worst.output = static_cast<int>(o);
        out.worst.element = static_cast<int64_t>(i);
        out.worst.got = got;
        out.worst.expected = want;
        out.worst.allowed = allowed;
      }
    }
  }
  return out;
}

// "output 0" for a program output, "grad(x)" for a gradient.
std::string ResultLabel(const Expectation& c, int output) {
  if (IsGradient(c, output)) return c.result_names[output];
  return "output " + std::to_string(output);
}

std::string ValueDetail(const Expectation& c, const std::string& path, const Divergence& w) {
  char buf[256];
  std::snprintf(buf, sizeof(buf), " element %lld: got %.9g, reference %.9g, allowed error %.3g",
                static_cast<long long>(w.element), w.got, w.expected, w.allowed);
  return path + " " + ResultLabel(c, w.output) + buf;
}

}  // namespace

Verdict Judge(const Expectation& contract, const std::vector<PathResult>& results) {
  Verdict v;
  for (const auto& r : results) {
    if (r.kind == OutcomeKind::kCrash || r.kind == OutcomeKind::kTimeout) {
      bool crash = r.kind == OutcomeKind::kCrash;
      v.divergences.push_back({crash ? DivergenceKind::kCrash : DivergenceKind::kTimeout,
                               {r.path},
                               r.path,
                               r.path + (crash ? " crashed" : " timed out") + " in stage \"" +
                                   r.stage + "\"" + (r.message.empty() ? "" : ": " + r.message)});
    } else if (r.kind == OutcomeKind::kUnsupported) {
      v.notes.push_back(r.path + " skipped: " + r.message);
    }
  }
  const PathResult* ref = FindResult(results, kReferencePath);
  const PathResult* eager = FindResult(results, kEagerPath);
  if (!Judgeable(ref)) v.notes.push_back("no reference result: values were not judged");

  if (Judgeable(eager) && Judgeable(ref) && !MatchesContract(contract, *eager)) {
    if (!contract.rejects && ref->ok() && eager->kind == OutcomeKind::kError && eager->backward) {
      // Eager ran the forward of a program the contract accepts and raised in its backward, which
      // the reference differentiates: eager breaks the rule that what its forward accepts, its
      // backward differentiates (the sibling ops do: docs/judging.md, "Where eager breaks the
      // rule"). A backward error, blamed on eager.
      v.divergences.push_back({DivergenceKind::kBackwardError,
                               {kReferencePath, kEagerPath},
                               kEagerPath,
                               Describe(*eager) + " whose forward it ran; reference returns " +
                                   "gradients; the contract says it must succeed"});
    } else {
      // Where the contract names eager's deviation from the rule it keeps, eager accepting is
      // eager's fault; elsewhere the contract may be the one that is wrong: nobody is blamed.
      bool deviation = contract.rejects && !contract.violation.eager_deviation.empty() &&
                       (eager->ok() || eager->backward);
      v.divergences.push_back(
          {DivergenceKind::kContract,
           {kReferencePath, kEagerPath},
           deviation ? kEagerPath : "",
           "eager disagrees with the contract: " + Describe(*eager) + "; " + Describe(*ref) +
               (deviation
                    ? " (eager breaks the rule here: " + contract.violation.eager_deviation + ")"
                    : "")});
    }
  }
  bool eager_values_ok = true;
  ValueCheck ev_all;
  if (Judgeable(eager) && Judgeable(ref)) {
    ValueCheck ev = CheckValues(contract, *ref, *eager);
    ev_all = ev;
    eager_values_ok = ev.within;
    if (!ev.within) {
      Divergence d = ev.worst;
      d.paths = {kReferencePath, kEagerPath};
      d.blamed = kEagerPath;
      d.detail = ValueDetail(contract, kEagerPath, d);
      v.divergences.push_back(d);
    }
  }
  for (const auto& r : results) {
    // The float64 run is the accuracy rule's measure (oracles/accuracy.h), not a path under test.
    if (r.path == kReferencePath || r.path == kEagerPath || r.path == kReferenceFloat64Path ||
        !Judgeable(&r))
      continue;
    if (r.path == kEagerMetaPath) {
      if (Judgeable(eager)) CompareMeta(contract, *eager, r, Judgeable(ref), v);
      continue;
    }
    if (Judgeable(eager)) CompareShapes(contract, *eager, r, v);
    if (!Judgeable(ref)) continue;
    ValueCheck xv = CheckValues(contract, *ref, r);
    if (xv.within) continue;
    Divergence d = xv.worst;
    d.paths = {kEagerPath, r.path};
    d.blamed = eager_values_ok ? r.path : "";
    if (ev_all.judged && xv.counted > 0) {  // PyTorch's rule for compiler accuracy reports
      d.eager_rmse = ev_all.Rmse();
      d.path_rmse = xv.Rmse();
      d.classification = AccuracyClass(d.path_rmse, d.eager_rmse, xv.low_precision, xv.counted);
      // A NaN or an infinity on either side is no matter of precision: same()'s fp64 RMSE over
      // such an element is NaN or infinite, and its check fails.
      if (eager_values_ok && (!std::isfinite(d.got) || !std::isfinite(d.expected)))
        d.classification = "filable";
    }
    d.detail =
        ValueDetail(contract, r.path, d) +
        (eager_values_ok ? "; eager is within the bound" : "; eager is also outside the bound");
    v.divergences.push_back(d);
  }
  // The lead divergence first: a filable inductor error behaviour must not hide behind a meta
  // mismatch found earlier in the same case.
  OrderDivergences(v);
  return v;
}

}  // namespace mmdiff
