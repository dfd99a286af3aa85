// The rocking of a capsule held on another capsule's interior near parallel (issue 14): on the
// lines' common perpendicular the contact's foot moves along the capsules by ρ = |P₂ − P₁|/(1 − c²)
// per radian of relative pitch (c = e₁·e₂, P_i the perpendicular's feet), a ridge so flat that the
// weight's moment λ_n ρ θ makes a stiff rocking mode, ω² = λ_n ρ / I with 1/I = uᵀ(R₁ − R₂)M⁻¹(R₁ −
// R₂)ᵀu the relative rotation's mobility about the pitch axis u = e₁ × n, under the mode's rows (R_b body b's rotational
// Jacobian). RK4 is unstable for ω h > 2√2: at the default step (1 ms) a log 4e-4 rad from parallel
// (ω ≈ 4e4 rad/s) blows up within a step and its foot flies to an end.
//
//   InteriorRockingRate (model, d, id, normal_force, held) => ω (rad/s) of id if it is a
//       capsule–capsule contact held on the interior (segment_features.h, own_points.h), λ_n =
//       normal_force, the mobility that of the system held by the rows `held` (the mode's rows,
//       nrow × nv, id's own among them; none: 0 rows, the rotation about the centre of mass): a log
//       also held on an end does not rock; 0 for any other contact, λ_n ≤ 0, lines parallel or no
//       mobility left. d: kinematics and the factored mass matrix at
//       the state (EvaluateMode's data.main()); reads them only (mj_solveM).
//   StiffRockingError (model, data, s, step) => "" when every such contact of s.mode rocks at
//       ω·step ≤ 2√2, else the message of the NumericalError (the contact, ω, 1 − c², the step RK4
//       needs). Evaluates s.mode at s.x (EvaluateMode) only when the mode holds such a contact:
//       overwrites data.main(). RigidSimulator::Advance checks it after every event
//       only (not at Initialize, nor as ω grows within a mode between events).
#ifndef SALTATION_CAPSULE_ROCKING_H_
#define SALTATION_CAPSULE_ROCKING_H_

#include <mujoco/mujoco.h>

#include <string>

#include "saltation/contacts.h"
#include "saltation/events.h"
#include "saltation/model.h"

namespace saltation {

double InteriorRockingRate(const Model& model, mjData* d, const ContactId& id, double normal_force,
                           const RowMatrix& held);
std::string StiffRockingError(const Model& model, Data& data, const HybridState& s, double step);

}  // namespace saltation

#endif  // SALTATION_CAPSULE_ROCKING_H_
