// The CLI's subcommands: gen, run, fuzz, paths. Each returns the process exit code (see main.cc).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "src/support/exit_codes.h"

namespace mmdiff::cli {

struct CommonOptions {
  std::string policy_file;
  bool test_paths = false;  // offer the test-only paths (planted faults, crashers)
  std::string paths;        // comma-separated; "" = every available non-test path
  double timeout_s = 300;   // per stage of a path, before the worker is killed
};

int Gen(uint64_t seed, const std::string& policy_file, const std::string& focus, bool dump_policy,
        bool whole_case, bool values);
// Statistics of `count` programs from seed on (text, or JSON with json=true).
int GenStats(uint64_t seed, int64_t count, const std::string& policy_file, const std::string& focus,
             bool json);
// One mutation of a program file (or a crossover with a second one); prints the new program.
int Mutate(const std::string& program_file, const std::string& cross_with, uint64_t seed,
           const std::string& policy_file);
int Run(const std::string& program_file, uint64_t input_seed, bool seed_given,
        const CommonOptions& o, bool json, const std::string& out_dir);
int Paths(bool json, bool test_paths);
// `mmdiff selftest`: exit 0 when every planted fault is caught and no false alarm is raised, 1
// otherwise.
int Selftest(bool json, bool full, int64_t programs, int64_t compiled_programs, uint64_t seed,
             double timeout_s, bool special);
std::string VersionText();

}  // namespace mmdiff::cli
