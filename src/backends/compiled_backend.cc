// torch.compile backend: tensors cross into Python without copies via torch's own bindings.
#include "src/backends/compiled_backend.h"

#include <Python.h>
#include <torch/csrc/autograd/python_variable.h>

#include "src/backends/aten_program.h"
#include "src/backends/embedded_python.h"
#include "src/backends/python_glue.h"
#include "src/ir/python_emitter.h"

namespace mmdiff {

namespace {

class CompiledBackend : public Backend {
 public:
  explicit CompiledBackend(std::string backend, std::string path = "", std::string knob = "")
      : backend_(std::move(backend)), path_(std::move(path)), knob_(std::move(knob)) {}
  std::string name() const override {
    if (!path_.empty()) return path_;
    return backend_ == "eager" ? "compile_eager" : backend_;
  }
  // A knob variant runs on demand only.
  PathTraits traits() const override {
    bool variant = !knob_.empty();
    return {.compiled = true, .on_demand = variant, .variant = variant, .needs_gpu = true};
  }
  std::string Unavailable() const override { return PythonMissing(); }

  PathResult Run(const Program& p, const InputRecipe& recipe, StageReporter& stages) override {
    PathResult res;
    std::vector<at::Tensor> inputs;
    if (!StartPythonPath(p, recipe, stages, inputs, res)) return res;
    py::Gil gil;
    PyObject* globals = PyModule_GetDict(PyImport_AddModule("__main__"));
    PyObject* function = PyDict_GetItemString(globals, "_mmdiff_function");  // borrowed
    PyObject* call = PyDict_GetItemString(globals, "_mmdiff_call");
    stages.Stage("trace");
    // The same program (an input variant) gets the function compiled before, guards permitting.
    py::Ref fn(PyObject_CallFunction(function, "sss", EmitFunction(p, "f").c_str(),
                                     backend_.c_str(), (backend_ + "|" + knob_).c_str()));
    if (!fn.get()) return Internal(res, "cannot build the function: " + py::TakeErrorText());
    py::Ref args(PyList_New(static_cast<Py_ssize_t>(inputs.size())));
    for (size_t i = 0; i < inputs.size(); ++i)
      PyList_SET_ITEM(args.get(), static_cast<Py_ssize_t>(i),
                      THPVariable_Wrap(inputs[i]));  // steals
    // torch.compile is lazy: the first call traces, compiles and runs.
    stages.Stage("compile+run");
    py::Ref knob(PyUnicode_FromString(knob_.c_str()));
    py::Ref out(PyObject_CallFunctionObjArgs(call, fn.get(), args.get(), knob.get(), nullptr));
    if (!out.get() || !PyTuple_Check(out.get()))
      return Internal(res, "helper failed: " + py::TakeErrorText());
    std::string kind = py::StrOf(PyTuple_GetItem(out.get(), 0));
    ReadCompileInfo(PyTuple_GetItem(out.get(), PyTuple_Size(out.get()) - 1), res.compile);
    if (kind == "error") {
      res.kind = OutcomeKind::kError;
      res.error_class = py::StrOf(PyTuple_GetItem(out.get(), 1));
      res.error_type = py::StrOf(PyTuple_GetItem(out.get(), 2));
      res.message = py::StrOf(PyTuple_GetItem(out.get(), 3));
      return res;
    }
    stages.Stage("results");
    PyObject* list = PyTuple_GetItem(out.get(), 1);
    res.kind = OutcomeKind::kOk;
    try {
      for (Py_ssize_t i = 0; i < PyList_Size(list); ++i) {
        PyObject* item = PyList_GetItem(list, i);
        if (!THPVariable_Check(item))
          return Internal(res, "compiled function returned a non-tensor");
        res.outputs.push_back(ToTensorValue(THPVariable_Unpack(item)));
      }
    } catch (...) {
      res.outputs.clear();
      RecordCurrentException(res);
    }
    return res;
  }

 private:
  // A failure of mmdiff's own glue: surfaced as an error of a class no torch path raises.
  static PathResult& Internal(PathResult& r, const std::string& msg) {
    r.kind = OutcomeKind::kError;
    r.error_class = "MmdiffInternalError";
    r.error_type = "mmdiff";
    r.message = msg;
    r.outputs.clear();
    return r;
  }

  // The helper's (compiled, reused, fx cache hits, fx cache misses, [internals], {phase: s}).
  static void ReadCompileInfo(PyObject* info, CompileInfo& c) {
    if (!info || !PyTuple_Check(info) || PyTuple_Size(info) != 6) return;
    c.present = true;
    c.compiled = PyObject_IsTrue(PyTuple_GetItem(info, 0)) == 1;
    c.reused = PyObject_IsTrue(PyTuple_GetItem(info, 1)) == 1;
    c.fx_cache_hits = static_cast<int>(PyLong_AsLong(PyTuple_GetItem(info, 2)));
    c.fx_cache_misses = static_cast<int>(PyLong_AsLong(PyTuple_GetItem(info, 3)));
    PyObject* names = PyTuple_GetItem(info, 4);
    for (Py_ssize_t i = 0; names && PyList_Check(names) && i < PyList_Size(names); ++i)
      c.internals.push_back(py::StrOf(PyList_GetItem(names, i)));
    PyObject* phases = PyTuple_GetItem(info, 5);
    for (const CompilePhaseField& f : CompilePhaseFields()) {
      PyObject* s = phases && PyDict_Check(phases) ? PyDict_GetItemString(phases, f.name) : nullptr;
      if (s && PyFloat_Check(s)) c.phases.*f.seconds = PyFloat_AsDouble(s);
    }
    PyErr_Clear();
  }

  std::string backend_;
  std::string path_,
      knob_;  // a knob variant: its path name and the torch._inductor.config knob set to True
};

}  // namespace

std::unique_ptr<Backend> MakeCompiledBackend(const std::string& torch_backend) {
  return std::make_unique<CompiledBackend>(torch_backend);
}

std::unique_ptr<Backend> MakeInductorVariant(const std::string& path, const std::string& knob) {
  return std::make_unique<CompiledBackend>("inductor", path, knob);
}

}  // namespace mmdiff
