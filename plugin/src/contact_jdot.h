// The time derivative J̇ of a contact's rows along the motion, in closed form, for the pairs whose
// contact point MuJoCo places by a formula of points fixed on the bodies: a sphere, or either end
// sphere of a capsule, against a plane (mjc_PlaneSphere: with s the sphere's centre, r its radius,
// n the plane's normal through p₀, d = nᵀ(s − p₀) − r and the point c = s − n(r + d/2)).
//
// With J_b(c) the translational Jacobian of the world point c moving with body b, J_rel = J₂(c) −
// J₁(c) and ω_b = Jr_b v:
//   d/dt J_b(c) = J̇_b(c) + [Jr_b · × (ċ − v_b(c))]   (mj_jacDot's J̇_b(c) holds c fixed on b)
//   ṅ = ω₁ × n,  ḋ = nᵀ(v₂(s) − v₁(s)),  ċ = v₂(s) − ṅ(r + d/2) − n ḋ/2
//   normal row:   ṅᵀ J_rel + nᵀ J̇_rel   (the normal's turning carries the centripetal term)
//   tangent rows: tᵀ J̇_rel with the point's own tangents held fixed (the frame-free form of
//                 mode_dynamics.h's ConstraintBias: MuJoCo's choice of tangent basis never enters)
// MuJoCo puts planes on static bodies only (the world, or a mocap body, which no dof moves), so
// along q ⊕ s·v the plane stands still and ṅ, v₁, Jr₁ vanish; the terms are kept so the formula
// reads as the general one.
// This is what the J̇v stencil differentiates (the rows recomputed at q ⊕ s·v), without its
// truncation and without its position passes: the contact point rolls and slides over the
// surfaces through ċ, which the pair's formula gives exactly. Other pairs (box, cylinder,
// ellipsoid, mesh, capsule–capsule, a held feature: contact_features.h) have no formula here and
// keep the stencil.
// Reads: d's kinematics (geom_xpos, geom_xmat, subtree_com, cdof) and cdof_dot, cvel of mj_comVel
// at qvel. Writes only `rows`.
#ifndef SALTATION_CONTACT_JDOT_H_
#define SALTATION_CONTACT_JDOT_H_

#include <mujoco/mujoco.h>

#include <Eigen/Dense>

#include "saltation/contacts.h"

namespace saltation {

// Whether the pair of a contact (no held feature) is one ContactJdot has a formula for: geom1 a
// plane, geom2 a sphere or a capsule.
bool HasContactJdot(const mjModel* m, const ContactId& id);

// (d at q after the position stage and mj_comVel at qvel, p a point of that configuration of a
// HasContactJdot pair) => rows (ContactRowCount(p) × nv): J̇ of p's rows along qvel, tangent rows
// on p's own tangents. false (rows untouched) when p is not where the formula puts the sphere's (or
// either capsule end's) point to 1e-9 of the radius: MuJoCo placed it otherwise.
bool ContactJdot(const mjModel* m, const mjData* d, const ContactPoint& p, const double* qvel,
                 Eigen::Ref<RowMatrix> rows);

}  // namespace saltation

#endif  // SALTATION_CONTACT_JDOT_H_
