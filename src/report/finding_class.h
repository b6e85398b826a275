// The class of a root cause: what kind of thing a maintainer is asked to act on, in the order they
// act on it. A campaign's summary, triage.md and triage.html rank new root causes by class first,
// and each line names its class.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace mmdiff {

enum class FindingClass {
  kCompiledWrongResult,  // a compiled path silently returns a wrong value, dtype, shape or device
  kCompiledRaises,       // a compiled path raises, crashes or hangs on a program eager runs
  kCompiledAccepts,      // a compiled path accepts what the rule (and eager) rejects
  kEager,                // eager's own bug: it breaks the rule, its values or its backward fail
  kErrorClassOrMeta,     // another error class where both reject, meta-only behaviour, unblamed
  kByDesign,             // a documented behaviour, folded into one line (by-design classes)
};

// The class of a root-cause signature (oracles/root_cause.h): by its kind, the path at fault
// (eager and eager on meta against every other path, which is the compiled side) and what that
// path did.
FindingClass ClassOfRootCause(const std::string& signature);

// How a root cause is filed, decided once (ClassifyRootCause) and written the same in every
// artifact: the campaign's summary line and summary.json, report.json, repro.py's docstring,
// triage.md and triage.html, issue.md.
enum class Filing {
  kFilable,          // a bug to file: a compiled path's (PyTorch's rule for compiler accuracy
                     // reports calls its values filable) or eager's own
  kPrecisionOnly,    // a compiled path's values, no less accurate than eager's against float64
  kByDesign,         // a documented behaviour (RootCauseClass::reason says which)
  kErrorClassOrMeta  // both reject but differ in how, meta-only behaviour, nobody blamed
};

struct RootCauseClass {
  FindingClass area = FindingClass::kErrorClassOrMeta;
  Filing filing = Filing::kErrorClassOrMeta;
  std::string reason;  // for kByDesign: the documented behaviour, e.g. "sdpa keeps the scores in
                       // float32"; "" otherwise
  bool operator==(const RootCauseClass&) const = default;
};

// The class of a root cause signed `root_cause` (folded where it folds) whose finding's divergence
// PyTorch's accuracy rule classified `classification` ("filable", "precision-only", "").
RootCauseClass ClassifyRootCause(const std::string& root_cause, const std::string& classification);

// "filable", "precision-only", "by-design", "error-class-or-meta": summary.json's and report.json's
// "filing". ParseFiling reads it back (none for another text).
std::string_view FilingName(Filing f);
std::optional<Filing> ParseFiling(std::string_view name);
// "[filable]", "[precision-only]", "[by design: <reason>]", "[error class or meta]": what every
// headline ends with.
std::string ClassTag(const RootCauseClass& c);

// "compiled-wrong-result", "compiled-raises", "compiled-accepts", "eager", "error-class-or-meta",
// "by-design": summary.json's "class".
std::string_view FindingClassName(FindingClass c);
// "a compiled path's silent wrong result", ...: how a line names its class.
std::string_view FindingClassTitle(FindingClass c);

}  // namespace mmdiff
