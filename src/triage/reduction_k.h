// The reduction dimension K of a program's products, from its inputs' shapes (static types).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "src/ir/program.h"
#include "src/ir/static_types.h"

namespace mmdiff::triage {

// K of one node, the length of the sums it computes: the first matrix operand's last dimension
// (mm, bmm, matmul, mv, dot, linear: args[0]; addmm, addmv, baddbmm, addbmm: args[1], after the
// bias); for scaled_dot_product_attention the larger of E (q @ k^T) and S (weights @ v).
// nullopt for other ops, or where an operand's shape is unknown.
std::optional<int64_t> NodeReductionK(const Node& n,
                                      const std::map<std::string, StaticType>& types);

// The largest K among the product nodes that program output number `output` depends on (over
// every node when the index is out of range); nullopt when there is none with a known shape.
std::optional<int64_t> OutputReductionK(const Program& p, int output);

}  // namespace mmdiff::triage
