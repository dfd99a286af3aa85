#include "mujoco_objects.h"

#include <cstdint>
#include <string>

namespace py = pybind11;

namespace saltation::python {
namespace {

std::uintptr_t AddressOf(py::handle object, const char* type_name) {
  py::object cls = py::module_::import("mujoco").attr(type_name);
  if (!py::isinstance(object, cls)) {
    throw py::type_error(std::string("expected mujoco.") + type_name + ", got " +
                         py::str(py::type::handle_of(object).attr("__name__")).cast<std::string>());
  }
  return object.attr("_address").cast<std::uintptr_t>();
}

}  // namespace

const mjModel* ModelOf(py::handle model) {
  return reinterpret_cast<const mjModel*>(AddressOf(model, "MjModel"));
}

mjData* DataOf(py::handle data) { return reinterpret_cast<mjData*>(AddressOf(data, "MjData")); }

void CheckSameSizes(const mjModel* m, const mjData* d, py::handle data) {
  const mjModel* dm = ModelOf(data.attr("model"));
  if (dm->nq != m->nq || dm->nv != m->nv || dm->na != m->na || dm->nu != m->nu || dm->nbody != m->nbody ||
      dm->ngeom != m->ngeom) {
    throw py::value_error("this MjData belongs to another model (nq " + std::to_string(dm->nq) + ", nv " +
                          std::to_string(dm->nv) + "; the hook's model has nq " + std::to_string(m->nq) +
                          ", nv " + std::to_string(m->nv) + ")");
  }
}

}  // namespace saltation::python
