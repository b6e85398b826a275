// Hand-written attention as Inductor's attention fusions see it: softmax(scores) @ v, where the
// scores come from a matmul through scaling, masking, casts and views. A fusion replaces the chain
// by scaled_dot_product_attention, whose kernels keep the scores and the probabilities in float32
// (sdpa's CPU kernels for float16 and bfloat16 do), so the float16/bfloat16 roundings the program
// writes between the two matmuls may not happen: as with Inductor's fused intermediates in general
// (emulate_precision_casts), a choice of the compiler, not a wrong result.
#pragma once

#include <set>
#include <string>

#include "src/ir/program.h"

namespace mmdiff {

// The nodes of every attention chain whose result a fusion may keep in float32 rather than round
// to its 16-bit dtype: the scores' matmul, the scaling, masking, cast and view nodes between it and
// the softmax, the softmax, and the casts, dropouts and views between the softmax and the matmul
// that takes the probabilities as its first operand. Empty for a program with no such chain.
std::set<std::string> FusableAttentionNodes(const Program& p);

}  // namespace mmdiff
