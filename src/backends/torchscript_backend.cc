// TorchScript backend: torch::jit::compile on the TorchScript spelling of the program's function.
#include "src/backends/torchscript_backend.h"

#if __has_include(<torch/jit.h>) && __has_include(<torch/csrc/jit/frontend/error_report.h>)
#define MMDIFF_HAVE_TORCHSCRIPT 1
#include <torch/csrc/jit/frontend/error_report.h>
#include <torch/csrc/jit/runtime/graph_executor.h>
#include <torch/jit.h>
#endif

#include "src/backends/artifact_cache.h"
#include "src/backends/aten_program.h"
#include "src/backends/embedded_python.h"
#include "src/backends/torchscript_message.h"
#include "src/ir/autocast.h"
#include "src/ir/paths.h"
#include "src/ir/python_emitter.h"

namespace mmdiff {

namespace {

#ifdef MMDIFF_HAVE_TORCHSCRIPT

// Maps the exception in flight (call inside a catch block) to an error outcome. The class is
// RecordCurrentException's (c10 errors keep their Python class; a compile error, an ErrorReport,
// is the RuntimeError Python raises for it); the message is the operator's or compiler's own line.
void RecordTorchScriptError(PathResult& r) {
  std::string what;
  try {
    throw;
  } catch (const torch::jit::ErrorReport& e) {
    r.kind = OutcomeKind::kError;
    r.error_class = "RuntimeError";
    r.error_type = "torch::jit::ErrorReport";
    r.message = TorchScriptErrorLine(e.what());
    return;
  } catch (const c10::Error& e) {
    what = e.what_without_backtrace();
  } catch (const std::exception& e) {
    what = e.what();
  } catch (...) {
  }
  RecordCurrentException(r);
  if (std::string line = TorchScriptErrorLine(what); !line.empty()) r.message = line;
}

// Compiles and runs a 2x2 mm once; "" when TorchScript works here.
std::string Probe() {
  try {
    auto unit = torch::jit::compile("def f(x):\n    return (torch.mm(x, x),)\n");
    c10::IValue out = unit->get_function("f")({at::ones({2, 2})});
    double sum = out.toTupleRef().elements().at(0).toTensor().sum().item<double>();
    if (sum != 8)
      return "TorchScript computed a wrong 2x2 mm in its start-up probe (sum " +
             std::to_string(sum) + ")";
    return "";
  } catch (const std::exception& e) {
    return "TorchScript does not work in the installed LibTorch: " + TorchScriptErrorLine(e.what());
  }
}

// A compiled function, or the error compiling its source gave (so a rejected program is not
// compiled again either).
struct Compiled {
  std::shared_ptr<torch::jit::CompilationUnit> unit;
  PathResult failure;
  bool profiled = false;  // training: the graph executor's profiling runs are done
};

class TorchScriptBackend : public Backend {
 public:
  std::string name() const override { return paths::kTorchScript; }
  PathTraits traits() const override { return FindPath(paths::kTorchScript)->traits; }
  std::string Unavailable() const override {
    static const std::string why = Probe();
    return why;
  }

  // The graph executor's state (its profiling runs) is the compiled unit's: a fresh unit has none.
  void Forget() override { cache_.Clear(); }

  PathResult Run(const Program& p, const InputRecipe& recipe, StageReporter& stages) override {
    return RunSource(EmitFunction(p, "f", FunctionDialect::kTorchScript), p, recipe, stages);
  }

