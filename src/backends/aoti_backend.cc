// AOTInductor backend: Python exports and packages, C++ loads and runs.
#include "src/backends/aoti_backend.h"

#include <torch/csrc/inductor/aoti_package/model_package_loader.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "src/backends/aoti_export.h"
#include "src/backends/aoti_package_dir.h"
#include "src/backends/artifact_cache.h"
#include "src/backends/aten_program.h"
#include "src/backends/embedded_python.h"
#include "src/ir/paths.h"
#include "src/ir/program_json.h"
#include "src/ir/python_emitter.h"

namespace mmdiff {

namespace {

// "" when the program touches no meta tensor; otherwise where it does.
std::string MetaUse(const Program& p) {
  for (const auto& in : p.inputs)
    if (in.device == Device::kMeta) return "input " + in.name + " is on meta";
  for (const auto& n : p.nodes)
    if (n.op == OpKind::kToDevice && n.device == Device::kMeta)
      return "node " + n.name + " moves to meta";
  return "";
}

bool OnPath(const std::string& exe) {
  if (exe.find('/') != std::string::npos) return access(exe.c_str(), X_OK) == 0;
  std::stringstream path(std::getenv("PATH") ? std::getenv("PATH") : "");
  for (std::string dir; std::getline(path, dir, ':');)
    if (!dir.empty() && access((dir + "/" + exe).c_str(), X_OK) == 0) return true;
  return false;
}

// A loaded package, or the error exporting, compiling or loading gave (not retried for the same
// program: it depends only on what the cache key holds).
struct Loaded {
  std::unique_ptr<torch::inductor::AOTIModelPackageLoader> loader;
  PathResult failure;
};

class AotiBackend : public Backend {
 public:
  std::string name() const override { return paths::kAoti; }
  PathTraits traits() const override { return FindPath(paths::kAoti)->traits; }
  std::string Unavailable() const override {
    if (std::string why = PythonMissing(); !why.empty()) return why;
    const char* cxx = std::getenv("CXX") && *std::getenv("CXX") ? std::getenv("CXX")
                                                                : "g++";  // Inductor's choice
    if (!OnPath(cxx))
      return std::string("AOTInductor needs a C++ compiler: ") + cxx +
             " is not found (set CXX or install g++)";
    return "";
  }

  PathResult Run(const Program& p, const InputRecipe& recipe, StageReporter& stages) override {
    if (std::string meta = MetaUse(p); !meta.empty())
      return UnsupportedResult(UnsupportedReason::kDevice,
                               std::string(FindPath(paths::kAoti)->limits.no_meta) + ": " + meta);
    // AOTInductor exports and runs a forward graph under torch.no_grad() (its documented use):
    // there is no backward to compare.
    if (Trains(p))
      return UnsupportedResult(UnsupportedReason::kTraining,
                               FindPath(paths::kAoti)->limits.inference_only);
    PathResult res;
    std::vector<at::Tensor> inputs;
    if (!StartPythonPath(p, recipe, stages, inputs, res)) return res;
    // The package is specialised to the inputs' shapes, dtypes, layouts and devices: all in the
    // JSON; it holds the weights of a program with weights as constants, so their values too.
    std::string key = ProgramToJson(p).dump();
    if (HasWeights(p)) key += "|" + RecipeToJson(WeightRecipe(recipe)).dump();
    auto* entry = cache_.Use(key);
    if (!entry) entry = &cache_.Add(key, Build(p, inputs, stages));
    if (!entry->artifact.loader) {
      PathResult failure = entry->artifact.failure;
      if (failure.kind == OutcomeKind::kError) failure.compile = CompileInfoFor(entry->runs);
      return failure;
    }
    res.compile = CompileInfoFor(entry->runs);
    // The package takes the forward's inputs: the weights are its constants.
    std::vector<at::Tensor> forward;
    for (size_t i : ForwardInputs(p)) forward.push_back(inputs[i]);
    RunOutputsStage(res, stages, "aoti-run", [&] { return entry->artifact.loader->run(forward); });
    if (res.kind == OutcomeKind::kError) res.stage = "aoti-run";
    return res;
  }

 private:
  Loaded Build(const Program& p, const std::vector<at::Tensor>& inputs, StageReporter& stages) {
    Loaded l;
    Result<std::string> path = dir_.NextPackagePath();
    if (!path.ok()) {
      l.failure = UnsupportedResult(UnsupportedReason::kUnavailable, path.error());
      return l;
    }
    // An error names the step that raised it (PathResult::stage), so that a reproducer knows the
    // finding is that f could not be exported, compiled or loaded.
    if (std::string failed = ExportAndPackage(EmitFunction(p, "f") + "\n\n" + EmitModule(p), inputs,
                                              path.value(), stages, l.failure);
        !failed.empty()) {
      l.failure.stage = failed;
      return l;
    }
    try {
      stages.Stage("aoti-load");
      l.loader = std::make_unique<torch::inductor::AOTIModelPackageLoader>(path.value());
    } catch (...) {
      RecordCurrentException(l.failure);
      l.failure.stage = "aoti-load";
    }
    std::error_code ec;
    std::filesystem::remove(path.value(), ec);  // the loader has extracted what it runs
    return l;
  }

  AotiPackageDir dir_;
  ArtifactCache<Loaded> cache_{4};
};

}  // namespace

std::unique_ptr<Backend> MakeAotiBackend() { return std::make_unique<AotiBackend>(); }

}  // namespace mmdiff
