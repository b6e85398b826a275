// Mutator: small meaningful edits of a program (dtype, casts, layout, dimensions, op swaps, adding
// and removing nodes) and crossover of two programs, each followed by re-legalisation so that the
// result always passes the verifier. Same program, same choices, same mutation.
#pragma once

#include <string>

#include "src/gen/choice_source.h"
#include "src/gen/policy.h"
#include "src/ir/program.h"

namespace mmdiff {

enum class MutationKind {
  kChangeDType,  // an input's dtype
  kInsertCast,   // a cast in front of one argument of a node
  kRemoveCast,   // a cast node bypassed and dropped
  kFlipLayout,   // an input between contiguous and transposed storage
  kPerturbDim,   // one size changed everywhere it occurs (shared dims stay shared)
  kSwapOp,      // mm <-> matmul (2-D operands), bmm <-> matmul (3-D operands), mm/matmul <-> linear
                // (with a transpose of the weight)
  kAddNode,     // a freshly generated op appended, possibly consuming an existing value
  kRemoveNode,  // a node dropped, its uses rewired to a value of the same shape when one exists
  kMoveDevice,  // a .to(device) in front of one argument of a node, to another device
  kAutocast,    // a node into a fresh autocast region of its program's device type, or one region
                // out of the one it is in
  kRespell,     // one computation in another of the spellings Inductor's rewrites tell apart: x * s
                // <-> x / (1 / s), a Python-float scale <-> a 0-d torch.full tensor, masked_fill's
                // value (-inf, the dtype's lowest, -1e4, 0), a transpose of the last two dims <->
                // a permute
  kWeight,      // an input between an argument of the model's forward and one of its weights: a
                // product's weight operand becomes a parameter or a buffer, a weight an input
};
std::string_view MutationName(MutationKind k);

struct Mutation {
  Program program;
  MutationKind kind;
  std::string detail;  // what changed, for logs and reports
};

// One mutation drawn from the choices. When the drawn mutation does not apply (no cast to remove,
// say), another kind is tried; the result is always Verify()-clean.
Mutation Mutate(const Program& p, ChoiceSource& choices, const GenPolicy& policy);

// The inputs and nodes of both programs (b's names suffixed), with some of b's inputs replaced by
// values of a that have the same shape and dtype; outputs of both. Verify()-clean.
Program CrossOver(const Program& a, const Program& b, ChoiceSource& choices);

// Re-legalisation: drops nodes whose arguments are undefined or whose arity is wrong, drops
// transposed layouts of rank < 2, turns a view of an operand not known to be contiguous into a
// reshape, keeps outputs that exist and adds the last node if none is left.
Program Legalize(Program p);

}  // namespace mmdiff
