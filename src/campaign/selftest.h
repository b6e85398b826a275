// `mmdiff selftest`: the oracle checked on the installed torch. Planted faults (deliberately wrong
// paths) must be caught and blamed on themselves; correct paths (eager, eager with one thread,
// aot_eager, the reference) must raise no numeric finding over many random valid programs.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "src/exec/supervisor.h"
#include "src/gen/policy.h"

namespace mmdiff {

struct SelftestOptions {
  int64_t programs = 5000;           // reference vs eager vs eager on one thread
  int64_t compiled_programs = 300;   // reference vs eager vs aot_eager, and half as many vs
                                     // aot_eager compiled as a knob variant is (0: skip both)
  int64_t relation_programs = 1000;  // one-op programs for the metamorphic relations on eager
  uint64_t seed = 1;
  // The false-alarm checks' programs carry special values (NaN, ±inf, -0, subnormals, near-max) in
  // every input at a high rate (SpecialSelftestRate), exact value mode included.
  bool special = false;
};

inline constexpr double kSpecialSelftestRate = 0.1;

struct PlantedCheck {
  std::string path;     // the planted path
  std::string fault;    // what it does wrong
  std::string program;  // the program's summary
  bool caught = false;  // some divergence involves the path
  bool blamed = false;  // ... and blames it
  std::string detail;   // the divergence found, or why none was
};

struct FalseAlarmCheck {
  std::string pair;    // "eager vs reference", ...
  std::string values;  // "random value classes" or "exact"
  int64_t programs = 0;
  int64_t numeric_findings = 0;      // value and ignored-input divergences between correct paths:
                                     // false alarms
  int64_t ignored_input_reruns = 0;  // programs rerun with an ignored input (beta = 0) zeroed
  int64_t bitwise_compared = 0;      // exact mode, one-op programs: outputs compared bit for bit
  int64_t bitwise_different = 0;
  std::vector<std::string> examples;  // the first few findings, for the report
};

// A metamorphic relation over one-op programs, checked on one path without reference values.
struct RelationCheck {
  std::string path;
  int64_t programs = 0;  // programs the relation applied to
  int64_t violations = 0;
  std::vector<std::string> examples;
};

struct SelftestResult {
  std::vector<PlantedCheck> planted;
  std::vector<FalseAlarmCheck> checks;
  std::vector<RelationCheck> relations;
  bool Passed() const;
};

// The random valid programs: no deliberate violations, cpu only, and without bfloat16 and float32
// attention masks, where eager has known value bugs of its own (corpus/regression/eager-*.json).
// With `special`, every program's inputs carry special values at kSpecialSelftestRate.
GenPolicy SelftestPolicy(bool special = false);

// `sup` must offer the test-only paths (worker started with --test-paths).
SelftestResult RunSelftest(Supervisor& sup, const SelftestOptions& o);
nlohmann::json SelftestToJson(const SelftestResult& r);
std::string SelftestToText(const SelftestResult& r);

}  // namespace mmdiff
