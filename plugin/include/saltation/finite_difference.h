// Finite-difference Jacobians through the tangent space (the twins the tests hold the analytic
// objects to). Perturbations go through Integrate (mj_integratePos), results come back through
// Difference (mj_differentiatePos), so quaternions are handled on their manifold; central
// differences, step eps.
#ifndef SALTATION_FINITE_DIFFERENCE_H_
#define SALTATION_FINITE_DIFFERENCE_H_

#include <Eigen/Dense>
#include <functional>

#include "saltation/rigid_simulator.h"
#include "saltation/tangent.h"

namespace saltation {

// ∂map/∂x (ndx × ndx) of a state-to-state map by central differences in tangent coordinates.
Eigen::MatrixXd TangentJacobianFD(const mjModel* m, const std::function<State(const State&)>& map,
                                  const State& x, double eps);

// Φ(t_end ← s0.x.time) of the rigid hybrid flow (events on) or of s0's mode alone (events off)
// by central differences; every perturbed run starts in s0's mode. NumericalError when a
// perturbed run sees a different number of events than the nominal one (the map is not smooth
// there).
Eigen::MatrixXd FlowJacobianFD(RigidSimulator& sim, const HybridState& s0, double t_end, double eps,
                               bool events = true);

}  // namespace saltation

#endif  // SALTATION_FINITE_DIFFERENCE_H_
