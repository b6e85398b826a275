// Root-cause classes.
#include "src/report/finding_class.h"

#include <vector>

#include "oracles/addmm_fusion.h"
#include "oracles/attention_fusion.h"
#include "oracles/root_cause.h"
#include "oracles/root_cause_fold.h"
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

namespace {

// The documented behaviour a by-design root cause is one case of, by its behaviour field.
std::string ByDesignReason(const std::string& behaviour) {
  if (behaviour == kUnroundedIntermediates)
    return "Inductor keeps float16/bfloat16 intermediates in float32 and does not round them "
           "(torch._inductor.config.emulate_precision_casts = True rounds them)";
  if (behaviour == kSdpaSafeSoftmax)
    return "sdpa zeroes a row with no finite score, pytorch#141128";
  if (behaviour == kSdpaFloat32) return "sdpa keeps the scores in float32, no less accurate";
  if (behaviour == kAddmmFusion)
    return "addmm adds the bias before rounding the product, no less accurate";
  return "a documented behaviour (" + behaviour + ")";
}

}  // namespace

RootCauseClass ClassifyRootCause(const std::string& root_cause, const std::string& classification) {
  RootCauseClass c;
  c.area = ClassOfRootCause(root_cause);
  switch (c.area) {
    case FindingClass::kByDesign: {
      const std::vector<std::string> f = SignatureFields(root_cause);
      c.filing = Filing::kByDesign;
      c.reason = ByDesignReason(f.size() > 2 ? f[2] : "");
      break;
    }
    case FindingClass::kErrorClassOrMeta:
      c.filing = Filing::kErrorClassOrMeta;
      break;
    case FindingClass::kEager:
      c.filing = Filing::kFilable;
      break;
    default:
      c.filing = classification == "precision-only" ? Filing::kPrecisionOnly : Filing::kFilable;
  }
  return c;
}

std::string_view FilingName(Filing f) {
  switch (f) {
    case Filing::kFilable:
      return "filable";
    case Filing::kPrecisionOnly:
      return "precision-only";
    case Filing::kByDesign:
      return "by-design";
    case Filing::kErrorClassOrMeta:
      return "error-class-or-meta";
  }
  return "error-class-or-meta";
}

std::optional<Filing> ParseFiling(std::string_view name) {
  for (Filing f :
       {Filing::kFilable, Filing::kPrecisionOnly, Filing::kByDesign, Filing::kErrorClassOrMeta})
    if (FilingName(f) == name) return f;
  return std::nullopt;
}

std::string ClassTag(const RootCauseClass& c) {
  switch (c.filing) {
    case Filing::kFilable:
      return "[filable]";
    case Filing::kPrecisionOnly:
      return "[precision-only]";
    case Filing::kByDesign:
      return "[by design: " + c.reason + "]";
    case Filing::kErrorClassOrMeta:
      return "[error class or meta]";
  }
  return "[error class or meta]";
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
