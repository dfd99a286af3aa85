// Rigid dynamics of one mode (theory.md §2).
//
// With J_A the stacked constraint rows of mode A (contact rows, then MuJoCo's equality rows),
// a_s = qacc_smooth and b = J̇_A v the constraint bias:
//
//   M a = M a_s + J_Aᵀ λ,   J_A a + J̇_A v = 0
//   λ = −(J_A M⁻¹ J_Aᵀ)⁺ (J_A a_s + J̇_A v),   a = a_s + M⁻¹ J_Aᵀ λ
//
// The pseudo-inverse is taken over the eigenvalues of J_A M⁻¹ J_Aᵀ above rank_tol·max: planar
// models give identically zero rows and a box face gives four dependent normals, and both are
// normal. The rank is reported. λ_n ≥ 0 pushes the bodies apart; the mode vector field is
// F_A(x) = (v, a, act_dot) in the tangent layout (ndx).
//
// The bias J̇_A v is d/ds [J_A(q(s)) v] at s = 0 along q(s) = q ⊕ s·v, formed by a five-point
// stencil in s (MuJoCo 2.2 does not compute it); the contact points are recomputed at each q(s),
// so the motion of the contact point over curved surfaces and rolling bodies is included. Tangent
// rows are differentiated in the centre's contact frame (ConstraintBias), not MuJoCo's per-point one.
// A contact whose pair has geometric features (contact_features.h: a sphere on a box or a cylinder, a sphere or a
// capsule on a capsule, a capsule on a box) is taken on
// its feature extended beyond its region: the mode's own (ContactId::feature ≥ 0) everywhere, or,
// for the stencil of a contact without one, the centre's, so the stencil never looks past an edge.
#ifndef SALTATION_MODE_DYNAMICS_H_
#define SALTATION_MODE_DYNAMICS_H_

#include <Eigen/Dense>
#include <vector>

#include "saltation/contacts.h"
#include "saltation/model.h"
#include "saltation/psd_solver.h"
#include "saltation/tangent.h"

