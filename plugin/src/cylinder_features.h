// Features of a sphere (geom1) on a cylinder (geom2), contact_features.h's fourth family (issue 14,
// theory.md §9 item 7).
//
// MuJoCo's sphere–cylinder point (mjc_SphereCylinder) depends on where the sphere centre lies in
// the cylinder's frame (radius R, half height h; c its coordinates, ρ = |(c_x, c_y)|, z = c_z):
//   side  (ρ > R, |z| < h): the sphere–sphere contact of the centre and the axis point (0, 0, z)
//                           with radius R — the infinite cylinder;
//   face  (ρ < R, |z| > h): the plane of the flat face at z = ±h (normal ∓ the axis, geom1 → geom2);
//   rim   (ρ > R, |z| > h): the sphere–sphere contact of the centre and the rim circle's nearest
//                           point (R c_xy/ρ, ±h), radius 0 — a torus of tube radius 0;
//   inside (ρ < R, |z| < h): whichever of side and face is shallower — no feature here (−1), as a
//                           centre inside a box: MuJoCo's own point is used.
// The distance and its gradient are continuous across the boundaries, its curvature is not (a flat
// face has none, the rim bends the path in every direction, the side in one), so the feature is held
// in the mode and its boundary is a guard. Codes: kCylinderFeatureBase + 0 (side), + 1/+2 (face at
// −h/+h), + 3/+4 (rim at −h/+h); named "cyl-side", "cyl-face", "cyl-rim".
//
//   IsSphereCylinder   (m, id)  => whether id's pair is a sphere (geom1) on a cylinder (geom2)
//   IsCylinderFeature  (feature) => whether the code is one of this family's
//   CylinderFeatureAt  (m, d, id) => the feature of the centre at d: side where ρ > R and |z| ≤ h,
//                                    face where ρ ≤ R and |z| > h, rim where both exceed, −1 inside
//                                    (ρ ≤ R, |z| ≤ h); the boundaries go to the side and the face as
//                                    a box's go to its face (MuJoCo's own tests are strict: there
//                                    the two features' points coincide)
//   CylinderFeatureName (feature) => "cyl-side", "cyl-face", "cyl-rim"
//   CylinderFeatureCore (m, d, id, core, radius) => the point of id.feature extended beyond its
//                      region nearest the centre (world) and the radius about it: side, the axis
//                      point and R; face, the centre projected on the face's plane and 0; rim, the
//                      rim circle's point towards the centre and 0 (FeaturePoint makes MuJoCo's
//                      sphere–sphere contact of it and the centre)
//   CylinderFeatureGuards (m, d, id) => each ≥ 0 inside the region, fires + → −, with the feature
//                      past it: side, h ∓ z (→ rim ±); face ±, R − ρ (→ rim ±); rim ±, ρ − R
//                      (→ face ±) and ±z − h (→ side). FeatureGuard::axis 2 is z, kRadialAxis ρ
//   CylinderGuardGradient (model, d, id, guard) => ∇h (ndx): (sign · uᵀRᵀ(J_c,sphere − J_c,cyl), 0),
//                      u = e_z for z, (c_x, c_y, 0)/ρ for ρ
// Reads only d's kinematics (geom_xpos, geom_xmat; the Jacobians for the gradient); writes nothing.
#ifndef SALTATION_CYLINDER_FEATURES_H_
#define SALTATION_CYLINDER_FEATURES_H_

#include <mujoco/mujoco.h>

#include <Eigen/Dense>

#include "saltation/contact_features.h"
#include "saltation/contacts.h"
#include "saltation/model.h"

namespace saltation {

// well past the box (0–26), capsule (27–116) and any box–box codes
constexpr int kCylinderFeatureBase = 1000;
// FeatureGuard::axis of a guard on the centre's radial distance ρ from the cylinder's axis
constexpr int kRadialAxis = 3;

bool IsSphereCylinder(const mjModel* m, const ContactId& id);
bool IsCylinderFeature(int feature);
int CylinderFeatureAt(const mjModel* m, const mjData* d, const ContactId& id);
const char* CylinderFeatureName(int feature);
void CylinderFeatureCore(const mjModel* m, const mjData* d, const ContactId& id, Eigen::Vector3d& core,
                         double& radius);
FeatureGuardSet CylinderFeatureGuards(const mjModel* m, const mjData* d, const ContactId& id);
Eigen::VectorXd CylinderGuardGradient(const Model& model, const mjData* d, const ContactId& id,
                                      const FeatureGuard& guard);

}  // namespace saltation

#endif  // SALTATION_CYLINDER_FEATURES_H_
