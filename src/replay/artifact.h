// Program-fuzzer artifacts in `mmdiff replay`: the inputs fuzz/program_fuzzer keeps (crash
// artifacts, corpus files), decoded exactly as the fuzzer decodes them (src/gen/fuzz_input.h), with
// the implicit expectation "this program diverges" on the paths the fuzzer ran, under any torch.
#pragma once

#include <string>
#include <vector>

#include "src/gen/policy.h"
#include "src/replay/replay.h"

namespace mmdiff {

// Whether a file's name is one libFuzzer gives an artifact (crash-, timeout-, oom-, leak-).
bool IsFuzzerArtifactName(const std::string& file);

struct ArtifactOptions {
  std::vector<std::string> paths;  // the paths an artifact runs on (the fuzzer's MMDIFF_FUZZ_PATHS)
  GenPolicy policy;                // the generator's policy for generator bytes (the fuzzer's)
};

// Reads and prepares one file for replay:
//  * JSON with "format": "mmdiff.regression": a regression entry (PrepareEntry);
//  * any other file named *.json: an artifact when it holds a case ({"program", "inputs"}: `mmdiff
//    gen --case` output, a report); else invalid (malformed JSON, or why it is not a case: bytes
//    that are neither an entry nor a case);
//  * any other file: an artifact, read as the program fuzzer reads its input: a case as JSON, else
//    generator choice bytes (any bytes are; the row's title says which it was).
// An artifact's row expects "diverge" (any divergence, torch "any"): replaying it is a match while
// it still diverges and fixed once the paths agree. Skipped when it needs cuda and there is no GPU.
PreparedEntry PrepareReplayFile(const std::string& file, const std::string& torch_version,
                                bool has_gpu, const ArtifactOptions& artifacts);

}  // namespace mmdiff
