// The time derivative J̇ of a contact's rows along the motion, in closed form, for the pairs whose
// contact point MuJoCo places by a formula of points fixed on, or sliding along, the bodies:
//  - a sphere, or either end sphere of a capsule, against a plane (mjc_PlaneSphere: with s the
//    sphere's centre, r its radius, n the plane's normal through p₀, d = nᵀ(s − p₀) − r and the
//    point c = s − n(r + d/2)): ṅ = ω₁ × n, ḋ = nᵀ(v₂(s) − v₁(s)), ċ = v₂(s) − ṅ(r + d/2) − n ḋ/2;
//  - two rounded segments, sphere–sphere, sphere–capsule, capsule–capsule (mjraw_SphereSphere of
//    the segments' nearest points p₁, p₂: segment_features.h, on the held feature or the one at d):
//    Δ = p₂ − p₁, n = Δ/|Δ|, d = |Δ| − r₁ − r₂, c = p₁ + n(r₁ + d/2). An end or a sphere's centre
//    is fixed on its body; a point of a capsule's open segment, p_i = c_i + t_i e_i, slides along
//    it at ṫ_i from the nearest-point conditions e_iᵀΔ = 0 of the free sides
//    ((ω_i × e_i)ᵀΔ + e_iᵀ(Δ̇) = 0, Δ̇ = v₂(p₂) − v₁(p₁) + ṫ₂e₂ − ṫ₁e₁); then ṅ = (I − nnᵀ)Δ̇/|Δ|,
//    ḋ = nᵀΔ̇, ċ = ṗ₁ + ṅ(r₁ + d/2) + n ḋ/2.
//  - a cylinder on a plane (own_points.h, our own points): within the flat threshold a rim corner,
//    fixed on the body, as a sphere of radius 0 on the plane; beyond it a cap's lowest rim point
//    p = k + r u (k the cap's centre, u the unit radial part of −n), sliding round the rim as u
//    turns: ṗ = v₂(k) + r u̇, ḋ = nᵀ(ṗ − v₁(p)), ċ = ṗ − ṅ d/2 − n ḋ/2 (contact_jdot.cc). No
//    stencil straddles the kink of a disc rocking through flat (the lowest point's jump to the
//    opposite side) or the hand-over between the two lists;
// With J_b(c) the translational Jacobian of the world point c moving with body b, J_rel = J₂(c) −
// J₁(c) and ω_b = Jr_b v:
//   d/dt J_b(c) = J̇_b(c) + [Jr_b · × (ċ − v_b(c))]   (mj_jacDot's J̇_b(c) holds c fixed on b)
//   normal row:   ṅᵀ J_rel + nᵀ J̇_rel   (the normal's turning carries the centripetal term)
//   tangent rows: tᵀ J̇_rel with the point's own tangents held fixed (the frame-free form of
//                 mode_dynamics.h's ConstraintBias: MuJoCo's choice of tangent basis never enters)
// MuJoCo puts planes on static bodies only (the world, or a mocap body, which no dof moves), so
// along q ⊕ s·v the plane stands still and ṅ, v₁, Jr₁ vanish; the terms are kept so the formula
// reads as the general one.
// This is what the J̇v stencil differentiates (the rows recomputed at q ⊕ s·v), without its
// truncation and without its position passes: the contact point rolls and slides over the
// surfaces through ċ, which the pair's formula gives exactly (tests/pair_bias_test.cc: against a
// frame-free twin 1.4e-12…6.8e-12 where the five-point stencil was off by up to 3.3e-10, and 4.3e-6
// with two capsules 0.02 rad from parallel). Other pairs (box, a cylinder other than on a plane, ellipsoid, mesh, a box
// feature: contact_features.h) have no formula here and keep the stencil.
// Reads: d's kinematics (geom_xpos, geom_xmat, subtree_com, cdof) and cdof_dot, cvel of mj_comVel
// at qvel. Writes only `rows`.
#ifndef SALTATION_CONTACT_JDOT_H_
#define SALTATION_CONTACT_JDOT_H_

#include <mujoco/mujoco.h>

#include <Eigen/Dense>

#include "saltation/contacts.h"

namespace saltation {

// Whether the pair of a contact is one ContactJdot has a formula for: geom1 a plane and geom2 a
// sphere, a capsule (no held feature) or a cylinder, two spheres, or a sphere or a capsule on a capsule (any
// feature: segment_features.h).
bool HasContactJdot(const mjModel* m, const ContactId& id);

// (d at q after the position stage and mj_comVel at qvel, p a point of that configuration of a
// HasContactJdot pair) => rows (ContactRowCount(p) × nv): J̇ of p's rows along qvel, tangent rows
// on p's own tangents. false (rows untouched) when p is not where the formula puts the point to
// 1e-9 of the radii (MuJoCo placed it otherwise), or two capsules' segments have no unique nearest
// points (parallel: MuJoCo gives two points) or touch.
bool ContactJdot(const mjModel* m, const mjData* d, const ContactPoint& p, const double* qvel,
                 Eigen::Ref<RowMatrix> rows);

}  // namespace saltation

#endif  // SALTATION_CONTACT_JDOT_H_
