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
#include "saltation/islands.h"
#include "saltation/mode_dynamics.h"
#include "saltation/model.h"
#include "saltation/tangent.h"

namespace saltation {

// ∇g of a touchdown guard: the normal row of the point (exact: the gradient of the signed
// distance), zero in the velocity and activation blocks. d must be evaluated at the point's
// configuration; the point Jacobians pass through work (Data::work()).
Eigen::VectorXd TouchdownGuardGradient(const Model& model, const mjData* d,
                                       const ContactPoint& point, Workspace& work);

// The unit-free transversality of a kinematic guard (touchdown; a kinematic release) with
// ∇g = (J_n, 0, 0): the cosine, in the kinetic-energy metric of M(q), of the angle between the
// velocity v and the constraint's normal direction M⁻¹J_nᵀ,
//
//   |J_n w| / (√(J_n M⁻¹ J_nᵀ) · √(wᵀ M w)),  w = v (a fixed surface)
//
// 1 head-on, 0 grazing. Why this one: ∇gᵀF⁻ = J_n v is a speed and F⁻ = (v, a, ȧ) adds speeds to
// accelerations, so |∇gᵀF⁻|/(‖∇g‖‖F⁻‖) changes with the units and with a robot's joint
// accelerations; M makes the velocity space an inner-product space whose lengths are energies
// (‖v‖²_M = 2 T), in which J_n v = ⟨M⁻¹J_nᵀ, v⟩_M, so the ratio is a true cosine (Cauchy–Schwarz),
// independent of units and of the choice of generalized coordinates. Its square is the share of
// the kinetic energy that the contact's normal direction carries (½ m_eff v_n² / T, m_eff =
// 1/(J_n M⁻¹ J_nᵀ)). A free ball falling straight down is head-on (1) at any speed; a foot
// striking at 1 m/s while the trunk moves on scores the foot's share of the energy; a point
// skimming the surface scores 0. d must hold M factored at the point's configuration (the state
// EvaluatePosition leaves); 0 when w = 0. dg_dt: a moving surface's ∂g/∂t; the approach is then
// measured relative to the surface, w = v + M⁻¹J_nᵀ ∂g/∂t / (J_n M⁻¹ J_nᵀ), the generalized
// velocity whose normal speed J_n w = J_n v + ∂g/∂t is the relative one (exact for a surface
// moving along its normal; its tangential motion is not seen by g).
// island: the event's island (islands.h): v and the energy are the island's, M its block (the
// other trees move on untouched by the contact: a ball landing head-on among 50 moving balls
// scores 1, as alone) — every event's grazing measure is its island's; null or whole: the whole
// model's. d_on_island_trees: d's position stage ran on the island's trees only (SleepOutside's
// passes, island_passes.h; M is then solved with those passes' model), else on the whole model.
double KineticTransversality(const Model& model, const mjData* d, const Eigen::VectorXd& grad_g,
                             const Eigen::VectorXd& qvel, double dg_dt = 0, const Island* island = nullptr,
                             bool d_on_island_trees = false);

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
