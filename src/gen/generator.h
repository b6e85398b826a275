// Generator: builds random matmul-family programs from a ChoiceSource under a GenPolicy.
// Shapes are derived from shared dimensions chosen first, so programs are valid by construction
// except for the contract violations the policy asks for (mixed dtypes, mismatched shapes).
#pragma once

#include <cstdint>

#include "src/gen/choice_source.h"
#include "src/gen/policy.h"
#include "src/ir/program.h"

namespace mmdiff {

// Bumped whenever the same (policy, seed) would produce a different program.
inline constexpr int kGeneratorVersion = 5;  // 2: more ops; 3: devices; 4: views; 5: glue

// The program is always Verify()-clean.
Program Generate(ChoiceSource& choices, const GenPolicy& policy);
inline Program GenerateFromSeed(uint64_t seed, const GenPolicy& policy) {
  SeededChoices c(seed);
  return Generate(c, policy);
}

}  // namespace mmdiff
