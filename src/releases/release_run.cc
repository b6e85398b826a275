// Running a case's Python paths in another release's venv.
#include "src/releases/release_run.h"

#include <algorithm>

#include "oracles/accuracy.h"
#include "oracles/judge.h"
#include "src/ir/autocast.h"
#include "src/ir/paths.h"
#include "src/ir/python_emitter.h"
#include "src/ir/release_runner.h"
#include "src/releases/runner_output.h"
#include "src/support/files.h"
#include "src/support/subprocess.h"
#include "src/support/utf8.h"

namespace mmdiff {

namespace {

PathResult Unsupported(const std::string& path, UnsupportedReason why, const std::string& message) {
  PathResult r;
  r.path = path;
  r.kind = OutcomeKind::kUnsupported;
  r.unsupported = why;
  r.message = message;
  return r;
}

bool UsesDevice(const Program& p, Device d) {
  for (const auto& in : p.inputs)
    if (in.device == d) return true;
  for (const auto& n : p.nodes)
    if (n.op == OpKind::kToDevice && n.device == d) return true;
  return false;
}

// The last line the runner printed that says something, for a "cannot run" reason.
std::string LastLogLine(const std::string& log) {
  auto text = ReadFile(log, 1 << 20);
  if (!text.ok()) return "";
  std::string s = text.value();
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  size_t nl = s.rfind('\n');
  std::string line = nl == std::string::npos ? s : s.substr(nl + 1);
  return TerminalLine(line.size() > 300 ? line.substr(0, 300) + "..." : line);
}

}  // namespace

std::optional<PathResult> NotRunnableInRelease(const Program& p, const std::string& path,
                                               bool has_gpu) {
  if (path == kReferencePath || path == kReferenceFloat64Path) return std::nullopt;
  if (!ReleaseRunnerRuns(path)) {
    std::string runs;
    for (const PathRow& row : PathCatalogue())
      if (row.release_runner) runs += (runs.empty() ? "" : ", ") + std::string(row.name);
    return Unsupported(path, UnsupportedReason::kUnavailable,
                       path +
                           " is not run in other releases: mmdiff releases runs the reference "
                           "and the Python paths (" +
                           runs + ")");
  }
  if (UsesDevice(p, Device::kCuda) && !has_gpu)
    return Unsupported(path, UnsupportedReason::kNoGpu,
                       "program uses cuda and this machine has no GPU");
  const PathLimits& limits = FindPath(path)->limits;
  if (*limits.cpu_only && (UsesDevice(p, Device::kCuda) || UsesDevice(p, Device::kMeta)))
    return Unsupported(path, UnsupportedReason::kDevice,
                       std::string(limits.cpu_only) + ": the program uses another device");
  if (*limits.no_meta && UsesDevice(p, Device::kMeta))
    return Unsupported(path, UnsupportedReason::kDevice, limits.no_meta);
  if (*limits.inference_only && Trains(p))
    return Unsupported(path, UnsupportedReason::kTraining, limits.inference_only);
  if (*limits.no_autocast && UsesAutocast(p))
    return Unsupported(path, UnsupportedReason::kAutocast, limits.no_autocast);
  return std::nullopt;
}

ReleaseRunner::ReleaseRunner(ReleaseVenv venv, ReleaseRunSettings settings, ReferenceFn reference,
                             std::string tag, std::vector<PriorCall> before)
    : venv_(std::move(venv)),
      settings_(std::move(settings)),
      reference_(std::move(reference)),
      tag_(std::move(tag)),
      before_(std::move(before)),
      torch_(venv_.torch) {}

std::vector<PathResult> ReleaseRunner::operator()(const Program& p, const InputRecipe& r,
                                                  const std::vector<std::string>& paths, bool) {
  std::vector<PathResult> results(paths.size());
  std::vector<std::string> runner_paths;
  std::vector<size_t> runner_slots;
  for (size_t i = 0; i < paths.size(); ++i) {
    if (paths[i] == kReferencePath || paths[i] == kReferenceFloat64Path) {
      results[i] = reference_(p, r, paths[i]);
    } else if (auto no = NotRunnableInRelease(p, paths[i], settings_.has_gpu)) {
      results[i] = std::move(*no);
    } else {
      runner_paths.push_back(paths[i]);
      runner_slots.push_back(i);
    }
  }
  if (!runner_paths.empty()) {
    const std::string base =
        settings_.work_dir + "/" + tag_ + "-" + venv_.torch + "-" + std::to_string(++runs_);
    const std::string script = base + ".py", out = base + ".jsonl", log = base + ".log";
    if (Status s = WriteFileAtomic(script, EmitReleaseRunner(p, r, runner_paths, before_));
        !s.ok()) {
      failure_ = s.message();
      return results;
    }
    ProcessOptions o;
    o.argv = {venv_.python, script, out};
    o.env = {"TORCHINDUCTOR_COMPILE_THREADS=1", "PYTHONDONTWRITEBYTECODE=1",
             "TORCHINDUCTOR_CACHE_DIR=" + settings_.work_dir + "/inductor-" + venv_.torch,
             "TRITON_CACHE_DIR=" + settings_.work_dir + "/triton-" + venv_.torch};
    o.output = log;
    o.cwd = settings_.work_dir;
    o.timeout_s = settings_.timeout_s;
    ProcessResult pr = RunProcess(o);
    if (!pr.started) {
      failure_ = "cannot start " + venv_.python + ": " + pr.error;
      return results;
    }
    auto text = ReadFile(out, size_t{1} << 30);
    Result<RunnerOutput> parsed = text.ok() ? ParseRunnerOutput(text.value(), runner_paths)
                                            : Result<RunnerOutput>(text.status());
    const bool died = pr.timed_out || pr.signal != 0;
    if (pr.exit_code == kReproFailedExitCode) {
      failure_ =
          "the case's inputs cannot be built in torch " + venv_.torch + ": " + LastLogLine(log);
    } else if (!died && pr.exit_code != 0) {
      failure_ = "the runner failed in torch " + venv_.torch + " (exit " +
                 std::to_string(pr.exit_code) + "): " + LastLogLine(log);
    } else if (died && !parsed.ok()) {  // before it ran a path: torch itself, not a finding
      failure_ =
          "the runner " +
          (pr.timed_out ? "ran past " + std::to_string(static_cast<int>(settings_.timeout_s)) + " s"
                        : "died of signal " + std::to_string(pr.signal)) +
          " in torch " + venv_.torch + " before it ran a path: " + LastLogLine(log);
    } else if (!parsed.ok()) {
      failure_ = "the runner's output is unreadable: " + parsed.status().message();
    } else if (!died && parsed.value().results.size() < runner_paths.size()) {
      failure_ = "the runner ended without the result of " +
                 runner_paths[parsed.value().results.size()] + ": " + LastLogLine(log);
    }
    if (!failure_.empty()) return results;
    torch_ = parsed.value().torch;
    std::vector<PathResult>& got = parsed.value().results;
    for (size_t k = 0; k < runner_paths.size(); ++k) {
      PathResult& slot = results[runner_slots[k]];
      if (k < got.size()) {
        // A path this release cannot run (it lacks the API): nothing to compare it with.
        if (got[k].kind == OutcomeKind::kUnsupported && failure_.empty())
          failure_ = runner_paths[k] + " cannot run in torch " + torch_ + ": " + got[k].message;
        slot = std::move(got[k]);
      } else if (k == got.size() && pr.timed_out) {
        slot.path = runner_paths[k];
        slot.kind = OutcomeKind::kTimeout;
        slot.message = "ran past " + std::to_string(static_cast<int>(settings_.timeout_s)) +
                       " s in torch " + torch_;
        slot.stage = "run";
      } else if (k == got.size() && pr.signal != 0) {
        slot.path = runner_paths[k];
        slot.kind = OutcomeKind::kCrash;
        slot.signal = pr.signal;
        slot.message = "the runner died of signal " + std::to_string(pr.signal) + " in torch " +
                       torch_ + ": " + LastLogLine(log);
        slot.stage = "run";
      } else {
        slot = Unsupported(runner_paths[k], UnsupportedReason::kUnavailable,
                           "not run: the runner ended at " + runner_paths[got.size()]);
      }
    }
  }
  for (auto& res : results) {
    auto it = std::find_if(settings_.paths.begin(), settings_.paths.end(),
                           [&](const PathInfo& i) { return i.name == res.path; });
    if (it != settings_.paths.end()) res.traits = it->traits;
  }
  return results;
}

}  // namespace mmdiff
