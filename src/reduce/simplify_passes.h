// The simplifying passes that keep the program's structure: dtypes (toward float32, in DTypeRank
// order), devices (toward cpu), training and autocast (toward none), layouts (toward contiguous),
// op attributes (toward their defaults) and input values (toward the exact value class, no special
// values, seed 0), and weights (toward none: a function, not a model). Each returns true when it
// kept at least one step.
#pragma once

#include "src/reduce/reduce_session.h"

namespace mmdiff {

// Each input's dtype, each cast's target and each softmax dtype: the simpler dtypes in order, the
// first the predicate accepts wins (a softmax dtype is first dropped altogether).
bool SimplifyDTypes(ReduceSession& s);
// Inputs and device moves off the cpu: to cpu.
bool SimplifyDevices(ReduceSession& s);
// Inputs that require grad: not (a forward finding loses its backward; a backward one keeps the
// inputs whose gradients show it).
bool SimplifyGradients(ReduceSession& s);
// A model's weights: each an argument of its forward (a program without weights is no model).
bool SimplifyWeights(ReduceSession& s);
// Autocast: no regions at all, else each node one region out (to its region's parent), regions
// no node runs in dropped.
bool SimplifyAutocast(ReduceSession& s);
// Transposed inputs: to contiguous.
bool SimplifyLayouts(ReduceSession& s);
// alpha and beta to 1, the plain .to() spelling of casts, sdpa's is_causal, scale and enable_gqa
// to their defaults.
bool SimplifyAttributes(ReduceSession& s);
// The weights' own recipe dropped, special-value rate to 0, value class to exact then grid16
// (unused parameters back to their defaults), seed to 0.
bool SimplifyValues(ReduceSession& s);

}  // namespace mmdiff
