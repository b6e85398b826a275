// The class of a root cause: what kind of thing a maintainer is asked to act on, in the order they
// act on it. A campaign's summary, triage.md and triage.html rank new root causes by class first,
// and each line names its class.
#pragma once

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

// "compiled-wrong-result", "compiled-raises", "compiled-accepts", "eager", "error-class-or-meta",
// "by-design": summary.json's "class".
std::string_view FindingClassName(FindingClass c);
// "a compiled path's silent wrong result", ...: how a line names its class.
std::string_view FindingClassTitle(FindingClass c);

}  // namespace mmdiff
