// Generator: builds random matmul-family programs from a ChoiceSource under a GenPolicy.
// Shapes are derived from shared dimensions chosen first, so programs are valid by construction
// except for the contract violations the policy asks for (mixed dtypes, mismatched shapes).
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "src/gen/choice_source.h"
#include "src/gen/policy.h"
#include "src/ir/input_recipe.h"
#include "src/ir/op.h"
#include "src/ir/program.h"

namespace mmdiff {

// Bumped whenever the same (policy, seed) would produce a different program.
// 2: more ops; 3: devices; 4: views; 5: glue; 6: attention, integers, moves, value classes, sizes;
// 7: training (inputs that require grad); 8: autocast regions; 9: attention in the spellings
// Inductor's rewrites match (keys permuted, scores divided, softmax over another dim); 10: masks
// by masked_fill and where (padding masks, causal tril masks), scales as 0-d tensors; 11: sdpa of
// permuted (B, S, H, E) operands, float32 masks added to 16-bit scores, p_mask_grad; 12: where'd
// then added masks, scores' cast round trips, casts back before dropout, keys and values as
// outputs; 14: a steered campaign's target foci (its cases' foci are drawn among more), MBart's
// attention; 15: 2.11.0's target foci, attention heads from attention_heads_min; 16: a
// masked_fill's -inf drawn by p_mask_fill_inf (padding targets fill with -inf); 17: models, whose
// weight operands are parameters and buffers (p_module), pointwise epilogues after products
// (p_epilogue), linears sharing an input (p_linear_siblings); 18: two siblings by p_two_siblings,
// the deployment stack's target foci (src/gen/deployment_targets.h); 19: mkldnn's targets write
// linears with a batch (min_linear_rank) and a bias row where they aim at its folding
// (p_glue_residual), targets for a template's epilogue on a product returned as well; 20: the
// bias-folding target's linears take 2-D inputs (max_linear_rank), mkldnn's targets batches of 2
// or more (min_batch), the concatenation targets' siblings mostly one weight size, theirs and
// binary folding's linears no 1-D input; 21: p_shape_violation also gives the addmm family a bias
// that does not expand to the product; 22: the foci integers, special_values (p_beta_zero) and
// sdpa, the BMM template's targets write no operand below 3 dimensions (min_matmul_rank); 23: a
// bias that does not expand is larger in a product dim of size 1 where there is one (3 times in
// 4), p_bias_violation, the sdpa focus mostly float64, causal and training
inline constexpr int kGeneratorVersion = 23;

class ProgramBuilder;  // builds one program (generator.cc)

// The op table: one entry per op the generator draws by weight, in the order of that draw. An entry
// names the op it builds (hand-written attention: its softmax, the one op only it emits), the op's
// weight in GenPolicy and that weight's JSON key, and its builder, which draws the op's dtype and
// operands and emits it (with `chain`, onto the last result where that fits). The weighted draw,
// swarm mode's per-op switch-off and the policy's op keys all read this table.
struct GenOp {
  OpKind op;
  double GenPolicy::* weight;
  std::string_view key;
  void (ProgramBuilder::*build)(bool chain);
};
const std::vector<GenOp>& GenOps();

// A test case: the program and the recipe of its input values, both drawn from one ChoiceSource
// (the recipe after the ops and outputs, then training and autocast, which leave the nodes, the
// inputs' shapes, dtypes and devices and the values as they were).
struct GeneratedCase {
  Program program;
  InputRecipe recipe;
};

// The program is Verify()-clean; a generator bug makes its outputs name "__generator_bug__:<why>",
// which fails verification (and the generator's tests).
GeneratedCase GenerateCase(ChoiceSource& choices, const GenPolicy& policy);
// The value class of a program's inputs, as GenerateCase draws it after the program.
InputRecipe GenerateRecipe(ChoiceSource& choices, const GenPolicy& policy);
Program Generate(ChoiceSource& choices, const GenPolicy& policy);
inline GeneratedCase GenerateCaseFromSeed(uint64_t seed, const GenPolicy& policy) {
  SeededChoices c(seed);
  return GenerateCase(c, policy);
}
inline Program GenerateFromSeed(uint64_t seed, const GenPolicy& policy) {
  return GenerateCaseFromSeed(seed, policy).program;
}

}  // namespace mmdiff
