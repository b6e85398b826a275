// The torch releases this machine can run findings in: the venvs scripts/setup creates in its cache
// (venv-torch-<version>-py<python>/, complete once it holds .mmdiff-complete), one per release, and
// their set-up through that script.
#pragma once

#include <string>
#include <vector>

#include "src/support/status.h"
#include "src/support/torch_version.h"

namespace mmdiff {

struct ReleaseVenv {
  std::string torch;   // the release as set up, e.g. "2.11.0"
  std::string python;  // the venv's interpreter
};

// scripts/setup's cache: $MMDIFF_CACHE, else $XDG_CACHE_HOME/mmdiff, else $HOME/.cache/mmdiff.
std::string VenvCacheDir();

// <0, 0, >0 as release a is older, the same or newer than b, number by number ("2.9.0" < "2.11.0");
// a suffix ("+cu130") is ignored, a missing number counts as 0, and text that is not a version
// (ParseTorchVersion) counts as 0.0.0.
int CompareTorchVersions(const std::string& a, const std::string& b);

// "3.11.2" -> "3.11": the Python a venv must have for its torch to match this build's worker.
std::string PythonMajorMinor(const std::string& version);

// The venv of `torch` for Python `python_mm` in `cache`, if it is complete; else an error saying
// so and how to create it.
Result<ReleaseVenv> FindReleaseVenv(const std::string& cache, const std::string& torch,
                                    const std::string& python_mm);

// Every complete venv in `cache` for Python `python_mm`, newest release first.
std::vector<ReleaseVenv> FindReleaseVenvs(const std::string& cache, const std::string& python_mm);

// Creates the venv of release `torch` in the cache: `MMDIFF_TORCH=<torch> bash <setup_script>
// --venv-only` (scripts/setup of a source tree), its output on our stderr. An error when the script
// is not there, cannot run or fails.
Status SetUpReleaseVenv(const std::string& setup_script, const std::string& torch);

// The venvs of the `wanted` releases (each once, newest first), or with none wanted every complete
// one in `cache`. A wanted release without a venv is set up first with `setup_script` ("": it is
// an error saying how to create it); none at all is an error saying the same.
Result<std::vector<ReleaseVenv>> ResolveReleaseVenvs(const std::string& cache,
                                                     const std::string& python_mm,
                                                     const std::vector<std::string>& wanted,
                                                     const std::string& setup_script = "");

}  // namespace mmdiff
