// The flow of one mode: classical RK4 steps of the mode vector field F_A (mode_dynamics.h).
//
//   Normalized (x) => x with unit quaternions
//   Rk4Step  (model, x, mode, h) => x after a step of length h (h may be negative); quaternions
//            renormalised, time advanced by h. Writes data's workspaces (mode evaluations).
#ifndef SALTATION_MODE_FLOW_H_
#define SALTATION_MODE_FLOW_H_

#include "saltation/mode_dynamics.h"
#include "saltation/model.h"
#include "saltation/tangent.h"

namespace saltation {

State Rk4Step(const Model& model, Data& data, const State& x, const Mode& mode, double h);

// x with its quaternions renormalised (the RK4 stages drift off the unit sphere by O(h⁵))
State Normalized(const mjModel* m, const State& x);

}  // namespace saltation

#endif  // SALTATION_MODE_FLOW_H_
