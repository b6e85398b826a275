// Root-cause classes.
#include "src/report/finding_class.h"

#include <vector>

#include "oracles/root_cause.h"
#include "src/ir/paths.h"

namespace mmdiff {

namespace {

bool Starts(const std::string& s, std::string_view with) { return s.rfind(with, 0) == 0; }

}  // namespace

FindingClass ClassOfRootCause(const std::string& signature) {
  const std::vector<std::string> f = SignatureFields(signature);
  const std::string& kind = f[0];
  const std::string path = f.size() > 1 && Starts(f[1], "path=") ? f[1].substr(5) : "?";
  const std::string behaviour = f.size() > 2 ? f[2] : "";
  bool rule = false;
  for (const auto& x : f) rule |= Starts(x, "rule=");
  if (Starts(behaviour, "by_design")) return FindingClass::kByDesign;
  if (kind == "meta" || path == paths::kEagerMeta || kind == "error_class" || Starts(path, "?"))
    return FindingClass::kErrorClassOrMeta;
  // Eager raising another error than the one the rule names (IndexError for a dtype mismatch):
  // both reject the program, they disagree on how.
  if (kind == "contract" && Starts(behaviour, "raises:") && rule)
    return FindingClass::kErrorClassOrMeta;
  if (kind == "contract" || path == paths::kEager) return FindingClass::kEager;
  // The compiled side (torch.compile's stages, TorchScript, AOTInductor, their variants).
  if (kind == "value" || kind == "dtype" || kind == "shape" || kind == "device" ||
      kind == "ignored_input")
    return FindingClass::kCompiledWrongResult;
  if (behaviour == "accepts" || behaviour == "unused_op") return FindingClass::kCompiledAccepts;
  if (kind == "crash" || kind == "timeout") return FindingClass::kCompiledRaises;
  // Raising where eager returns: on a program the rule accepts, the compiled path's bug; where the
  // rule rejects too, the two disagree on how to reject it.
  return rule ? FindingClass::kErrorClassOrMeta : FindingClass::kCompiledRaises;
}

std::string_view FindingClassName(FindingClass c) {
  switch (c) {
    case FindingClass::kCompiledWrongResult:
      return "compiled-wrong-result";
    case FindingClass::kCompiledRaises:
      return "compiled-raises";
    case FindingClass::kCompiledAccepts:
      return "compiled-accepts";
    case FindingClass::kEager:
      return "eager";
    case FindingClass::kErrorClassOrMeta:
      return "error-class-or-meta";
    case FindingClass::kByDesign:
      return "by-design";
  }
  return "error-class-or-meta";
}

std::string_view FindingClassTitle(FindingClass c) {
  switch (c) {
    case FindingClass::kCompiledWrongResult:
      return "compiled: silent wrong result";
    case FindingClass::kCompiledRaises:
      return "compiled: raises on a valid program";
    case FindingClass::kCompiledAccepts:
      return "compiled: accepts what the rule rejects";
    case FindingClass::kEager:
      return "eager's own bug";
    case FindingClass::kErrorClassOrMeta:
      return "error class or meta";
    case FindingClass::kByDesign:
      return "by design";
  }
  return "error class or meta";
}

}  // namespace mmdiff
