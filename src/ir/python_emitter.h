// Python emitter: a program as a Python function, its inputs as Python code, and a standalone
// repro.py.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "src/ir/call_sequence.h"
#include "src/ir/input_recipe.h"
#include "src/ir/paths.h"
#include "src/ir/program.h"

namespace mmdiff {

// How EmitFunction spells the program. kPython: what repro.py runs and torch.compile gets.
// kTorchScript: the same operations in a spelling torch::jit::compile accepts without Python, whose
// native resolver knows only `torch.<aten op>`: torch.linear and torch.scaled_dot_product_attention
// for the torch.nn.functional calls, dtypes as their c10::ScalarType codes (as TorchScript prints
// them itself: 6 is torch.float32), and .to(code) for cast methods TorchScript lacks (.bfloat16()).
// kTorchScriptFromPython: the TorchScript spelling compiled from Python (torch.jit.CompilationUnit,
// as repro.py does), whose resolver looks names up in Python's torch, where torch.linear does not
// exist: the torch.nn.functional calls keep their Python names (they compile to the same aten ops).
// Autocast regions are `with torch.autocast(...)` blocks in kPython and left out of the TorchScript
// dialects (the torchscript path refuses programs where a region changes what runs: UsesAutocast).
enum class FunctionDialect { kPython, kTorchScript, kTorchScriptFromPython };

// "def <name>(x0, x1):\n    v0 = torch.matmul(x0, x1)\n    return (v0,)\n" — the exact function
// the compiled backends hand to torch.compile, and that repro.py runs.
std::string EmitFunction(const Program& p, const std::string& name = "f",
                         FunctionDialect dialect = FunctionDialect::kPython);

// A program with weights (src/ir/program.h) as the torch.nn.Module the compiled paths compile:
// `class Model`, whose __init__ takes the weights in input order (a parameter as the
// torch.nn.Parameter it is given, a buffer registered as one) and whose forward takes the other
// inputs and returns f(...) with the weights in their places; then WEIGHTS and FORWARD, the input
// indices of each. "" for a program without weights. Runs after EmitFunction(p, "f").
std::string EmitModule(const Program& p);

// Helper code defining RECIPE, _mmdiff_values() (the InputRecipe twin, src/ir/python/
// repro_inputs.py) and make_inputs().
std::string EmitInputBuilder(const Program& p, const InputRecipe& r);

// CALLS_BEFORE, make_inputs_before() and calls_before() (src/ir/python/repro_calls_before.py) for
// the calls made before the case's (src/ir/call_sequence.h); "" when there are none. After
// EmitInputBuilder and repro_outcome.py.
std::string EmitCallsBefore(const Program& p, const std::vector<PriorCall>& before);

struct ReproOptions {
  std::string title;               // first docstring line
  std::vector<std::string> notes;  // more docstring lines (who is wrong, versions seen)
  // What eager is compared with: a torch.compile backend (Inductor, aot_eager, Dynamo alone), or a
  // path whose row's ReproKind says how repro.py compiles it (src/ir/paths.h): TorchScript through
  // torch.jit.CompilationUnit on its TorchScript spelling, as mmdiff's path compiles it, or
  // AOTInductor through torch.export, aoti_compile_and_package and aoti_load_package.
  std::string backend = paths::kInductor;
  std::map<std::string, std::string> knobs;  // torch._inductor.config name -> Python literal
  // When >= 0, also compare values and fail beyond this absolute difference.
  double value_atol = -1;
  // What the script checks. kCompiledVsEager: eager and the backend agree (outcome, error class,
  // result types, and `worst` or value_atol). kMetaVsCpu: f on meta copies of the inputs raises or
  // returns as on cpu (error class, dtypes, shapes). kEagerVsContract: eager raises
  // contract_error_class (contract_rejects) or returns contract_types. kEagerValue: eager's `worst`
  // element is within its allowed error of the reference value. kIgnoredInput: the backend (eager
  // where `backend` is empty) returns the same with the `zeroed` inputs replaced by zeros.
  enum class Check { kCompiledVsEager, kMetaVsCpu, kEagerVsContract, kEagerValue, kIgnoredInput };
  Check check = Check::kCompiledVsEager;
  bool contract_rejects = false;
  std::string contract_error_class;
  struct ResultType {
    DType dtype;
    Shape shape;
    Device device;
  };
  std::vector<ResultType> contract_types;
  std::vector<int> zeroed;  // kIgnoredInput: the inputs the op must ignore, by index
  // The element a value finding is about: output index (< 0: none), row-major element, the
  // reference value and the error allowed around it.
  struct Worst {
    int output = -1;
    int64_t element = -1;
    double expected = 0, allowed = 0;
  } worst;
  // For the backends repro.py compiles ahead of the run (torchscript, aoti): whether the finding is
  // that the compared path failed to compile f (mmdiff's run got its error from
  // torch::jit::compile, or from torch.export, aoti_compile_and_package or aoti_load_package).
  // true: the script's own compile error is the compiled outcome, compared with eager's. false: the
  // path compiled f, so a compile error in the script means it does not rebuild what mmdiff ran; it
  // says so and exits kReproFailedExitCode without comparing. Unset (the caller does not know): a
  // compile error is compared with an eager result (a divergence either way), but with eager
  // raising the script exits kReproFailedExitCode, since a compile error whose class matches
  // eager's run-time error says nothing about f (issue 16: a TorchScript source the script could
  // not resolve "agreed" with eager's RuntimeError).
  std::optional<bool> compile_error_is_finding;
  // The calls before the case's: the compared path (where it keeps state: torch.compile's backends,
  // TorchScript) is called on them first, in order, as in mmdiff's run.
  std::vector<PriorCall> before;
  // How many times the check runs before the script concludes the finding is gone: it stops at the
  // first run that shows it (exit 1), so a finding that shows only some of the time is not missed.
  int attempts = 3;
};

// repro.py's exit status when the script itself failed and compared nothing: its inputs cannot be
// built here (e.g. cuda inputs without a GPU), or the compared path's compile step failed where the
// finding is not that failure. Python exits 1 for the failed assertion that shows the finding and 2
// for its own usage errors.
inline constexpr int kReproFailedExitCode = 3;

// A standalone script: prints versions, builds the inputs, runs what o.check compares (after the
// calls before, where there are some), prints the outcomes, and ends with an assertion that fails
// (exit 1) while the finding is there, trying up to o.attempts times; exits kReproFailedExitCode
// when it could not run what it compares (see there); 0 when the finding is gone.
std::string EmitRepro(const Program& p, const InputRecipe& r, const ReproOptions& o);

}  // namespace mmdiff
