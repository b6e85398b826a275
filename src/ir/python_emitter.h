// Python emitter: a program as a Python function, its inputs as Python code, and a standalone repro.py.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "src/ir/input_recipe.h"
#include "src/ir/program.h"

namespace mmdiff {

// How EmitFunction spells the program. kPython: what repro.py runs and torch.compile gets.
// kTorchScript: the same operations in a spelling torch::jit::compile accepts without Python, whose
// native resolver knows only `torch.<aten op>`: torch.linear and torch.scaled_dot_product_attention
// for the torch.nn.functional calls, dtypes as their c10::ScalarType codes (as TorchScript prints them
// itself: 6 is torch.float32), and .to(code) for cast methods TorchScript lacks (.bfloat16()).
enum class FunctionDialect { kPython, kTorchScript };

// "def <name>(x0, x1):\n    v0 = torch.matmul(x0, x1)\n    return (v0,)\n" — the exact function
// the compiled backends hand to torch.compile, and that repro.py runs.
std::string EmitFunction(const Program& p, const std::string& name = "f",
                         FunctionDialect dialect = FunctionDialect::kPython);

// Helper code defining _mmdiff_values() (the InputRecipe twin) and make_inputs().
std::string EmitInputBuilder(const Program& p, const InputRecipe& r);

struct ReproOptions {
  std::string title;                       // first docstring line
  std::vector<std::string> notes;          // more docstring lines (who is wrong, versions seen)
  // What eager is compared with: a torch.compile backend ("inductor", "aot_eager", "eager"), or
  // "torchscript" (the TorchScript spelling through torch.jit.CompilationUnit, as mmdiff's path
  // compiles it) or "aoti" (torch.export, aoti_compile_and_package, aoti_load_package).
  std::string backend = "inductor";
  std::map<std::string, std::string> knobs;  // torch._inductor.config name -> Python literal
  // When >= 0, also compare values and fail beyond this absolute difference.
  double value_atol = -1;
};

// A standalone script: prints versions, builds the inputs, runs eager and torch.compile, prints both
// outcomes, and ends with an assertion that fails while eager and compiled disagree.
std::string EmitRepro(const Program& p, const InputRecipe& r, const ReproOptions& o);

}  // namespace mmdiff
