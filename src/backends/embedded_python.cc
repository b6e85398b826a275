// CPython embedding.
#include "src/backends/embedded_python.h"

#include <Python.h>
#include <unistd.h>

#include <cstdlib>

#include "mmdiff/build_info.h"
#include "mmdiff/python/inductor_lowerings.h"
#include "mmdiff/python/inductor_rewrites.h"
#include "mmdiff/python/knob_variants.h"
#include "mmdiff/python/planted_backends.h"
#include "mmdiff/python/repro_module.h"
#include "mmdiff/python/root_cause.h"
#include "mmdiff/python/worker_helpers.h"
#include "src/backends/python_glue.h"

namespace mmdiff {

namespace {

std::string g_error;
std::string g_torch_version;
bool g_ready = false;

std::string Init() {
  // Inductor otherwise starts a pool of compile workers (fresh interpreters) per process.
  setenv("TORCHINDUCTOR_COMPILE_THREADS", "1", 0);
  // Every graph runs Inductor's passes: a compile that the FX graph or AOTAutograd cache answers
  // runs none and reports no rewrite, and a finding is signed with the attention fusions its
  // compile applied (oracles/root_cause.h), so with the caches the same case would sign
  // differently once its graph is cached (seen: `mmdiff run` of a fused case, twice). The kernels'
  // own cache (the C++ compiles, most of a compile's time) stays on.
  setenv("TORCHINDUCTOR_FX_GRAPH_CACHE", "0", 1);
  setenv("TORCHINDUCTOR_AUTOGRAD_CACHE", "0", 1);
  PyConfig config;
  PyConfig_InitPythonConfig(&config);
  config.install_signal_handlers = 0;  // leave SIGINT/SIGPIPE to the worker
  config.parse_argv = 0;
  std::string exe = PythonExecutable();
  // With executable inside the venv, CPython's path computation reads pyvenv.cfg and puts the
  // venv's site-packages on sys.path.
  PyStatus st = PyConfig_SetBytesString(&config, &config.executable, exe.c_str());
  if (!PyStatus_Exception(st))
    st = PyConfig_SetBytesString(&config, &config.program_name, exe.c_str());
  if (!PyStatus_Exception(st)) st = Py_InitializeFromConfig(&config);
  PyConfig_Clear(&config);
  if (PyStatus_Exception(st))
    return std::string("cannot start Python (") + exe + "): " + (st.err_msg ? st.err_msg : "?");
  PyObject* main = PyImport_AddModule("__main__");
  PyObject* globals = PyModule_GetDict(main);
  // The compiled paths' helpers (src/backends/python/worker_helpers.py, which imports torch) call
  // root_cause() (src/ir/python/root_cause.py, the rule repro.py follows too) and observe
  // Inductor's rewrites with src/ir/python/inductor_rewrites.py, both defined before them; then the
  // test-only planted paths' torch.compile backends are registered (names no other path uses).
  // A program with weights runs as its model (repro_module.py, as repro.py runs it), and the
  // lowerings Inductor chose are observed (inductor_lowerings.py); a knob variant that cannot
  // compile a program says so as the runner of `mmdiff releases` does (knob_variants.py).
  for (std::string_view text :
       {embedded::kRootCausePy, embedded::kInductorRewritesPy, embedded::kInductorLoweringsPy,
        embedded::kReproModulePy, embedded::kKnobVariantsPy, embedded::kWorkerHelpersPy,
        embedded::kPlantedBackendsPy}) {
    PyObject* r = PyRun_String(text.data(), Py_file_input, globals, globals);  // NUL-terminated
    if (!r) {
      std::string err =
          "cannot import torch in the embedded Python (" + exe + "): " + py::TakeErrorText();
      PyEval_SaveThread();
      return err;
    }
    Py_DECREF(r);
  }
  PyObject* v = PyRun_String("torch.__version__", Py_eval_input, globals, globals);
  if (v) {
    PyObject* s = PyObject_Str(v);
    g_torch_version = PyUnicode_AsUTF8(s);
    Py_XDECREF(s);
    Py_DECREF(v);
  } else {
    PyErr_Clear();
  }
  PyEval_SaveThread();  // release the GIL; callers take it with PyGILState_Ensure
  return "";
}

}  // namespace

std::string PythonExecutable() {
  const char* over = std::getenv("MMDIFF_PYTHON");
  return over ? over : build_info::kVenvPython;
}

std::string PythonMissing() {
  std::string exe = PythonExecutable();
  if (access(exe.c_str(), X_OK) != 0)
    return "the venv interpreter " + exe + " is missing (run scripts/setup)";
  return "";
}

std::string EnsurePython() {
  static bool tried = false;
  if (!tried) {
    tried = true;
    g_error = Init();
    g_ready = g_error.empty();
  }
  return g_error;
}

std::string PythonTorchVersion() { return g_torch_version; }

std::string EnsureCompiler() {
  static std::string error;
  static bool tried = false;
  if (tried) return error;
  tried = true;
  py::Gil gil;
  PyObject* main = PyImport_AddModule("__main__");
  PyObject* globals = PyModule_GetDict(main);
  PyObject* r = PyRun_String("_mmdiff_load_compiler()", Py_eval_input, globals, globals);
  if (!r) error = "cannot import torch.compile's Dynamo and Inductor: " + py::TakeErrorText();
  Py_XDECREF(r);
  return error;
}

bool StartPythonPath(const Program& p, const InputRecipe& r, StageReporter& stages,
                     std::vector<at::Tensor>& inputs, PathResult& res) {
  if (MissingGpu(p)) {
    res = NoGpuResult();
    return false;
  }
  stages.Stage("python");
  std::string err = EnsurePython();
  if (err.empty()) err = EnsureCompiler();
  if (!err.empty()) {
    res = UnsupportedResult(UnsupportedReason::kUnavailable, err);
    return false;
  }
  return MakeInputsStage(p, r, stages, inputs, res);
}

}  // namespace mmdiff