namespace saltation {

struct Island;        // islands.h
class IslandSolver;  // island_solve.h

// A mode: the active rigid contacts. MuJoCo's equality constraints are active in every mode.
struct Mode {
  std::vector<ContactId> contacts;
};

// The constraint rows of a mode at one configuration.
struct ConstraintSet {
  RowMatrix J;                       // (nrow × nv): contact rows in mode order, then equality rows
  std::vector<int> normal_row;       // row of each contact's normal (ncontact)
  std::vector<ContactPoint> points;  // the matched point of each contact (ncontact)
  int ncontact_rows = 0;
};

// (d after EvaluatePosition or EvaluatePositionForPairs, the mode's contacts, the points at d's
// configuration) => set: the rows of the mode, contact rows in mode order then equality rows,
// each contact on its matched point (MatchContacts, into work.match), or with a feature
// (ContactId::feature ≥ 0) on FeaturePoint, its matched point's first tangent kept (the equality rows pass
// through work.equality). ContactLostError (contact_lost_error.h, a NumericalError) when
// an active contact has no point within the detection margin. Allocates nothing once the sizes
// have been seen (the engine hook's per-step path).
void ModeConstraints(const Model& model, const mjData* d, const std::vector<ContactId>& contacts,
                     const std::vector<ContactPoint>& points, ConstraintSet& set, Workspace& work);

// Places the mocap bodies of data.main() and data.aux() where Options::mocap_motion puts them at
// time t and stamps both mjData's time with t (SurfaceVelocity reads it); no-op without a motion.
void ApplyMocapMotion(const Model& model, Data& data, double t);

// Sets the controls of data.main() and data.aux() from Options::control at x (time and state);
// no-op without a law. NumericalError when the law gives a control that is not finite.
void ApplyControlLaw(const Model& model, Data& data, const State& x);

// The velocity, along the point's frame rows (normal, tangents), of what no degree of freedom moves
// at contact p: the prescribed velocity of a geom's mocap body at d->time, geom2's minus geom1's,
// so that J v + SurfaceVelocity is the relative velocity the rows measure and its first entry is
// the touchdown guard's ∂g/∂t. Zero without Options::mocap_motion. (ContactRowCount(p) entries.)
Eigen::VectorXd SurfaceVelocity(const Model& model, const mjData* d, const ContactPoint& p);

// J̇ v for the rows of `contacts` (plus equality rows) at state x; uses data.aux() and data.work().
// Per contact: a pair with a closed form (contact_jdot.h: a sphere or a capsule end on a plane; two
// spheres; a sphere or a capsule on a capsule, on the centre's feature) takes it, at x alone (kinematics and mj_comVel on data.aux(), no position pass per stencil
// point); the other contacts and the equality rows by a five-point stencil of their rows along
// q ⊕ s·v (the translational rows of connect and weld equalities then exactly by mj_jacDot). With
// every contact closed-form and no equality rows, no stencil runs.
// A contact's tangent rows are differentiated in the frame of the centre (x's configuration) held
// fixed over the stencil: the stencil differentiates the point's world relative velocity
// frame(s)ᵀ(J(s)v) and projects it on the centre's tangents, so the bias does not depend on how
// MuJoCo picks the tangent basis at the stencil's points (a capsule's first tangent, the axis
// projected on the plane, changes sign as the capsule passes vertical). For a sticking contact
// (relative velocity zero) this is the exact relative acceleration bias in any frame; the normal
// row keeps n(s)ᵀ J_rel(s) v (the normal is geometric: its turning carries the centripetal term);
// the closed form is the same derivative, without the stencil's truncation.
// centre: the rows at x's configuration if the caller has them (else they are evaluated).
// island (optional, holding the contacts' trees): MuJoCo's passes of the stencil run on its trees
// alone, the others asleep in data.aux() (island_passes.h); the bias is the same.
Eigen::VectorXd ConstraintBias(const Model& model, Data& data, const State& x,
                               const std::vector<ContactId>& contacts,
                               const ConstraintSet* centre = nullptr, const Island* island = nullptr);

// Result of a mode evaluation; also leaves data.main() evaluated at x: kinematics, M and its
// factor, the velocity and actuation stages. Its contact list (d->contact) is NOT refreshed (the
// mode's points come from MuJoCo's narrow phase for its own pairs): run EvaluatePosition or
// mj_collision before reading it.
struct ModeDynamics {
  Eigen::VectorXd qacc;          // a (nv)
  Eigen::VectorXd qacc_smooth;   // a_s (nv)
  Eigen::VectorXd act_dot;       // (na)
  Eigen::VectorXd lambda;        // constraint force per row (nrow)
  Eigen::VectorXd normal_force;  // λ_n per contact of the mode (ncontact)
  RowMatrix JMinv;               // J M⁻¹ (nrow × nv)
  ConstraintSet constraints;
  int rank = 0;                  // numerical rank of J M⁻¹ Jᵀ
};

// Solves the KKT system of mode A at x (throws NumericalError on a non-finite state).
// island (optional; the mode's contacts lie in it: RestrictMode): the evaluation on the trees
// whose dynamics the island's depend on, ForceIsland(model, *island) (force_island.h), with
// MuJoCo's passes on those trees alone, every other tree asleep (island_passes.h): qacc,
// qacc_smooth (and act_dot, lambda, normal_force, JMinv, the rows) equal the whole evaluation's
// on those trees' dofs, and qacc and qacc_smooth are 0 on every other dof (not evaluated: a
// touchdown among many bodies costs its island, not the model). data.main() then holds only
// those trees' (and the static bodies') kinematics, M and its factor. Without an island, or when
// ForceIsland gives the whole model, the whole evaluation.
// solver (optional): receives the factorisation of J M⁻¹ Jᵀ the evaluation solved with (its
// pseudo-inverse, rank_tol), for a caller that solves with the mode's rows again (held_span.h).
ModeDynamics EvaluateMode(const Model& model, Data& data, const State& x, const Mode& mode,
                          const Island* island = nullptr, IslandSolver* solver = nullptr);

// F_A(x) = (v, a, act_dot) (ndx). island (optional, as EvaluateMode's): a is EvaluateMode's on
// the island, 0 on the dofs it does not evaluate. An event's F⁺ − F⁻ there is exactly 0 whole
// (the other trees' unconstrained dynamics at an unchanged state), so Ξ, which reads only
// F⁺ − DΔF⁻ and ∇gᵀF⁻, is the same.
Eigen::VectorXd ModeVectorField(const Model& model, Data& data, const State& x, const Mode& mode,
                                const Island* island = nullptr);

// ∂F_A/∂x (ndx × ndx) for propagation, at about the cost of MuJoCo's own mjd_transitionFD: forward
// differences in the configuration (each a full mode evaluation with J̇ in closed form when every
// contact of the mode has one and there are no equality rows — a sphere's or a capsule end's on a
// plane, two spheres', a sphere's or a capsule's on a capsule, contact_jdot.h: one position pass a
// column — else by a three-point stencil), and the
// velocity and activation columns from MuJoCo's velocity and actuation stages alone at the
// unperturbed configuration — the bias J̇(v)v is quadratic in v, so its velocity derivative
// J̇(v) + (∂J/∂q)[·]v is assembled from the rows of the configuration columns, and the
// factorisation of J M⁻¹ Jᵀ is shared. Held to the central-difference twin below in the tests.
Eigen::MatrixXd ModeVectorFieldJacobian(const Model& model, Data& data, const State& x,
                                        const Mode& mode, double eps = 1e-6);

// Finite-difference twin: ∂F_A/∂x (ndx × ndx) by central differences in tangent coordinates.
Eigen::MatrixXd ModeVectorFieldJacobianFD(const Model& model, Data& data, const State& x,
                                          const Mode& mode, double eps = 1e-6);

}  // namespace saltation

#endif  // SALTATION_MODE_DYNAMICS_H_
