// The reference engine's backward: the gradients of a training program's requires_grad inputs
// (src/ir/program.h), from the forward's reference values, with per-element bounds.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "kernels/ref_tensor.h"
#include "oracles/contract.h"
#include "src/ir/input_recipe.h"
#include "src/ir/program.h"

namespace mmdiff {

// For a program the contract accepts, with `env` the reference value of every input and node:
// the gradient of each requires_grad input, in input order (exact zeros where the loss does not
// depend on it). scaled_dot_product_attention has no reference backward yet: what flows through
// it is unjudged (bound +inf). With `float64`, every floating gradient is computed in float64
// (ComputedIn), from the cotangents the paths get.
std::vector<mmref::RefTensor> ReferenceGradients(const Program& p, const Expectation& e,
                                                 const InputRecipe& r,
                                                 const std::map<std::string, mmref::RefTensor>& env,
                                                 bool float64 = false);

}  // namespace mmdiff
