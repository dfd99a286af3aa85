// The official bindings' objects as this library's pointers: mujoco.MjModel / mujoco.MjData
// (checked by type) => const mjModel* / mjData* (their `_address`). TypeError otherwise.
#ifndef SALTATION_PYTHON_MUJOCO_OBJECTS_H_
#define SALTATION_PYTHON_MUJOCO_OBJECTS_H_

#include <mujoco/mujoco.h>
#include <pybind11/pybind11.h>

namespace saltation::python {

const mjModel* ModelOf(pybind11::handle model);
mjData* DataOf(pybind11::handle data);

// ValueError unless d has m's sizes (a data of another model)
void CheckSameSizes(const mjModel* m, const mjData* d, pybind11::handle data);

}  // namespace saltation::python

#endif  // SALTATION_PYTHON_MUJOCO_OBJECTS_H_
