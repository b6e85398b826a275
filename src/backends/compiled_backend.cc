// torch.compile backend: tensors cross into Python without copies via torch's own bindings.
#include "src/backends/compiled_backend.h"

#include <Python.h>
#include <torch/csrc/autograd/python_variable.h>

#include <algorithm>

#include "src/backends/aten_program.h"
#include "src/backends/embedded_python.h"
#include "src/backends/python_glue.h"
#include "src/ir/python_emitter.h"

namespace mmdiff {

namespace {

class CompiledBackend : public Backend {
 public:
  explicit CompiledBackend(const PathRow& row)
      : backend_(row.torch_backend),
        path_(row.name),
        knob_(row.knob),
        settings_(SettingsText(row)),
        no_grad_(row.no_grad),
        inference_only_(row.limits.inference_only),
        traits_(row.traits) {}
  std::string name() const override { return path_; }
  PathTraits traits() const override { return traits_; }
  std::string Unavailable() const override { return PythonMissing(); }
  void Forget() override {
    if (!Py_IsInitialized()) return;  // nothing compiled yet
    py::Gil gil;
    PyObject* globals = PyModule_GetDict(PyImport_AddModule("__main__"));
    if (PyObject* forget = PyDict_GetItemString(globals, "_mmdiff_forget")) {  // borrowed
      py::Ref done(PyObject_CallNoArgs(forget));
      if (!done.get()) PyErr_Clear();
    }
  }

  PathResult Run(const Program& p, const InputRecipe& recipe, StageReporter& stages) override {
    // A variant that compiles for inference (under torch.no_grad()) runs no backward.
    if (!inference_only_.empty() && Trains(p))
      return UnsupportedResult(UnsupportedReason::kTraining, inference_only_);
    PathResult res;
    std::vector<at::Tensor> inputs;
    if (!StartPythonPath(p, recipe, stages, inputs, res)) return res;
    py::Gil gil;
    PyObject* globals = PyModule_GetDict(PyImport_AddModule("__main__"));
    PyObject* function = PyDict_GetItemString(globals, "_mmdiff_function");  // borrowed
    PyObject* call = PyDict_GetItemString(globals, "_mmdiff_call");
    stages.Stage("trace");
    // The same program (an input variant) gets the function compiled before, guards permitting.
    // A program with weights is compiled as its model (the Model class after f).
    py::Ref fn(PyObject_CallFunction(
        function, "sssi", (EmitFunction(p, "f") + "\n\n" + EmitModule(p)).c_str(), backend_.c_str(),
        (backend_ + "|" + knob_).c_str(), Dynamic() ? 1 : 0));
    if (!fn.get()) return Internal(res, "cannot build the function: " + py::TakeErrorText());
    py::Ref args(PyList_New(static_cast<Py_ssize_t>(inputs.size())));
    for (size_t i = 0; i < inputs.size(); ++i)
      PyList_SET_ITEM(args.get(), static_cast<Py_ssize_t>(i),
                      THPVariable_Wrap(inputs[i]));  // steals
    // torch.compile is lazy: the first call traces, compiles and runs.
    stages.Stage("compile+run");
    // The config settings in force while it compiles ("dynamic" is torch.compile's argument).
    py::Ref knob(PyUnicode_FromString(settings_.c_str()));
    py::Ref no_grad(PyBool_FromLong(no_grad_ ? 1 : 0));
    py::Ref out(PyObject_CallFunctionObjArgs(call, fn.get(), args.get(), knob.get(), no_grad.get(),
                                             nullptr));
    stages.Stage("results");
    std::vector<at::Tensor> outs;
    if (!ReadCall(out.get(), res, outs) || !res.ok() || !Trains(p)) return res;
    // Training: the backward, compiled on its first call, into the gradients.
    stages.Stage("backward");
    std::vector<at::Tensor> ws;
    try {
      ws = Cotangents(p, recipe, outs);
    } catch (...) {  // an output of a dtype mmdiff does not model
      res.outputs.clear();
      RecordCurrentException(res);
      return res;
    }
    // The leaves by input index: the helper takes them as the forward ran on them (a model's
    // parameters in the weights' places).
    py::Ref outs_list(TensorList(outs)), ws_list(TensorList(ws)), leaves(PyList_New(0));
    for (size_t g : GradientInputs(p)) {
      py::Ref index(PyLong_FromSize_t(g));
      PyList_Append(leaves.get(), index.get());
    }
    PyObject* backward = PyDict_GetItemString(globals, "_mmdiff_backward");
    py::Ref grads(PyObject_CallFunctionObjArgs(backward, outs_list.get(), ws_list.get(),
                                               leaves.get(), knob.get(), nullptr));
    PathResult forward = std::move(res);
    res = PathResult{};
    std::vector<at::Tensor> unused;
    if (!ReadCall(grads.get(), res, unused)) return res;
    MergeCompileInfo(forward.compile, res.compile);
    if (res.kind == OutcomeKind::kError) {
      res.backward = true;
      return res;
    }
    forward.outputs.insert(forward.outputs.end(), res.outputs.begin(), res.outputs.end());
    forward.compile = res.compile;
    res = std::move(forward);
    return res;
  }

