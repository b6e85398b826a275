// The path catalogue: one row per path mmdiff's worker can run, with everything the rest of mmdiff
// knows about it (its traits, torch.compile backend, rung of the ablation ladder, the path it is a
// knob variant of, how repro.py compiles it, whether the release runner runs it, what it is), and
// the named constants that spell the main paths. Adding a path is a row here and a Backend in
// src/backends (docs/architecture.md, "Adding a path").
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "src/ir/path_traits.h"

namespace mmdiff {

namespace paths {
inline constexpr const char* kReference = "reference";
inline constexpr const char* kReferenceFloat64 = "reference_float64";
inline constexpr const char* kEager = "eager";
inline constexpr const char* kEagerMeta = "eager_meta";
inline constexpr const char* kInductor = "inductor";
inline constexpr const char* kAotEager = "aot_eager";
inline constexpr const char* kCompileEager = "compile_eager";
inline constexpr const char* kTorchScript = "torchscript";
inline constexpr const char* kAoti = "aoti";
// Knob variants of inductor that the generator's deployment targets draw
// (src/gen/deployment_targets.h).
inline constexpr const char* kInductorMaxAutotune = "inductor_max_autotune";
inline constexpr const char* kInductorFreezingDynamic = "inductor_freezing_dynamic";
inline constexpr const char* kInductorFreezingOptIn = "inductor_freezing_opt_in";
// aot_eager compiled as a knob variant is: under torch.no_grad(), dynamic=True, with a config
// setting patched, a model built of its weights; the self-test's control for that machinery.
inline constexpr const char* kAotEagerDeploy = "aot_eager_deploy";
// Eager on one thread: the self-test's control for what the thread count changes.
inline constexpr const char* kEagerOneThread = "eager_1thread";
// The test path a default list with --test-paths includes: the deliberately wrong path that
// promotes mismatched dtypes, to see a finding end to end.
inline constexpr const char* kPlantedPromote = "planted_promote";
// The planted faults the self-test must catch and blame (src/campaign/selftest.cc), each a
// test-only path that is wrong in one known way.
inline constexpr const char* kPlantedDropK = "planted_drop_k";
inline constexpr const char* kPlantedHalfAccumulate = "planted_half_accumulate";
inline constexpr const char* kPlantedWrongDtype = "planted_wrong_dtype";
inline constexpr const char* kPlantedNanToNumber = "planted_nan_to_number";
inline constexpr const char* kPlantedInfTimesZero = "planted_inf_times_zero";
inline constexpr const char* kPlantedSpreadNan = "planted_spread_nan";
inline constexpr const char* kPlantedBiasTimesBeta = "planted_bias_times_beta";
inline constexpr const char* kPlantedDropGradTerm = "planted_drop_grad_term";
inline constexpr const char* kPlantedIgnoreAutocast = "planted_ignore_autocast";
}  // namespace paths

// Which Backend runs a path (src/backends/registry.cc builds each from its row).
enum class PathKind {
  kReference,     // mmdiff's kernels (kernels/); float64 for reference_float64
  kEager,         // LibTorch eager
  kEagerMeta,     // eager on meta tensors
  kTorchCompile,  // torch.compile(f, backend=torch_backend), with `knob` for a variant
  kTorchScript,   // TorchScript compiled from C++
  kAoti,          // AOTInductor: torch.export, compile and load a package
  kTest,          // planted faults, crashers and controls: src/backends/test_backends.cc
};

// How repro.py compiles f for a path: not at all (it compares eager with the contract), with
// torch.compile(backend=torch_backend), TorchScript, or AOTInductor.
enum class ReproKind { kNone, kTorchCompile, kTorchScript, kAoti };

// What a path cannot run, each with the reason its result gives ("" where it can): its backend
// checks the same in the worker, and `mmdiff releases` reads it here for another release.
struct PathLimits {
  const char* cpu_only = "";        // a program with a cuda or meta value
  const char* no_meta = "";         // a program with a meta value
  const char* inference_only = "";  // a program whose inputs require grad
  const char* no_autocast = "";     // a program with an autocast region
};

// One torch._inductor.config setting a knob variant compiles under: its name, and its value as a
// Python literal ("True", "'CPP'").
struct KnobSetting {
  const char* name;
  const char* value;
  bool operator==(const KnobSetting&) const = default;
};

struct PathRow {
  const char* name;
  PathKind kind;
  PathTraits traits;
  // torch.compile's backend= ("inductor", "aot_eager", "eager"; the planted compiled paths'
  // registered backends), "" for a path that is not torch.compile.
  const char* torch_backend = "";
  // The rung of torch.compile's ablation ladder, Dynamo alone (1) < + AOTAutograd (2) < Inductor
  // (3): the path at fault of a divergence is lowered to the lowest rung that shows it; 0 off it.
  int ablation_rung = 0;
  // A knob variant: the path it varies and the knob (a torch._inductor.config setting, or
  // "dynamic" for torch.compile(dynamic=True)).
  const char* variant_of = "";
  const char* knob = "";
  // Every torch._inductor.config setting in force while the variant compiles and runs (the knob's
  // own first), as repro.py writes them; empty for a path that is not a config variant.
  std::vector<KnobSetting> settings;
  // Compiles and runs under torch.no_grad(): inference, as PyTorch's CPU deployment recipe runs a
  // model (freezing applies only there). Such a path runs no training program (limits).
  bool no_grad = false;
  // Rerun with this variant for a value finding of the path it varies (PyTorch's accuracy-report
  // mitigations: src/campaign/mitigations.h).
  bool mitigation = false;
  ReproKind repro = ReproKind::kNone;
  // `mmdiff releases` runs it in another torch release (src/ir/release_runner.h).
  bool release_runner = false;
  PathLimits limits;
  // One line: what it runs (the ablation table's stage names for the ladder and the variants).
  const char* description = "";
};

// Every path, in the order the worker offers them; test-only ones last.
const std::vector<PathRow>& PathCatalogue();
// The row of a path, or nullptr for a name no path has.
const PathRow* FindPath(std::string_view name);
// The ablation ladder, lowest rung first: a divergence that already shows after Dynamo alone is
// Dynamo's, whatever the later stages do with it.
std::vector<const PathRow*> AblationRungs();
// The rank of `path` on the ladder, 0 for its lowest rung; -1 off it.
int LadderRank(std::string_view path);
// The knob variants of a path, in catalogue order.
std::vector<const PathRow*> VariantsOf(std::string_view path);
// True where variant `base` is variant `v` with fewer knobs: both vary one path with one backend,
// every setting of
// `base` is one of `v`'s, and `base` compiles with dynamic sizes, or under torch.no_grad(), only
// where `v` does (inductor_freezing builds on nothing; inductor_freezing_dynamic builds on it and
// on inductor_dynamic). A finding `v` shares with such a `base` is the base's knobs' fault.
bool VariantBuildsOn(const PathRow& v, const PathRow& base);
// A variant's settings as one line of Python: "torch._inductor.config.freezing = True; ..." (and
// "torch.compile(dynamic=True)" for the dynamic variant), under torch.no_grad() where it runs so.
std::string VariantSpelling(const PathRow& row);

}  // namespace mmdiff
