// CPython embedding.
#include "src/backends/embedded_python.h"

#include <Python.h>
#include <unistd.h>

#include <cstdlib>

#include "mmdiff/build_info.h"
#include "src/backends/python_glue.h"

namespace mmdiff {

namespace {

// Helpers run inside the interpreter. _mmdiff_root mirrors repro.py's root-cause rule: follow
// __cause__, then __context__, to the innermost exception, and name its first builtin base class.
constexpr const char* kHelpers = R"PY(
import sys
import torch
import torch._dynamo

def _mmdiff_root(e):
    root = e
    while (root.__cause__ or root.__context__) is not None:
        root = root.__cause__ or root.__context__
    cls = next(c for c in type(root).__mro__ if c.__module__ == "builtins")
    msg = (str(root).strip().splitlines() or [""])[0]
    return (cls.__name__, type(root).__module__ + "." + type(root).__qualname__, msg)

# Compile once, run many: the functions compiled for the current program, by backend and knob. A new
# program resets dynamo once, so that the paths of one program (and its input variants) keep theirs.
_mmdiff_program = {"source": None, "fns": {}}
_mmdiff_codes = []

def _mmdiff_function(source, backend, key):
    if source != _mmdiff_program["source"]:
        torch._dynamo.reset()
        _mmdiff_program["source"] = source
        _mmdiff_program["fns"] = {}
    fns = _mmdiff_program["fns"]
    # Dynamo runs a function that hit its recompile limit in eager, silently: a function that has
    # compiled a few times (new sizes, new dtypes in a reduction) is replaced by a fresh one.
    _mmdiff_program["reused"] = key in fns and fns[key][1] < 4
    if not _mmdiff_program["reused"]:
        ns = {"torch": torch}
        exec(source, ns)
        fns[key] = [torch.compile(ns["f"], backend=backend, fullgraph=True), 0]
    _mmdiff_program["key"] = key
    return fns[key][0]

try:  # Inductor hands each compiled (or cache-loaded) module's source to this hook
    from torch._inductor.graph import GraphLowering
    GraphLowering.save_output_code = staticmethod(_mmdiff_codes.append)
except Exception:
    pass

def _mmdiff_internals(codes, inductor_delta):
    import re
    names = set()
    for code in codes:
        names.update("extern:" + k for k in re.findall(r"extern_kernels\.(\w+)\(", code))
        names.update("fallback:" + k for k in re.findall(r"torch\.ops\.aten\.(\w+)\.", code))
        fused = len(re.findall(r"= async_compile\.(?:cpp|cpp_pybinding|triton)\(", code))
        names.add("fused:" + (str(fused) if fused < 3 else "3+"))
        if re.search(r"cpp_templated|triton_tem_|template", code):
            names.add("template")
    skip = ("fxgraph_cache", "extern_calls", "async_compile")
    names.update("pattern:" + k for k, v in inductor_delta.items() if v and not k.startswith(skip))
    return sorted(names)

def _mmdiff_call(fn, args, knob=""):
    # torch.compile is lazy: a knob must be in force during the first call, which compiles.
    import contextlib
    import torch._inductor.config
    from torch._dynamo.utils import counters
    patch = torch._inductor.config.patch({knob: True}) if knob else contextlib.nullcontext()
    graphs = counters["stats"]["unique_graphs"]
    before = dict(counters["inductor"])
    del _mmdiff_codes[:]
    try:
        with patch:
            out = fn(*args)
        result = ("ok", list(out))
    except Exception as e:
        result = ("error",) + _mmdiff_root(e)
    delta = {k: v - before.get(k, 0) for k, v in counters["inductor"].items()}
    compiled = counters["stats"]["unique_graphs"] > graphs
    if compiled and _mmdiff_program.get("key") in _mmdiff_program["fns"]:
        _mmdiff_program["fns"][_mmdiff_program["key"]][1] += 1
    info = (compiled, _mmdiff_program.get("reused", False),
            delta.get("fxgraph_cache_hit", 0),
            delta.get("fxgraph_cache_miss", 0), _mmdiff_internals(_mmdiff_codes, delta))
    return result + (info,)
)PY";

std::string g_error;
std::string g_torch_version;
bool g_ready = false;

std::string Init() {
  // Inductor otherwise starts a pool of compile workers (fresh interpreters) per process.
  setenv("TORCHINDUCTOR_COMPILE_THREADS", "1", 0);
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
  PyObject* r = PyRun_String(kHelpers, Py_file_input, globals, globals);
  if (!r) {
    std::string err =
        "cannot import torch in the embedded Python (" + exe + "): " + py::TakeErrorText();
    PyEval_SaveThread();
    return err;
  }
  Py_DECREF(r);
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

bool StartPythonPath(const Program& p, const InputRecipe& r, StageReporter& stages,
                     std::vector<at::Tensor>& inputs, PathResult& res) {
  if (MissingGpu(p)) {
    res = NoGpuResult();
    return false;
  }
  stages.Stage("python");
  if (std::string err = EnsurePython(); !err.empty()) {
    res = UnsupportedResult(UnsupportedReason::kUnavailable, err);
    return false;
  }
  return MakeInputsStage(p, r, stages, inputs, res);
}

}  // namespace mmdiff
