// Helpers for end-to-end tests: run the real CLI, make scratch folders, small programs.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "src/exec/supervisor.h"
#include "src/ir/program.h"

namespace mmdiff::e2e {

struct CommandResult {
  int exit_code;
  std::string output;  // stdout and stderr together
};

// Inductor's cache of compiled kernels for every command the e2e tests run
// (e2e-inductor-cache-torch-<version> in the venvs' cache folder, VenvCacheDir(), so that a new
// checkout on the same machine finds it; TORCHINDUCTOR_CACHE_DIR of the commands, unless set
// already): a campaign's own cache is cold, and compiling C++ kernels that an earlier test, or an
// earlier run, compiled was most of the compiled tests' time. Kernels are cached by their source,
// so a cached one is the one the test would compile. FX graph and AOTAutograd caches stay off in
// workers, as always.
std::string SharedInductorCache();
// Runs `build/mmdiff ARGS` through the shell; a campaign (`fuzz` without --resume or
// --inductor-cache) gets --inductor-cache SharedInductorCache().
CommandResult RunMmdiff(const std::string& args);
// The same with the campaign's own cache: for tests of where that cache lives.
CommandResult RunMmdiffOwnCache(const std::string& args);
// Runs any shell command, with TORCHINDUCTOR_CACHE_DIR set as above.
CommandResult RunShell(const std::string& command);
// A fresh empty folder under the temp dir (mmdiff-e2e-<pid>/NAME); at exit of the test process
// they are all removed when every test passed, and kept (with a line saying where) otherwise.
std::string ScratchDir(const std::string& name);
// A campaign folder's summary.json, or null when it is missing or not JSON.
nlohmann::json CampaignSummary(const std::string& dir);
// A bucket as a campaign's summary counts it.
struct CampaignBucket {
  int64_t count;
  uint64_t first_seed;
  std::vector<uint64_t> examples;
  bool operator==(const CampaignBucket&) const = default;
};
std::map<std::string, CampaignBucket> CampaignBuckets(const nlohmann::json& summary);
// The buckets of shards' summaries merged as `mmdiff triage` merges them: counts add up, the first
// seed and the (at most five) example seeds are the smallest of all. `cases`: their cases, summed.
std::map<std::string, CampaignBucket> MergedShardBuckets(const std::vector<std::string>& dirs,
                                                         int64_t* cases);
std::string WorkerBinary();
// Options for a Supervisor of the real worker (no test paths) with its stderr in `log`.
SupervisorOptions WorkerOptions(const std::string& log);
// For LegalMm() run on {reference, eager, PATH} with an exact recipe: PATH returns eager's
// float32[5, 3] bit for bit, the case does not diverge, and PATH compiled for the first input and
// reused its compiled program after.
void ExpectCompiledPathMatchesEager(const std::vector<PathResult>& res, const Program& p,
                                    const InputRecipe& r, bool first_input);
std::string VenvPython();
// The status column of an entry's row in `mmdiff replay`'s table ("(no row)" when it has none).
std::string ReplayStatusOf(const std::string& output, const std::string& entry);
// fp16 @ fp32 matmul of rank 4, the seed bug's program.
Program SeedBugProgram();
// A small legal float32 mm.
Program LegalMm();
// The JSON in file `path`; a discarded (is_discarded()) or null value when it cannot be read or
// parsed.
nlohmann::json ReadJson(const std::string& path);

}  // namespace mmdiff::e2e
