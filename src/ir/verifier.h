// Structural verifier: every program read from disk, generated or mutated passes through it.
#pragma once

#include "src/ir/program.h"
#include "src/support/status.h"

namespace mmdiff {

// Limits that keep a program runnable on one worker.
inline constexpr int kMaxRank = 6;
inline constexpr int64_t kMaxNumel = int64_t{1} << 24;
inline constexpr size_t kMaxNodes = 64;
inline constexpr size_t kMaxInputs = 256;
inline constexpr size_t kMaxOutputs = 256;
inline constexpr int64_t kMaxInputElements = 4 * kMaxNumel;  // all inputs together
inline constexpr size_t kMaxAutocastRegions = 16;

// Checks names, references (defined before use, no cycles), arity and attributes, dims and sizes,
// and autocast regions (device type cpu or cuda, dtype float16 or bfloat16, a parent before the
// region, every node's region defined).
// Contract violations (mismatched dtypes, shapes or devices) are legal programs: they are what
// the fuzzer tests. The error message names the offending input or node.
Status Verify(const Program& p);

}  // namespace mmdiff
