// Selection and masking (where, masked_fill, eq with a scalar, tril) and the elementwise product
// and true division, element by element by the rules of kernels/ref_tensor.h. Operands broadcast to
// the result's `shape` (computed by the caller) as Expand does; callers check the contract first.
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/precision.h"
#include "kernels/ref_tensor.h"

namespace mmref {

// torch.where(cond, x, y), x and y already in the result's format: each element is x's or y's, as
// is. Where the condition is not known (0 within its error, or 0 that may also be special), the
// element is unknown (err +inf).
RefTensor Where(const RefTensor& cond, const RefTensor& x, const RefTensor& y,
                const std::vector<int64_t>& shape);
// x.masked_fill(mask, value), `value` already in x's format: masked elements are exactly `value`
// (NaN and infinities included), the others x's; an unknown mask element gives an unknown one.
RefTensor MaskedFill(const RefTensor& x, const RefTensor& mask, double value,
                     const std::vector<int64_t>& shape);
// torch.eq(x, c) as 0/1, exact where every value the element may be compares alike with c;
// elsewhere unknown (val 0, err +inf).
RefTensor EqScalar(const RefTensor& x, double c);
// torch.tril(x, diagonal) over the last two dims (rank >= 2): an element in row i and column j
// with j - i > diagonal becomes an exact 0.
RefTensor Tril(const RefTensor& x, int64_t diagonal);
// torch.mul(a, b) rounded to `out`: IEEE special values (inf * 0 is NaN) followed through the
// operands' outcome sets; integer formats wrap, an inexact or special integer operand gives
// unknown.
RefTensor Mul(const RefTensor& a, const RefTensor& b, const std::vector<int64_t>& shape,
              Format out);
// torch.div(a, b) (true division) rounded to the floating format `out`. Unknown (err +inf) where
// the denominator may be 0 or a special value meets an uncertain operand (exact ones follow IEEE).
RefTensor Div(const RefTensor& a, const RefTensor& b, const std::vector<int64_t>& shape,
              Format out);

}  // namespace mmref