 private:
  // A helper's ("ok", [tensors], info) or ("error", class, type, message, info) into res (ok with
  // the tensors as outputs, also kept in `tensors`, or the error); false with res an internal
  // error when the reply is not of that form.
  static bool ReadCall(PyObject* out, PathResult& res, std::vector<at::Tensor>& tensors) {
    if (!out || !PyTuple_Check(out)) {
      Internal(res, "helper failed: " + py::TakeErrorText());
      return false;
    }
    std::string kind = py::StrOf(PyTuple_GetItem(out, 0));
    ReadCompileInfo(PyTuple_GetItem(out, PyTuple_Size(out) - 1), res.compile);
    if (kind == "unsupported") {  // the variant's settings cannot compile the program
      CompileInfo info = res.compile;
      res = UnsupportedResult(UnsupportedReason::kKnob, py::StrOf(PyTuple_GetItem(out, 1)));
      res.compile = info;
      return true;
    }
    if (kind == "error") {
      res.kind = OutcomeKind::kError;
      res.error_class = py::StrOf(PyTuple_GetItem(out, 1));
      res.error_type = py::StrOf(PyTuple_GetItem(out, 2));
      res.message = py::StrOf(PyTuple_GetItem(out, 3));
      return true;
    }
    PyObject* list = PyTuple_GetItem(out, 1);
    if (!list || !PyList_Check(list)) {
      Internal(res, "helper returned no list");
      return false;
    }
    res.kind = OutcomeKind::kOk;
    try {
      for (Py_ssize_t i = 0; i < PyList_Size(list); ++i) {
        PyObject* item = PyList_GetItem(list, i);
        if (!THPVariable_Check(item)) {
          Internal(res, "compiled function returned a non-tensor");
          return false;
        }
        tensors.push_back(THPVariable_Unpack(item));
        res.outputs.push_back(ToTensorValue(tensors.back()));
      }
    } catch (...) {
      res.outputs.clear();
      RecordCurrentException(res);
    }
    return true;
  }

  // A list of tensors (None for undefined ones), a new reference.
  static PyObject* TensorList(const std::vector<at::Tensor>& ts) {
    PyObject* list = PyList_New(static_cast<Py_ssize_t>(ts.size()));
    for (size_t i = 0; i < ts.size(); ++i) {
      PyObject* item = ts[i].defined() ? THPVariable_Wrap(ts[i]) : Py_NewRef(Py_None);
      PyList_SET_ITEM(list, static_cast<Py_ssize_t>(i), item);  // steals
    }
    return list;
  }

  // The forward's compile info added into the backward's: one run of the path.
  static void MergeCompileInfo(const CompileInfo& forward, CompileInfo& c) {
    if (!forward.present) return;
    c.present = true;
    c.compiled |= forward.compiled;
    c.reused = forward.reused;
    c.fx_cache_hits += forward.fx_cache_hits;
    c.fx_cache_misses += forward.fx_cache_misses;
    c.internals.insert(c.internals.end(), forward.internals.begin(), forward.internals.end());
    std::sort(c.internals.begin(), c.internals.end());
    c.internals.erase(std::unique(c.internals.begin(), c.internals.end()), c.internals.end());
    for (const CompilePhaseField& f : CompilePhaseFields())
      c.phases.*f.seconds += forward.phases.*f.seconds;
  }

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

  // The variant compiled with torch.compile(dynamic=True) rather than with a config knob.
  bool Dynamic() const { return knob_ == "dynamic"; }

  // The row's settings as the helper reads them: a Python dict literal, "" for none.
  static std::string SettingsText(const PathRow& row) {
    std::string out;
    for (const KnobSetting& k : row.settings)
      out += (out.empty() ? "{" : ", ") + std::string("'") + k.name + "': " + k.value;
    return out.empty() ? out : out + "}";
  }

  std::string backend_;  // torch.compile's backend=
  std::string path_;
  std::string knob_;            // the knob that names a variant, or "dynamic"
  std::string settings_;        // its torch._inductor.config settings (SettingsText)
  bool no_grad_;                // compiles and runs under torch.no_grad()
  std::string inference_only_;  // why it runs no training program ("" where it does)
  PathTraits traits_;
};

}  // namespace

std::unique_ptr<Backend> MakeCompiledBackend(const PathRow& row) {
  return std::make_unique<CompiledBackend>(row);
}

}  // namespace mmdiff
