// torch.export + AOTInductor packaging through the embedded interpreter.
#include "src/backends/aoti_export.h"

#include <torch/csrc/autograd/python_variable.h>

#include "src/backends/python_glue.h"

namespace mmdiff {

namespace {

// Kept apart from embedded_python.cc's helpers, in a namespace of its own; _mmdiff_root (the
// root-cause rule repro.py also follows) comes from there. Export and compilation run under
// torch.no_grad(), as AOTInductor's documentation does for inference.
constexpr const char* kAotiHelpers = R"PY(
import torch
import torch._inductor
from __main__ import _mmdiff_root

def export(source, args):
    ns = {"torch": torch}
    exec(source, ns)
    f = ns["f"]

    class Program(torch.nn.Module):
        def forward(self, *xs):
            return f(*xs)

    try:
        with torch.no_grad():
            return ("ok", torch.export.export(Program(), tuple(args)))
    except Exception as e:
        return ("error",) + _mmdiff_root(e)

def package(exported, path):
    try:
        with torch.no_grad():
            return ("ok", torch._inductor.aoti_compile_and_package(exported, package_path=path))
    except Exception as e:
        return ("error",) + _mmdiff_root(e)
)PY";

// The helpers' namespace (borrowed; made once), or nullptr with a Python error set.
PyObject* Helpers() {
  static PyObject* ns = nullptr;
  if (ns) return ns;
  PyObject* d = PyDict_New();
  if (!d) return nullptr;
  PyDict_SetItemString(d, "__builtins__", PyEval_GetBuiltins());
  py::Ref r(PyRun_String(kAotiHelpers, Py_file_input, d, d));
  if (!r) {
    Py_DECREF(d);
    return nullptr;
  }
  ns = d;
  return ns;
}

void Internal(PathResult& r, const std::string& msg) {
  r.kind = OutcomeKind::kError;
  r.error_class = "MmdiffInternalError";  // mmdiff's own glue failed: a class no torch path raises
  r.error_type = "mmdiff";
  r.message = msg;
}

// Reads ("ok", value) or ("error", class, type, message) into `error`; returns the value (borrowed
// from `out`) or nullptr.
PyObject* Unpack(PyObject* out, PathResult& error) {
  if (!out || !PyTuple_Check(out) || PyTuple_Size(out) < 2) {
    Internal(error, "aoti helper failed: " +
                        (PyErr_Occurred() ? py::TakeErrorText() : std::string("bad reply")));
    return nullptr;
  }
  if (py::StrOf(PyTuple_GetItem(out, 0)) == "ok") return PyTuple_GetItem(out, 1);
  error.kind = OutcomeKind::kError;
  error.error_class = py::StrOf(PyTuple_GetItem(out, 1));
  error.error_type = PyTuple_Size(out) > 2 ? py::StrOf(PyTuple_GetItem(out, 2)) : "";
  error.message = PyTuple_Size(out) > 3 ? py::StrOf(PyTuple_GetItem(out, 3)) : "";
  return nullptr;
}

}  // namespace

std::string ExportAndPackage(const std::string& source, const std::vector<at::Tensor>& inputs,
                             const std::string& package_path, StageReporter& stages,
                             PathResult& error) {
  py::Gil gil;
  PyObject* ns = Helpers();
  if (!ns) {
    Internal(error, "cannot load the aoti helpers: " + py::TakeErrorText());
    return "python";
  }
  stages.Stage("export");
  py::Ref args(PyList_New(static_cast<Py_ssize_t>(inputs.size())));
  for (size_t i = 0; i < inputs.size(); ++i)
    PyList_SET_ITEM(args.get(), static_cast<Py_ssize_t>(i), THPVariable_Wrap(inputs[i]));  // steals
  py::Ref exported(
      PyObject_CallFunction(PyDict_GetItemString(ns, "export"), "sO", source.c_str(), args.get()));
  PyObject* program = Unpack(exported.get(), error);
  if (!program) return "export";
  stages.Stage("aoti-compile");
  py::Ref packaged(PyObject_CallFunction(PyDict_GetItemString(ns, "package"), "Os", program,
                                         package_path.c_str()));
  if (!Unpack(packaged.get(), error)) return "aoti-compile";
  return "";
}

}  // namespace mmdiff
