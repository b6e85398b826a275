// Small RAII helpers for calling the embedded interpreter from C++: the GIL, owned references, and
// the pending Python error as text. Include only after EnsurePython() has succeeded.
#pragma once

#include <Python.h>

#include <string>

namespace mmdiff::py {

// Holds the GIL for its scope.
class Gil {
 public:
  Gil() : state_(PyGILState_Ensure()) {}
  ~Gil() { PyGILState_Release(state_); }
  Gil(const Gil&) = delete;
  Gil& operator=(const Gil&) = delete;

 private:
  PyGILState_STATE state_;
};

// An owned (new) reference, released at scope end.
class Ref {
 public:
  explicit Ref(PyObject* o = nullptr) : p_(o) {}
  ~Ref() { Py_XDECREF(p_); }
  Ref(const Ref&) = delete;
  Ref& operator=(const Ref&) = delete;
  PyObject* get() const { return p_; }
  explicit operator bool() const { return p_ != nullptr; }

 private:
  PyObject* p_;
};

// str() of the pending exception (cleared), or "Python error" when it has none.
inline std::string TakeErrorText() {
  PyObject *type, *value, *tb;
  PyErr_Fetch(&type, &value, &tb);
  std::string s = "Python error";
  if (value) {
    Ref str(PyObject_Str(value));
    if (str && PyUnicode_Check(str.get()))
      s = PyUnicode_AsUTF8(str.get());
    else
      PyErr_Clear();
  }
  Py_XDECREF(type);
  Py_XDECREF(value);
  Py_XDECREF(tb);
  return s;
}

// The UTF-8 text of a str object; "" for anything else.
inline std::string StrOf(PyObject* o) {
  if (!o || !PyUnicode_Check(o)) return "";
  const char* c = PyUnicode_AsUTF8(o);
  return c ? c : "";
}

}  // namespace mmdiff::py
