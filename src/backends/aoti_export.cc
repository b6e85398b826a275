// torch.export + AOTInductor packaging through the embedded interpreter.
#include "src/backends/aoti_export.h"

#include <torch/csrc/autograd/python_variable.h>

#include "mmdiff/python/aoti_helpers.h"
#include "mmdiff/python/root_cause.h"
#include "src/backends/python_glue.h"

namespace mmdiff {

namespace {

// The helpers' namespace (borrowed; made once), or nullptr with a Python error set: export() and
// package() of src/backends/python/aoti_helpers.py, kept apart from embedded_python.cc's helpers,
// with root_cause() (src/ir/python/root_cause.py, the rule repro.py follows too) defined before
// them.
PyObject* Helpers() {
  static PyObject* ns = nullptr;
  if (ns) return ns;
  PyObject* d = PyDict_New();
  if (!d) return nullptr;
  PyDict_SetItemString(d, "__builtins__", PyEval_GetBuiltins());
  for (std::string_view text : {embedded::kRootCausePy, embedded::kAotiHelpersPy}) {
    py::Ref r(PyRun_String(text.data(), Py_file_input, d, d));  // NUL-terminated
    if (!r) {
      Py_DECREF(d);
      return nullptr;
    }
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
