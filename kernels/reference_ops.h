// Reference implementations of the matmul family with forward error bounds.
// Callers check the contract (shapes, dtypes) first; these functions assume legal arguments.
#pragma once

#include "kernels/precision.h"
#include "kernels/ref_tensor.h"

namespace mmref {

// How a correct implementation computes in a given output format: products accumulated in `acc`,
// the result rounded once to `out`.
struct Arith {
  Format out;
  Format acc;
};

// torch.matmul semantics at every rank (1-D promotion, broadcast batch dims); covers mm and bmm.
// Values are accumulated in float64 with a compensated (Kahan-Babuska) sum.
RefTensor Matmul(const RefTensor& a, const RefTensor& b, Arith arith);
// beta * bias + alpha * (a @ b), bias broadcast to the product; beta == 0 ignores the bias (NaN too).
RefTensor Addmm(const RefTensor& bias, const RefTensor& a, const RefTensor& b, double alpha, double beta,
                Arith arith);
// Conversion to another format (round to nearest even).
RefTensor Cast(const RefTensor& a, Format to);

}  // namespace mmref
