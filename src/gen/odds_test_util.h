// The helpers of the generator's odds tests (generator_odds_test.cc, model_odds_test.cc): count
// the programs of a policy with a form, and check that a policy key switches a form on and off.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>

#include "src/gen/generator.h"

namespace mmdiff::odds_test {

// How many of 400 programs generated under `p` have a node for which `pred(program, node)` holds.
template <typename Pred>
int Programs(const GenPolicy& p, Pred pred) {
  int hits = 0;
  for (uint64_t seed = 0; seed < 400; ++seed) {
    Program prog = GenerateFromSeed(seed, p);
    hits += std::any_of(prog.nodes.begin(), prog.nodes.end(),
                        [&](const Node& n) { return pred(prog, n); });
  }
  return hits;
}

// A policy that builds only `only` (a table op) and keeps everything else at its default.
inline GenPolicy Only(OpKind only) {
  GenPolicy p;
  for (const GenOp& op : GenOps()) p.*op.weight = op.op == only ? 1 : 0;
  return p;
}

// Checks that the base policy `p` (with `key` at its default) produces both `yes` and `no`, that
// `key` at 0 removes `yes` and at 1 removes `no`.
template <typename Yes, typename No>
void ExpectControls(GenPolicy p, double GenPolicy::* key, const char* name, Yes yes, No no) {
  EXPECT_GT(Programs(p, yes), 0) << name << " at its default";
  EXPECT_GT(Programs(p, no), 0) << name << " at its default";
  p.*key = 0;
  EXPECT_EQ(Programs(p, yes), 0) << name << " = 0";
  p.*key = 1;
  EXPECT_EQ(Programs(p, no), 0) << name << " = 1";
}

}  // namespace mmdiff::odds_test
