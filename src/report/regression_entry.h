// Regression entries (corpus/regression/*.json): a saved program with its inputs, the paths to run,
// and the verdict expected for each range of torch versions.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "oracles/verdict.h"
#include "src/ir/call_sequence.h"
#include "src/ir/input_recipe.h"
#include "src/ir/program.h"
#include "src/support/status.h"

namespace mmdiff {

// 2: the calls before the case ("calls_before", src/ir/call_sequence.h), which a version 1 reader
// would leave out. Version 1 entries are still read.
inline constexpr int kRegressionFormatVersion = 2;
inline constexpr int kOldestRegressionFormatVersion = 1;

struct ExpectedDivergence {
  std::string kind;    // DivergenceKindName
  std::string blamed;  // "" = any
  // A value divergence whose worst element is NaN where the reference allows none ("nan": true):
  // what its root cause is signed by where that matters (EagerBfloat16ProductNan). Replay does not
  // check it.
  bool nan = false;
  // A result divergence, or an error on a program eager runs, of attention fusions ("fused":
  // "_sfdp_pattern_5", several joined by ','): the root cause is signed with them
  // (RootCauseFacts::fused). Replay does not check it.
  std::string fused;
  // Other patterns whose replacements share the fault ("fused_alike": ["_sfdp_pattern_20"]): the
  // catalogue knows the root cause signed with each of them too, so a sibling pattern's finding is
  // not listed as new. Only beside "fused".
  std::vector<std::string> fused_alike;
  // An error whose message names a compiler defect that shows whatever the ops ("error_mark":
  // "graph_order", oracles/root_cause.h: CompilerErrorMark): the root cause is signed with it, so
  // the same defect in other ops is this entry. Replay does not check it.
  std::string error_mark;
  // An error on a program the contract accepts that shows whatever pointwise epilogue follows the
  // product ("epilogues_alike": true; pytorch#185405: max-autotune's BMM template fails with
  // silu, sigmoid, tanh, gelu and clamp alike): the catalogue knows the root cause signed with
  // each epilogue (relu, gelu, silu, sigmoid, tanh, clamp) in place of the entry's. Replay does
  // not check it.
  bool epilogues_alike = false;
};

struct VersionExpectation {
  std::string torch;  // a range like ">=2.11.0,<2.12"; comma means "and"
  bool diverges = false;
  std::vector<ExpectedDivergence> divergences;  // each must be present when diverges
  std::string note;
  std::vector<std::string> cpu_flags;  // holds only on a CPU with all these /proc/cpuinfo flags
};

struct RegressionEntry {
  std::string title;
  Program program;
  InputRecipe recipe;
  std::vector<PriorCall> before;  // the calls before the case (none before version 2)
  std::vector<std::string> paths;
  std::vector<VersionExpectation> expected;
  std::string
      upstream;  // an upstream issue, free text (e.g. "pytorch/pytorch#177630"); "" when none
};

// Ok when `j` is a regression entry this mmdiff reads ("format" "mmdiff.regression", "version"
// kOldestRegressionFormatVersion to kRegressionFormatVersion); otherwise an error saying which.
Status CheckRegressionEntryFormat(const nlohmann::json& j);
// Parses and checks an entry; an error names what is wrong (malformed JSON, another format or an
// unknown version, a bad program, recipe, path list or expectation).
Result<RegressionEntry> ParseRegressionEntry(const std::string& text);

// The first expectation whose range contains the version, if any; and its index in `expected`.
std::optional<VersionExpectation> ExpectationFor(const RegressionEntry& e,
                                                 const std::string& torch_version);
std::optional<size_t> ExpectationIndexFor(const std::vector<VersionExpectation>& expected,
                                          const std::string& torch_version);

// The flags of e.cpu_flags that this machine's CPU lacks (/proc/cpuinfo); empty: it applies here.
std::vector<std::string> MissingCpuFlags(const VersionExpectation& e);

// "" when the verdict matches the expectation; otherwise what differs.
std::string CompareWithExpectation(const Verdict& v, const VersionExpectation& e);

}  // namespace mmdiff
