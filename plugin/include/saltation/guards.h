// Guards: the scalar functions whose zero crossing (from + to −) is a contact event (theory.md §3).
//
//   touchdown  g = dist − includemargin of a contact point not in the mode;  ∇g = (J_n, 0, 0)
//   liftoff    g = λ_n, the rigid normal force of a contact in the mode;     ∇g = ∂λ_n/∂x
//
// Touchdown is kinematic; liftoff is dynamic (during stance dist ≡ 0, so no position test can see
// a release). Both gradients are in the tangent layout (ndx).
#ifndef SALTATION_GUARDS_H_
#define SALTATION_GUARDS_H_

#include <Eigen/Dense>

#include "saltation/contacts.h"
#include "saltation/mode_dynamics.h"
#include "saltation/model.h"
#include "saltation/tangent.h"

namespace saltation {

// ∇g of a touchdown guard: the normal row of the point (exact: the gradient of the signed
// distance), zero in the velocity and activation blocks. d must be evaluated at the point's
// configuration; the point Jacobians pass through work (Data::work()).
Eigen::VectorXd TouchdownGuardGradient(const Model& model, const mjData* d,
                                       const ContactPoint& point, Workspace& work);

// g = λ_n of contact k of the mode at x.
double LiftoffGuard(const Model& model, Data& data, const State& x, const Mode& mode, int k);

// ∇g of the liftoff guard of contact k: central differences of the KKT solution λ_n(x) in the
// tangent coordinates with step options().fd_step (mode held fixed); the velocity and activation
// columns rerun only MuJoCo's velocity and actuation stages and the bias at x's configuration. MuJoCo 2.2 gives no position
// derivatives of M, J or qfrc_bias, so this gradient is numerical; it is held in the tests to the
// guard's rate along the exact flow (LiftoffGuardRateFD) and to closed forms.
Eigen::VectorXd LiftoffGuardGradient(const Model& model, Data& data, const State& x,
                                     const Mode& mode, int k);

// Finite-difference twin of ∇gᵀF: dλ_n/dt along the mode's own flow, by central differences in
// time of the state advanced with the mode vector field (RK4 sub-steps of size h).
double LiftoffGuardRateFD(const Model& model, Data& data, const State& x, const Mode& mode, int k,
                          double h = 1e-4);

}  // namespace saltation

#endif  // SALTATION_GUARDS_H_
