// Where a worker runs: torch writes debug files into the current folder (AOTAutograd's
// min_cut_failed_graph*.txt, core files, ...), so a worker never runs in the folder mmdiff was
// started in, and nothing it reads by a relative name depends on that folder.
#pragma once

#include <string>
#include <vector>

#include "src/support/status.h"

namespace mmdiff {

// The folder a worker runs in. `wanted` non-empty: that folder, made absolute and created if
// missing (kept afterwards). Empty: a fresh private folder under the temporary folder ($TMPDIR),
// which the WorkerFolder removes, with what the worker left there, when it is destroyed.
class WorkerFolder {
 public:
  WorkerFolder() = default;
  ~WorkerFolder();
  WorkerFolder(const WorkerFolder&) = delete;
  WorkerFolder& operator=(const WorkerFolder&) = delete;

  // Makes the folder on the first call; later calls return the same one.
  Result<std::string> Get(const std::string& wanted);

 private:
  std::string path_;
  bool owned_ = false;
};

// The supervisor's environment for a worker that runs in another folder: every variable in
// `kPathVariables` whose value is a relative path is made absolute against the current folder.
std::vector<std::string> WorkerEnvironment();

// The variables that name a file or folder the worker (or torch in it) reads or writes.
extern const char* const kPathVariables[];

}  // namespace mmdiff
