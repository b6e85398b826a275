// CPython embedding.
#include "src/backends/embedded_python.h"

#include <Python.h>

#include <cstdlib>

#include "mmdiff/build_info.h"

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

def _mmdiff_compile(source, backend):
    ns = {"torch": torch}
    exec(source, ns)
    torch._dynamo.reset()
    return torch.compile(ns["f"], backend=backend, fullgraph=True)

def _mmdiff_call(fn, args, knob=""):
    # torch.compile is lazy: a knob must be in force during the first call, which compiles.
    import contextlib
    import torch._inductor.config
    patch = torch._inductor.config.patch({knob: True}) if knob else contextlib.nullcontext()
    try:
        with patch:
            out = fn(*args)
    except Exception as e:
        return ("error",) + _mmdiff_root(e)
    return ("ok", list(out))
)PY";

std::string g_error;
std::string g_torch_version;
bool g_ready = false;

std::string FetchPythonError() {
  PyObject *type, *value, *tb;
  PyErr_Fetch(&type, &value, &tb);
  std::string msg = "unknown Python error";
  if (value) {
    PyObject* s = PyObject_Str(value);
    if (s && PyUnicode_Check(s)) msg = PyUnicode_AsUTF8(s);
    Py_XDECREF(s);
  }
  Py_XDECREF(type);
  Py_XDECREF(value);
  Py_XDECREF(tb);
  return msg;
}

std::string Init() {
  // Inductor otherwise starts a pool of compile workers (fresh interpreters) per process.
  setenv("TORCHINDUCTOR_COMPILE_THREADS", "1", 0);
  PyConfig config;
  PyConfig_InitPythonConfig(&config);
  config.install_signal_handlers = 0;  // leave SIGINT/SIGPIPE to the worker
  config.parse_argv = 0;
  std::string exe = build_info::kVenvPython;
  if (const char* over = std::getenv("MMDIFF_PYTHON")) exe = over;
  // With executable inside the venv, CPython's path computation reads pyvenv.cfg and puts the venv's
  // site-packages on sys.path.
  PyStatus st = PyConfig_SetBytesString(&config, &config.executable, exe.c_str());
  if (!PyStatus_Exception(st)) st = PyConfig_SetBytesString(&config, &config.program_name, exe.c_str());
  if (!PyStatus_Exception(st)) st = Py_InitializeFromConfig(&config);
  PyConfig_Clear(&config);
  if (PyStatus_Exception(st))
    return std::string("cannot start Python (") + exe + "): " + (st.err_msg ? st.err_msg : "?");
  PyObject* main = PyImport_AddModule("__main__");
  PyObject* globals = PyModule_GetDict(main);
  PyObject* r = PyRun_String(kHelpers, Py_file_input, globals, globals);
  if (!r) {
    std::string err = "cannot import torch in the embedded Python (" + exe + "): " + FetchPythonError();
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

}  // namespace mmdiff
