// The flow of one mode: classical RK4 steps of the mode vector field F_A (mode_dynamics.h).
//
//   Rk4Step  (model, x, mode, h) => x after a step of length h (h may be negative); quaternions
//            renormalised, time advanced by h. Writes data's workspaces (mode evaluations).
#ifndef SALTATION_MODE_FLOW_H_
#define SALTATION_MODE_FLOW_H_

#include "saltation/mode_dynamics.h"
#include "saltation/model.h"
#include "saltation/tangent.h"

namespace saltation {

State Rk4Step(const Model& model, Data& data, const State& x, const Mode& mode, double h);

}  // namespace saltation

#endif  // SALTATION_MODE_FLOW_H_
