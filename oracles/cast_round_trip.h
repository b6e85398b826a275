// An explicit cast round trip as a root cause: a value that a program casts to a less precise
// floating dtype and back (x.to(float16).to(float32)), which a compiler can fold into nothing.
// Seen on torch 2.11.0: Inductor's CPU code drops an explicit float32 -> float16 -> float32 round
// trip even with torch._inductor.config.emulate_precision_casts = True (pytorch#185337), found in
// the forward values and, through the same pair, in a gradient: two buckets, two folders, for one
// cause. On 2.15.0 the knob removes it and the finding folds as by design (root_cause_fold.h).
#pragma once

#include <string>

#include "oracles/contract.h"
#include "oracles/root_cause.h"
#include "src/ir/program.h"

namespace mmdiff {

// A round trip of the program: `narrow`, a cast to a less precise floating dtype than its operand
// (views between allowed), and `back`, a later cast of its value to a more precise one.
struct CastRoundTrip {
  const Node* narrow = nullptr;
  const Node* back = nullptr;
  DType from = DType::kFloat32, via = DType::kFloat16, to = DType::kFloat32;
};

// The program's first explicit round trip, if any (narrow and back null where there is none).
CastRoundTrip FirstCastRoundTrip(const Program& p, const Expectation& contract);

// A value finding (values or a gradient's) of a compiled path that PyTorch's accuracy rule,
// measured against the float64 run, calls precision-only, in a program with an explicit round
// trip: its result is at least as close to the exact one as eager's, as it is when the round
// trip's rounding is skipped. One root cause per path, forward or gradient, whatever the ops:
// "value|path=<path>|cast_round_trip|devices=<the program's devices>". The round trip, or one
// with null nodes where the finding is not this.
CastRoundTrip RoundTripFinding(const Program& p, const Expectation& contract,
                               const RootCauseFacts& f);

// "float32 -> float16 -> float32".
std::string RoundTripText(const CastRoundTrip& t);

}  // namespace mmdiff
