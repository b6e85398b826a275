#include "src/ir/paths.h"

#include <algorithm>

namespace mmdiff {

namespace {

std::vector<PathRow> MakeCatalogue() {
  using K = PathKind;
  const PathTraits compiled{.compiled = true, .needs_gpu = true, .keeps_state = true};
  const PathTraits variant{
      .compiled = true, .on_demand = true, .variant = true, .needs_gpu = true, .keeps_state = true};
  PathTraits test_variant = variant;
  test_variant.test_only = true;
  // A knob variant of inductor: the knob that names it, every setting it compiles under (the
  // knob's own, True, first), whether it runs under torch.no_grad() (then no training program).
  auto knob = [&](const char* name, const char* k, const char* description, bool mitigation,
                  std::vector<KnobSetting> more = {}, bool no_grad = false) {
    std::vector<KnobSetting> settings;
    if (std::string_view(k) != "dynamic") settings.push_back({k, "True"});
    settings.insert(settings.end(), more.begin(), more.end());
    PathRow row{.name = name,
                .kind = K::kTorchCompile,
                .traits = variant,
                .torch_backend = paths::kInductor,
                .variant_of = paths::kInductor,
                .knob = k,
                .settings = settings,
                .no_grad = no_grad,
                .mitigation = mitigation,
                .repro = ReproKind::kTorchCompile,
                .release_runner = true,
                .description = description};
    if (no_grad)
      row.limits.inference_only =
          "this variant compiles for inference, under torch.no_grad(): the program's inputs "
          "require grad";
    return row;
  };
  std::vector<PathRow> rows = {
      {.name = paths::kReference,
       .kind = K::kReference,
       .traits = {},
       .description = "mmdiff's own kernels (kernels/), with a rounding bound per element"},
      {.name = paths::kReferenceFloat64,
       .kind = K::kReference,
       .traits = {.on_demand = true},
       .description = "the program's math in float64, for PyTorch's accuracy rule"},
      {.name = paths::kEager,
       .kind = K::kEager,
       .traits = {.needs_gpu = true},
       .release_runner = true,
       .description = "LibTorch eager: the baseline every other path is compared with"},
      {.name = paths::kEagerMeta,
       .kind = K::kEagerMeta,
       .traits = {},
       .release_runner = true,
       .limits = {.cpu_only = "eager_meta runs cpu programs only",
                  .no_autocast = "eager_meta cannot run autocast: meta tensors have no autocast"},
       .description = "eager on meta tensors: a cpu program through torch's meta registrations"},
      {.name = paths::kInductor,
       .kind = K::kTorchCompile,
       .traits = compiled,
       .torch_backend = "inductor",
       .ablation_rung = 3,
       .repro = ReproKind::kTorchCompile,
       .release_runner = true,
       .description = "torch.compile(backend=\"inductor\")"},
      {.name = paths::kAotEager,
       .kind = K::kTorchCompile,
       .traits = compiled,
       .torch_backend = "aot_eager",
       .ablation_rung = 2,
       .repro = ReproKind::kTorchCompile,
       .release_runner = true,
       .description = "torch.compile(backend=\"aot_eager\"): + AOTAutograd"},
      {.name = paths::kCompileEager,
       .kind = K::kTorchCompile,
       .traits = compiled,
       .torch_backend = "eager",
       .ablation_rung = 1,
       .repro = ReproKind::kTorchCompile,
       .release_runner = true,
       .description = "torch.compile(backend=\"eager\"): Dynamo only"},
      {.name = paths::kTorchScript,
       .kind = K::kTorchScript,
       .traits = compiled,
       .repro = ReproKind::kTorchScript,
       .release_runner = true,
       .limits = {.no_autocast = "TorchScript compiled from C++ has no torch.autocast"},
       .description = "TorchScript: the program's TorchScript spelling compiled and run from C++"},
      // On demand: a compile takes tens of seconds.
      {.name = paths::kAoti,
       .kind = K::kAoti,
       .traits = {.compiled = true, .on_demand = true, .needs_gpu = true},
       .repro = ReproKind::kAoti,
       .release_runner = true,
       .limits = {.no_meta = "aoti compiles programs for cpu and cuda only",
                  .inference_only = "aoti runs inference only: the program's inputs require grad"},
       .description = "AOTInductor: torch.export, aoti_compile_and_package, aoti_load_package"},
      // Mitigations PyTorch asks about in accuracy reports, rerun for inductor's value findings.
      knob("inductor_emulate_precision_casts", "emulate_precision_casts",
           "inductor, emulate_precision_casts=True", true),
      knob("inductor_fallback_random", "fallback_random", "inductor, fallback_random=True", true),
      // How models are deployed on a CPU (PyTorch's inference recipe: eval, torch.no_grad(),
      // freezing, often max-autotune): the module's weights folded as constants, prepacked for
      // mkldnn/mkl and fused with their epilogues; max-autotune with only the C++ GEMM and BMM
      // templates as choices (a template bug cannot hide behind ATen winning the timing), which
      // take a product's second operand as a constant only when it is frozen.
      knob("inductor_freezing", "freezing", "inductor under torch.no_grad(), freezing=True", false,
           {}, true),
      // With the grouped GEMM template on: linears of one input and one weight size that freezing
      // packed for mkldnn (16-bit ones: a static float32 linear goes to mkl) become one
      // CppGroupedGemmTemplate (a product alone is not affected).
      knob(paths::kInductorMaxAutotune, "max_autotune",
           "inductor under torch.no_grad(), freezing=True, max_autotune=True with only the C++ "
           "GEMM templates (max_autotune_gemm_backends='CPP'), linears sharing an input grouped "
           "(cpp.enable_grouped_gemm_template=True)",
           false,
           {{"max_autotune_gemm_backends", "'CPP'"},
            {"freezing", "True"},
            {"cpp.enable_grouped_gemm_template", "True"}},
           true),
      // Serving with a dynamic batch: a symbolic batch size makes freezing pack a float32 linear
      // for mkldnn (not mkl), whose fused post-ops (relu, sigmoid, tanh, swish, hardtanh, gelu,
      // a residual add) only float32 linears get, on every x86 CPU.
      knob(paths::kInductorFreezingDynamic, "dynamic",
           "inductor under torch.no_grad(), freezing=True, torch.compile(dynamic=True)", false,
           {{"freezing", "True"}}, true),
      // Freezing's passes that are off by default and on in CPU LLM recipes: linears sharing an
      // input concatenated into one (freezing_patterns.py), a constant scale or shift folded into a
      // linear's weights (binary_folding.py).
      knob(paths::kInductorFreezingOptIn, "cpp.enable_concat_linear",
           "inductor under torch.no_grad(), freezing=True with its opt-in passes: "
           "cpp.enable_concat_linear=True, enable_linear_binary_folding=True",
           false, {{"enable_linear_binary_folding", "True"}, {"freezing", "True"}}, true),
      knob("inductor_cpp_wrapper", "cpp_wrapper", "inductor, cpp_wrapper=True", false),
      // Symbolic sizes from the first call: another graph and other kernels (a compile option).
      knob("inductor_dynamic", "dynamic", "inductor, torch.compile(dynamic=True)", false),
  };
  // Test-only paths (a worker started with --test-paths): planted faults, a one-thread eager
  // control, crashers, and torch.compile with deliberately wrong backends.
  const PathTraits planted{.test_only = true, .needs_gpu = true};
  for (const char* p :
       {paths::kPlantedPromote, paths::kPlantedDropK, paths::kPlantedHalfAccumulate,
        paths::kPlantedWrongDtype, paths::kPlantedNanToNumber, paths::kPlantedInfTimesZero,
        paths::kPlantedSpreadNan, paths::kPlantedBiasTimesBeta, paths::kPlantedDropGradTerm,
        paths::kPlantedIgnoreAutocast, "planted_wide_intermediates", "eager_1thread"})
    rows.push_back({.name = p,
                    .kind = K::kTest,
                    .traits = planted,
                    .description = "test only: eager with a planted fault (or one thread)"});
  for (const char* c : {"crash_segv", "crash_abort", "crash_sigkill", "oom", "hang"})
    rows.push_back({.name = c,
                    .kind = K::kTest,
                    .traits = {.test_only = true},
                    .description = "test only: a worker that dies or hangs"});
  for (const auto& [p, backend] : {std::pair{"planted_recompile", "mmdiff_planted_recompile"},
                                   std::pair{"planted_worker_only", "mmdiff_planted_worker_only"}})
    rows.push_back(
        {.name = p,
         .kind = K::kTest,
         .traits = {.compiled = true, .test_only = true, .needs_gpu = true, .keeps_state = true},
         .torch_backend = backend,
         .repro = ReproKind::kTorchCompile,
         .description = "test only: torch.compile with a deliberately wrong backend"});
  // A test-only knob variant of aot_eager, which computes what eager does: the self-test's control
  // that the variants' machinery (no_grad, settings, dynamic sizes, models) raises no false alarm.
  rows.push_back(
      {.name = paths::kAotEagerDeploy,
       .kind = K::kTest,
       .traits = test_variant,
       .torch_backend = paths::kAotEager,
       .variant_of = paths::kAotEager,
       .knob = "dynamic",
       .settings = {{"freezing", "True"}},
       .no_grad = true,
       .repro = ReproKind::kTorchCompile,
       .limits = {.inference_only = "aot_eager_deploy compiles for inference, under "
                                    "torch.no_grad(): the program's inputs require grad"},
       .description = "test only: aot_eager under torch.no_grad(), dynamic=True, "
                      "freezing=True (a control)"});
  // A test-only knob variant of inductor whose backend is deliberately wrong: a finding that only
  // a variant has, which must be headed by that variant and not by inductor.
  rows.push_back({.name = "planted_variant_drop_bias",
                  .kind = K::kTest,
                  .traits = test_variant,
                  .torch_backend = "mmdiff_planted_drop_bias",
                  .variant_of = paths::kInductor,
                  .knob = "planted_drop_bias",
                  .repro = ReproKind::kTorchCompile,
                  .description = "test only: inductor that drops every linear's bias (a lost "
                                 "fused epilogue)"});
  // The same with dynamic=True: a variant that builds on it (VariantBuildsOn), whose finding the
  // ablation shows on planted_variant_drop_bias too, so its root cause is that one's.
  rows.push_back(
      {.name = "planted_variant_drop_bias_dynamic",
       .kind = K::kTest,
       .traits = test_variant,
       .torch_backend = "mmdiff_planted_drop_bias",
       .variant_of = paths::kInductor,
       .knob = "dynamic",
       .repro = ReproKind::kTorchCompile,
       .description = "test only: planted_variant_drop_bias, torch.compile(dynamic=True)"});
  return rows;
}

}  // namespace

const std::vector<PathRow>& PathCatalogue() {
  static const std::vector<PathRow> kRows = MakeCatalogue();
  return kRows;
}

const PathRow* FindPath(std::string_view name) {
  for (const PathRow& r : PathCatalogue())
    if (name == r.name) return &r;
  return nullptr;
}

std::vector<const PathRow*> AblationRungs() {
  std::vector<const PathRow*> out;
  for (const PathRow& r : PathCatalogue())
    if (r.ablation_rung > 0) out.push_back(&r);
  std::sort(out.begin(), out.end(),
            [](const PathRow* a, const PathRow* b) { return a->ablation_rung < b->ablation_rung; });
  return out;
}

int LadderRank(std::string_view path) {
  const PathRow* row = FindPath(path);
  return row ? row->ablation_rung - 1 : -1;
}

std::vector<const PathRow*> VariantsOf(std::string_view path) {
  std::vector<const PathRow*> out;
  for (const PathRow& r : PathCatalogue())
    if (path == r.variant_of) out.push_back(&r);
  return out;
}

bool VariantBuildsOn(const PathRow& v, const PathRow& base) {
  auto dynamic = [](const PathRow& r) { return std::string_view(r.knob) == "dynamic"; };
  if (&v == &base || v.variant_of[0] == '\0' || std::string_view(v.variant_of) != base.variant_of ||
      std::string_view(v.torch_backend) != base.torch_backend)
    return false;
  for (const KnobSetting& s : base.settings)
    if (std::find(v.settings.begin(), v.settings.end(), s) == v.settings.end()) return false;
  const size_t v_knobs = v.settings.size() + dynamic(v) + v.no_grad;
  const size_t base_knobs = base.settings.size() + dynamic(base) + base.no_grad;
  return (!dynamic(base) || dynamic(v)) && (!base.no_grad || v.no_grad) && base_knobs < v_knobs;
}

std::string VariantSpelling(const PathRow& row) {
  std::string out;
  for (const KnobSetting& k : row.settings)
    out += (out.empty() ? "" : "; ") + std::string("torch._inductor.config.") + k.name + " = " +
           k.value;
  if (std::string_view(row.knob) == "dynamic")
    out += (out.empty() ? "" : "; ") + std::string("torch.compile(dynamic=True)");
  if (row.no_grad) out += (out.empty() ? "" : "; ") + std::string("under torch.no_grad()");
  return out;
}

}  // namespace mmdiff
