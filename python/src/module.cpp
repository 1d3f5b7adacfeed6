// plinth._plinth: the extension module behind the `plinth` package (python/plinth), and the
// mapping of plinth::Error to Python exceptions. Every exception carries the library's one-line
// message (str(e) is what the CLI prints after "plinth: ") and is a plinth.Error; mistakes in
// arguments are also ValueError or TypeError, files OSError, memory MemoryError, devices RuntimeError.
#include <array>

#include "common.hpp"

namespace plinth::python {

namespace {

std::array<PyObject*, 9> error_classes{};  // by ErrorCode

PyObject* error_class(ErrorCode code) {
  const auto index = static_cast<std::size_t>(code);
  return index < error_classes.size() && error_classes[index] ? error_classes[index] : error_classes[0];
}

void raise(const Error& error) {
  PyObject* cls = error_class(error.code());
  nb::object instance = nb::steal(PyObject_CallFunction(cls, "s", error.what()));
  if (!instance.is_valid()) return;  // the call set its own exception
  instance.attr("code") = nb::str(to_string(error.code()).data(), to_string(error.code()).size());
  instance.attr("operation") = nb::str(error.operation().c_str());
  instance.attr("argument") = nb::str(error.argument().c_str());
  instance.attr("message") = nb::str(error.message().c_str());
  PyErr_SetObject(cls, instance.ptr());
}

}  // namespace

void register_errors(nb::module_& m) {
  PyObject* base = PyErr_NewExceptionWithDoc("plinth.Error", "Every error plinth raises; str(e) is the one-line message.",
                                             PyExc_Exception, nullptr);
  m.attr("Error") = nb::handle(base);
  auto make = [&](const char* name, PyObject* standard, const char* doc) {
    nb::object bases = nb::make_tuple(nb::handle(base), nb::handle(standard));
    PyObject* cls = PyErr_NewExceptionWithDoc((std::string("plinth.") + name).c_str(), doc, bases.ptr(), nullptr);
    m.attr(name) = nb::handle(cls);
    return cls;
  };
  PyObject* argument = make("ArgumentError", PyExc_ValueError, "A parameter has a value the operation does not accept.");
  PyObject* range = make("RangeError", PyExc_ValueError, "A size, index or region lies outside what is allowed.");
  PyObject* type = make("UnsupportedTypeError", PyExc_TypeError, "A wrong type, or a dtype / channel count the operation does not take.");
  PyObject* file = make("FileError", PyExc_OSError, "A file cannot be opened, read or written.");
  PyObject* format = make("FormatError", PyExc_ValueError, "A file or text is malformed.");
  PyObject* device = make("DeviceError", PyExc_RuntimeError, "No usable device, a failed device call, a kernel build or internal error.");
  PyObject* memory = make("OutOfMemoryError", PyExc_MemoryError, "A host or device allocation failed.");
  error_classes = {argument, type, range, file, format, device, device, memory, device};
  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const Error& error) {
      raise(error);
    }
  });
}

}  // namespace plinth::python

NB_MODULE(_plinth, m) {
  using namespace plinth::python;
  m.doc() = "plinth's C++ library (OpenCL kernels) for Python; use the `plinth` package.";
  register_errors(m);
  register_core(m);
  register_image_ops(m);
  register_detect(m);
  register_tracking(m);
  register_arrays(m);
  register_surf(m);
}
