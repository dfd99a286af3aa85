// saltation._core: the C++ core for Python. Errors become saltation.Error subclasses with the
// library's own messages; MuJoCo errors raised inside a call become saltation.MujocoError (the
// bindings' own handler is restored after each call: ScopedMujocoErrors).
#include <dlfcn.h>
#include <mujoco/mujoco.h>
#include <pybind11/pybind11.h>

#include <string>

#include "bindings.h"
#include "saltation/errors.h"

namespace py = pybind11;

PYBIND11_MODULE(_core, m) {
  m.doc() = "saltation's C++ core (use the saltation package, not this module)";
  // translators registered later are tried first: the base class before its subclasses
  const py::exception<saltation::Error>& error = py::register_exception<saltation::Error>(m, "Error");
  py::register_exception<saltation::ConfigError>(m, "ConfigError", error.ptr());
  py::register_exception<saltation::NumericalError>(m, "NumericalError", error.ptr());
  py::register_exception<saltation::MujocoError>(m, "MujocoError", error.ptr());
  m.attr("__version__") = SALTATION_VERSION;
  m.attr("built_mujoco_version") = SALTATION_MUJOCO_VERSION;  // the headers it was compiled with
  m.def("linked_mujoco_version", [] { return std::string(mj_versionString()); },
        "mj_versionString() of the libmujoco this module is linked to");
  m.def("linked_mujoco_library", [] {
    Dl_info info;
    if (dladdr(reinterpret_cast<void*>(&mj_versionString), &info) && info.dli_fname) return std::string(info.dli_fname);
    return std::string();
  }, "path of the libmujoco this module is linked to");
  saltation::python::BindHook(m);
  saltation::python::BindAnalysis(m);
  saltation::python::BindLogs(m);
}
