// Metamorphic relations: a program rewritten into another that computes the same values a
// different way, so that one path can be checked against itself without reference values:
// (A·B)ᵀ = Bᵀ·Aᵀ, addmm/addmv/baddbmm = β·C + α·(product), and bmm = the stacked mms.
#pragma once

#include <string>
#include <vector>

#include "src/ir/outcome.h"
#include "src/ir/program.h"

namespace mmdiff {

struct MetamorphicVariant {
  std::string relation;  // "transpose", "split_scaling", "stacked_mm"
  // Its outputs, flattened and concatenated in order, equal the original's flattened outputs.
  Program program;
};

// Variants of a one-node program of mm, bmm, addmm, addmv or baddbmm on floating operands of one
// dtype, without autocast regions; none for anything else.
std::vector<MetamorphicVariant> MetamorphicVariants(const Program& p);

struct MetamorphicCheck {
  bool holds = true;
  std::string detail;  // where and by how much it fails
};

// One path's results for the original and the variant, against the sum of the two reference
// bounds per element (never below assert_close's floors). Both must raise or both return; NaN must
// meet NaN. Without reference bounds (or data, e.g. on meta) only the outcome is compared.
MetamorphicCheck CheckMetamorphic(const std::string& relation, const PathResult& original,
                                  const PathResult& variant, const PathResult& ref_original,
                                  const PathResult& ref_variant);

}  // namespace mmdiff
