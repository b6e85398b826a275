// Running a Program with ATen from C++: inputs from the recipe, one ATen call per node, results
// as TensorValues, and C++ exceptions mapped to the Python error classes users see.
#pragma once

#include <ATen/ATen.h>

#include <string>
#include <vector>

#include "src/exec/backend.h"

namespace mmdiff {

at::ScalarType ToScalarType(DType d);
DType FromScalarType(at::ScalarType s);  // throws std::invalid_argument for unmodelled types

// "" if this process can place tensors on every device the program uses; otherwise why not.
std::string MissingDevice(const Program& p);

// The program's inputs as ATen tensors (shape, dtype, device, layout), from the recipe's values.
std::vector<at::Tensor> MakeInputs(const Program& p, const InputRecipe& r);

struct AtenRunOptions {
  // Planted fault for tests: cast mismatched operands to their promoted dtype, as the buggy
  // Inductor lowering of pytorch#177630 does, instead of letting ATen raise.
  bool promote_mismatched_dtypes = false;
};
std::vector<at::Tensor> RunAten(const Program& p, const std::vector<at::Tensor>& inputs, const AtenRunOptions& o);

TensorValue ToTensorValue(const at::Tensor& t);

// Maps the exception in flight (call inside a catch block) onto error fields of `r`.
void RecordCurrentException(PathResult& r);

// The whole eager-style path: inputs, RunAten, results; exceptions become error outcomes.
PathResult RunAtenPath(const Program& p, const InputRecipe& r, StageReporter& stages, const AtenRunOptions& o);

}  // namespace mmdiff
