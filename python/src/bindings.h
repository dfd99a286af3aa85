// The pieces of the module saltation._core, each bound in its own file (module.cc gathers them).
#ifndef SALTATION_PYTHON_BINDINGS_H_
#define SALTATION_PYTHON_BINDINGS_H_

#include <pybind11/pybind11.h>

namespace saltation::python {

void BindHook(pybind11::module_& m);      // hook_binding.cc: _Hook
void BindAnalysis(pybind11::module_& m);  // analysis_binding.cc: rigid, floquet, state_labels
void BindLogs(pybind11::module_& m);      // log_binding.cc: check_event_log, event_kinds

}  // namespace saltation::python

#endif  // SALTATION_PYTHON_BINDINGS_H_
