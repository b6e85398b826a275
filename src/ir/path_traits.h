// What a path is and why a path did not run a program, as typed data: a worker publishes each of
// its paths' traits in its hello (Backend::traits in src/exec/backend.h) and says in a result why
// a path was unsupported, so that no one has to recognise paths by name or reasons by message text.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "src/support/status.h"

namespace mmdiff {

struct PathTraits {
  // Compiles the program (torch.compile's backends, torchscript, aoti, Inductor's knob variants):
  // the paths a compiler bug report is about.
  bool compiled = false;
  // Left out of the default path set (run only when named): variants, and paths too slow to run
  // on every case (aoti compiles a shared library per program).
  bool on_demand = false;
  // A variant of another path (a knob setting), run on demand, e.g. to check a mitigation.
  bool variant = false;
  // Planted faults and crashers: only in a worker started with --test-paths.
  bool test_only = false;
  // Runs a cuda program only where there is a GPU, and is unsupported (reason kNoGpu) elsewhere;
  // the reference computes a cuda program on the CPU when there is none.
  bool needs_gpu = false;
  // Keeps what it compiled for a program's function from one call to the next (torch.compile's
  // paths: Dynamo's guards and recompiles; TorchScript's graph executor: its profiling runs), so
  // the calls before a case's can change what the case's call does (src/ir/call_sequence.h). A
  // request marked fresh makes it forget. (aoti compiles a package per program and input shapes:
  // nothing carries over.)
  bool keeps_state = false;

  // On demand for its cost, not as a variant: run on a sample of the cases only.
  bool slow() const { return on_demand && !variant; }
  bool operator==(const PathTraits&) const = default;
};

// {"compiled": b, "on_demand": b, "variant": b, "test_only": b, "needs_gpu": b, "keeps_state": b}.
nlohmann::json PathTraitsToJson(const PathTraits& t);
// Every trait, each a boolean, and nothing else: otherwise an error naming the trait.
Result<PathTraits> PathTraitsFromJson(const nlohmann::json& j);

// Why a path's result is unsupported (OutcomeKind::kUnsupported).
enum class UnsupportedReason {
  kNone,         // not unsupported, or not recorded (reports keep only the message)
  kNoGpu,        // the program uses cuda and this machine has no GPU
  kDevice,       // the path does not run programs on the devices this one uses (eager_meta, aoti)
  kUnavailable,  // the path cannot run here (no Python, no TorchScript, no C++ compiler, ...)
  kUnknownPath,  // the worker has no path of that name
  kRejected,     // the worker rejected the program or its inputs
  kTraining,     // the path runs no backward (aoti: inference only), and the program trains
  kAutocast,     // the path cannot run an autocast region (TorchScript compiled from C++ has no
                 // torch.autocast; meta tensors have no autocast), and the program has one
  kKnob,  // a knob variant's settings leave no way to compile the program (max-autotune with only
          // the C++ GEMM templates, for a product no template takes)
  // the worker failed, not the path: its reply was damaged or no answer to the request, or it
  // could not start, again after a restart (src/exec/supervisor.h); never judged
  kWorkerFault,
};
// "none", "no_gpu", "device", "unavailable", "unknown_path", "rejected", "training", "autocast",
// "knob", "worker_fault".
std::string_view UnsupportedReasonName(UnsupportedReason r);
// The reason a name names; an error for any other text.
Result<UnsupportedReason> ParseUnsupportedReason(std::string_view name);

}  // namespace mmdiff
