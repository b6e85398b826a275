// Running a Program with ATen from C++: inputs from the recipe, one ATen call per node, results
// as TensorValues, and C++ exceptions mapped to the Python error classes users see.
#pragma once

#include <ATen/ATen.h>

#include <functional>
#include <string>
#include <vector>

#include "src/exec/backend.h"

namespace mmdiff {

at::ScalarType ToScalarType(DType d);
DType FromScalarType(at::ScalarType s);  // throws std::invalid_argument for unmodelled types

// True when the program uses cuda and this process has no GPU to place its tensors on.
bool MissingGpu(const Program& p);
// The unsupported outcome of a path that needs a GPU for a program when MissingGpu.
PathResult NoGpuResult();

// The program's inputs as ATen tensors (shape, dtype, device, layout), from the recipe's values.
// Inputs with requires_grad are marked (leaves); `marking`, when given, names the input being
// marked (the one that raised, when it throws: a non-floating one).
std::vector<at::Tensor> MakeInputs(const Program& p, const InputRecipe& r, bool on_meta = false,
                                   std::string* marking = nullptr);

// Deliberately wrong paths for tests and `mmdiff selftest`; each is a plausible compiler bug.
enum class PlantedFault {
  kNone,
  kPromote,         // cast mismatched operands of the matmul family to their promoted dtype, as the
                    // buggy Inductor lowering of pytorch#177630 does, instead of letting ATen raise
  kDropK,           // mm/bmm/matmul leave out the last k-term (K >= 2)
  kHalfAccumulate,  // matmul-family ops on float32 operands compute in float16
  kWrongDType,      // float32 results come back as float64
  kNanToNumber,     // NaN in a result becomes 0
  kInfTimesZero,  // mm/bmm/matmul count inf * 0 (and NaN * 0) as 0, as a zero-skipping kernel would
  kSpreadNan,     // matmul family: a NaN or an infinity in the result makes the next column NaN too
  kBiasTimesBeta,  // addmm family: beta * input + alpha * product as written, so beta = 0 turns a
                   // NaN or an infinity of input into NaN (Inductor's baddbmm, pytorch#96087)
  kDropGradTerm,   // mm/bmm/matmul of same-rank matrices: the forward is right, but the second
                   // operand's gradient Aᵀ·G leaves out A's last row (one term of every dB element)
  kIgnoreAutocast,     // autocast regions are ignored: their ops run in their operands' dtypes (a
                       // float32 matmul in a bfloat16 region stays float32)
  kWideIntermediates,  // float16/bfloat16 values are computed in float32 and each output is rounded
                       // to its dtype once at the end: more accurate than eager, not wrong (a
                       // fused attention kept in float32 is such a path)
};

struct AtenRunOptions {
  PlantedFault fault = PlantedFault::kNone;
  // Run a cpu program on meta tensors: inputs are made on meta and moves to cpu stay on meta.
  bool on_meta = false;
  int threads = 0;  // > 0: ATen's intra-op thread count for this run (restored afterwards)
};
// `running`, when given, names the node being run (the one that raised, when it throws).
std::vector<at::Tensor> RunAten(const Program& p, const std::vector<at::Tensor>& inputs,
                                const AtenRunOptions& o, std::string* running = nullptr);

TensorValue ToTensorValue(const at::Tensor& t);

// Training programs (Trains(p), see program.h): the cotangent of each output that takes part in
// the loss (floating, requires grad; undefined otherwise), made from the recipe with the output's
// dtype, shape and device; and the gradients of the requires_grad inputs, in input order, zeros
// where the loss does not depend on one.
std::vector<at::Tensor> Cotangents(const Program& p, const InputRecipe& r,
                                   const std::vector<at::Tensor>& outs);
std::vector<at::Tensor> Gradients(const Program& p, const std::vector<at::Tensor>& inputs,
                                  const std::vector<at::Tensor>& outs,
                                  const std::vector<at::Tensor>& cotangents);

// Maps the exception in flight (call inside a catch block) onto error fields of `r`.
void RecordCurrentException(PathResult& r);

// Reports "backward" and appends the gradients to res's outputs; an exception becomes res's error
// outcome (by `record`, called inside the catch block) with res.backward set.
void RunBackwardStage(const Program& p, const InputRecipe& r, const std::vector<at::Tensor>& inputs,
                      const std::vector<at::Tensor>& outs, PathResult& res, StageReporter& stages,
                      void (*record)(PathResult&) = RecordCurrentException);

// An unsupported outcome: the reason, and why in words.
PathResult UnsupportedResult(UnsupportedReason reason, std::string why);

// Reports the stage "inputs" and makes the program's inputs into `inputs` (on meta with on_meta);
// when that throws, returns false with the error outcome in `error`.
bool MakeInputsStage(const Program& p, const InputRecipe& r, StageReporter& stages,
                     std::vector<at::Tensor>& inputs, PathResult& error, bool on_meta = false);

// Reports `stage`, calls `run`, then reports "results" and stores its tensors as res's ok outputs;
// an exception becomes res's error outcome.
void RunOutputsStage(PathResult& res, StageReporter& stages, const char* stage,
                     const std::function<std::vector<at::Tensor>()>& run);

// The whole eager-style path: inputs, RunAten, results; exceptions become error outcomes.
PathResult RunAtenPath(const Program& p, const InputRecipe& r, StageReporter& stages,
                       const AtenRunOptions& o);

}  // namespace mmdiff
