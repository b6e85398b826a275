// Running a case in another torch release: the reference from this build, every Python path
// through a generated runner (src/ir/release_runner.h) in that release's venv, as a PathRunner that
// JudgeRun takes (src/report/run_case.h).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "src/exec/path_info.h"
#include "src/ir/call_sequence.h"
#include "src/ir/input_recipe.h"
#include "src/ir/outcome.h"
#include "src/ir/program.h"
#include "src/releases/release_venvs.h"

namespace mmdiff {

struct ReleaseRunSettings {
  std::string work_dir;         // private: scripts, outputs, logs and Inductor's cache go here
  double timeout_s = 300;       // per runner process
  bool has_gpu = false;         // whether cuda programs can run here
  std::vector<PathInfo> paths;  // this build's paths, for their traits
};

// Why mmdiff's path of this name would not run the program here, as that path says it (device,
// autocast, training, a GPU), or that the runner has no such path; nullopt when the runner runs it.
std::optional<PathResult> NotRunnableInRelease(const Program& p, const std::string& path,
                                               bool has_gpu);

// Runs cases in one release. Not shared between threads.
class ReleaseRunner {
 public:
  // The result of "reference" or "reference_float64" (oracles/accuracy.h), named by `path`.
  using ReferenceFn =
      std::function<PathResult(const Program&, const InputRecipe&, const std::string& path)>;
  // `before`: the case's calls before (src/ir/call_sequence.h), which each runner process makes
  // first on the paths that keep state.
  ReleaseRunner(ReleaseVenv venv, ReleaseRunSettings settings, ReferenceFn reference,
                std::string tag, std::vector<PriorCall> before = {});

  // The results of `paths` in order: "reference" and "reference_float64" from this build, the
  // others from the runner or NotRunnableInRelease. A path the runner died in is a crash, one it
  // ran past the time limit on a timeout; the paths after it are unsupported. When the runner could
  // not run the case at all (its inputs cannot be built there, Python failed, its output is
  // unreadable), or the release lacks what one of its paths needs (e.g. no AOTInductor packages),
  // failure() says why. (A PathRunner: every run is a fresh Python process, which makes the calls
  // before itself, so `fresh` changes nothing.)
  std::vector<PathResult> operator()(const Program& p, const InputRecipe& r,
                                     const std::vector<std::string>& paths, bool fresh = true);

  const std::string& failure() const { return failure_; }
  // torch.__version__ as the runner printed it; the set-up release until one ran.
  const std::string& torch() const { return torch_; }

 private:
  ReleaseVenv venv_;
  ReleaseRunSettings settings_;
  ReferenceFn reference_;
  std::string tag_;
  std::vector<PriorCall> before_;
  int runs_ = 0;
  std::string failure_, torch_;
};

}  // namespace mmdiff