  PathResult RunSource(const std::string& source, const Program& p, const InputRecipe& recipe,
                       StageReporter& stages) {
    if (std::string why = Unavailable(); !why.empty())
      return UnsupportedResult(UnsupportedReason::kUnavailable, why);
    if (MissingGpu(p)) return NoGpuResult();
    // The native resolver of torch::jit::compile knows torch.<aten op> only, not torch.autocast.
    if (UsesAutocast(p))
      return UnsupportedResult(UnsupportedReason::kAutocast,
                               FindPath(paths::kTorchScript)->limits.no_autocast);
    // As for eager: meta kernels and decompositions torch registers from Python must be there.
    static const std::string python_problem = EnsurePython();
    PathResult res;
    std::vector<at::Tensor> inputs;
    if (!MakeInputsStage(p, recipe, stages, inputs, res)) return res;
    auto* entry = cache_.Use(source);
    if (!entry) {
      stages.Stage("torchscript-compile");
      Compiled c;
      try {
        c.unit = torch::jit::compile(source);
      } catch (...) {
        RecordTorchScriptError(c.failure);
      }
      entry = &cache_.Add(source, std::move(c));
    }
    if (!entry->artifact.unit) {
      PathResult failure = entry->artifact.failure;
      failure.compile = CompileInfoFor(entry->runs);
      return failure;
    }
    res.compile = CompileInfoFor(entry->runs);
    // Training: the graph executor profiles a function's first getNumProfiledRuns() runs, then runs
    // an optimized graph whose differentiable parts have TorchScript's own backward (its autodiff).
    // A campaign runs all of a program's inputs through one unit, so all but the first would meet
    // the optimized graph: the profiling runs come first, so that every judged run (and a single
    // `mmdiff run`) meets the same graph.
    if (Trains(p) && !entry->artifact.profiled) {
      entry->artifact.profiled = true;
      stages.Stage("torchscript-profile");
      for (size_t i = 0; i < torch::jit::getNumProfiledRuns(); ++i) {
        try {
          std::vector<c10::IValue> stack(inputs.begin(), inputs.end());
          entry->artifact.unit->get_function("f")(std::move(stack));
        } catch (...) {  // the judged run below raises it again
        }
      }
    }
    std::vector<at::Tensor> outs;
    try {
      stages.Stage("torchscript-run");
      std::vector<c10::IValue> stack(inputs.begin(), inputs.end());
      c10::IValue out = entry->artifact.unit->get_function("f")(std::move(stack));
      stages.Stage("results");
      res.kind = OutcomeKind::kOk;
      for (const auto& v : out.toTupleRef().elements()) {
        outs.push_back(v.toTensor());
        res.outputs.push_back(ToTensorValue(outs.back()));
      }
    } catch (...) {
      res.outputs.clear();
      RecordTorchScriptError(res);
    }
    // Training: autograd through what the graph executor ran (its first runs profile and record
    // each op for autograd; later ones may run TorchScript's own differentiable graphs).
    if (res.ok() && Trains(p))
      RunBackwardStage(p, recipe, inputs, outs, res, stages, RecordTorchScriptError);
    return res;
  }

 private:
  ArtifactCache<Compiled> cache_{16};
};

#else  // no TorchScript headers in this LibTorch

class TorchScriptBackend : public Backend {
 public:
  std::string name() const override { return paths::kTorchScript; }
  PathTraits traits() const override { return FindPath(paths::kTorchScript)->traits; }
  std::string Unavailable() const override {
    return "the installed LibTorch has no TorchScript (torch/jit.h is missing)";
  }
  PathResult Run(const Program&, const InputRecipe&, StageReporter&) override {
    return UnsupportedResult(UnsupportedReason::kUnavailable, Unavailable());
  }
  PathResult RunSource(const std::string&, const Program&, const InputRecipe&, StageReporter&) {
    return UnsupportedResult(UnsupportedReason::kUnavailable, Unavailable());
  }
};

#endif

}  // namespace

std::unique_ptr<Backend> MakeTorchScriptBackend() { return std::make_unique<TorchScriptBackend>(); }

PathResult RunTorchScriptSource(const std::string& source, const Program& p, const InputRecipe& r) {
  struct : StageReporter {
    void Stage(const std::string&) override {}
  } stages;
  TorchScriptBackend b;
  return b.RunSource(source, p, r, stages);
}

}  // namespace mmdiff
