// PathResult: what running a program on one path produced — ok with tensors, an error (class and
// message), a crash or timeout (with the stage it died in), or unsupported. Findings are data.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "src/ir/compile_phases.h"
#include "src/ir/device.h"
#include "src/ir/dtype.h"
#include "src/ir/path_traits.h"
#include "src/ir/shape.h"
#include "src/support/status.h"

namespace mmdiff {

enum class OutcomeKind { kOk, kError, kCrash, kTimeout, kUnsupported };
std::string_view OutcomeName(OutcomeKind k);  // "ok", "error", "crash", "timeout", "unsupported"

// Bits of TensorValue::also (the same as the reference engine's, kernels/ref_tensor.h).
enum : uint8_t { kAlsoPosInf = 1, kAlsoNegInf = 2, kAlsoNaN = 4 };

struct TensorValue {
  DType dtype = DType::kFloat32;
  Shape shape;
  Device device = Device::kCpu;
  std::vector<double> data;   // row-major values as float64; empty for meta tensors
  std::vector<double> bound;  // reference only: per-element error bound (+inf: anything goes)
  // reference only: per element, the special results a correct path may also return (kAlso*
  // bits); empty when none anywhere.
  std::vector<uint8_t> also;
};

// What a compiled path reports about its compilation, cheaply: whether this run compiled a graph,
// whether it ran the function compiled for an earlier input of the same program (which compiles
// again only when its guards fail, e.g. for new sizes), Inductor's FX graph cache
// hits and misses, and the internals it chose (extern kernels, fused kernels, templates, fallbacks,
// pattern rewrites), as short names such as "extern:mm" or "pattern:decompose_mm".
struct CompileInfo {
  bool present = false;  // false for paths that do not compile
  bool compiled = false;
  bool reused = false;
  int fx_cache_hits = 0, fx_cache_misses = 0;
  std::vector<std::string> internals;  // sorted, unique
  CompilePhases phases;                // on the wire only; reports leave them out
};

// The prefix of a graph rewrite (pattern-matcher entry or decomposition) among the internals:
// "rewrite:<name>", named by src/backends/python/rewrite_names.py.
inline constexpr std::string_view kRewritePrefix = "rewrite:";
// ... and the lowering a product got ("lowering:mkl._mkl_linear.default",
// "lowering:template.CppGemmTemplate": src/ir/python/inductor_lowerings.py names them).
inline constexpr std::string_view kLoweringPrefix = "lowering:";

struct PathResult {
  std::string path;
  OutcomeKind kind = OutcomeKind::kUnsupported;
  std::string error_class;  // Python builtin class of the root cause: "RuntimeError", ...
  std::string error_type;   // the root cause's full type, e.g. "torch._dynamo.exc.Unsupported"
  std::string message;      // first line of the error, or why unsupported, or crash details
  // unsupported: why, as the worker says (reports keep only the message: kNone when read back).
  UnsupportedReason unsupported = UnsupportedReason::kNone;
  std::string stage;  // where it was when it crashed or timed out, e.g. "compile"
  // error: the program node whose op raised, where the path runs node by node and knows it (eager,
  // eager_meta, reference); empty otherwise. Eager may raise at another node than the contract's
  // first violation (it accepts a mixed cpu/meta op, then fails at a later, perhaps unused, one).
  std::string node;
  // error: raised in the backward pass of a training program (Trains), after the forward ran.
  bool backward = false;
  int signal = 0;  // crash: the signal that killed the worker
  std::vector<TensorValue> outputs;
  double seconds = 0;
  CompileInfo compile;
  // The traits of the path that produced it, as its worker published them (Supervisor::Run sets
  // them; not part of the wire result or of reports).
  PathTraits traits;
  bool ok() const { return kind == OutcomeKind::kOk; }
};

// The result of `path` in `results`, or nullptr.
const PathResult* FindResult(const std::vector<PathResult>& results, const std::string& path);

// wire=true: the worker wire format, with the values (data, bound, also) and the unsupported
// reason; wire=false: a report's, without them. The traits are in neither.
nlohmann::json PathResultToJson(const PathResult& r, bool wire);
// Either format. An unsupported reason must name one (ParseUnsupportedReason) on an unsupported
// result.
Result<PathResult> PathResultFromJson(const nlohmann::json& j);

}  // namespace mmdiff
