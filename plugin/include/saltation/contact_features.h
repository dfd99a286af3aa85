// Features of the contact geometry as part of the rigid mode (theory.md §9, issue 14 items 2–3).
//
// Four families of pairs have features. (1) A sphere on a box, below. (2) A sphere or a capsule on
// a capsule (plugin/src/segment_features.h): whether each capsule's nearest point lies on its
// cylinder or is clamped to an end, on its cap — codes 27–35, named "cylinder", "cap" (one end
// clamped), "caps" (both). (3) A capsule (geom1) on a box (geom2), our own points
// (capsule_box_points.cc): a point of one of the capsule's end spheres is (1) with the sphere's
// centre at that end — codes 36 + box code (the end at −h) and 63 + box code (at +h), named
// "cap-face", "cap-edge", "cap-vertex"; a point of the segment's interior (a capsule lying across a
// box edge or corner) is the segment against that edge (a segment of radius 0, segment_features.h)
// or vertex — codes 90 + box code, named "cylinder-edge", "cylinder-vertex"; which own point a
// contact is, is told by the nearest anchor among the pair's own points. (The interior on a face
// is no feature: the segment's nearest point to a plane is an end unless it lies parallel, where
// another of the pair's points touches at the same instant — the other end, or where the segment
// crosses the face's rim: that edge's interior point is listed over the face too, own_points.h.)
// (4) A sphere (geom1) on a cylinder (geom2) (plugin/src/cylinder_features.h): the centre's nearest
// point on the lateral surface, a flat face or the rim circle — codes 1000 (side), 1001/1002 (the
// face at −h/+h), 1003/1004 (the rim at −h/+h), named "cyl-side", "cyl-face", "cyl-rim"; its
// guards are on the centre's height z and radial distance ρ in the cylinder's frame.
// (5) A box on a box, our own points (box_box_points.cc): a vertex of one over a face of the other,
// "vertex-face", or an edge of each across the other, "edge-edge" — codes 117 on
// (box_box_features.h: (1)'s face with a sphere of radius 0 at the vertex, (3)'s cylinder-edge with
// a box edge for the segment); the point of each is tagged with its code (ContactPoint::own_feature)
// and a contact holding one matches that point (MatchContacts). Every function below serves all
// five; the contracts are the same (for (3) read "the sphere centre" as "the capsule's end" or
// "the segment's point nearest to the edge or vertex").
//
// Where a box's nearest point to a sphere lies — on a face, an edge or a vertex — decides the
// constraint's curvature: the distance is smooth across the boundary between two features (it and
// its gradient are continuous) but its second derivative along the motion, J̇v, jumps. The exact
// rigid reference holds the feature in the mode (ContactId::feature) and treats the boundary as a
// guard; the bias stencil differentiates the centre's feature only, never looking past the edge.
//
// A feature is σ ∈ {−1, 0, +1}³: per box axis a, whether the nearest point clamps the sphere
// centre's box-frame coordinate c_a to −size_a, leaves it (|c_a| ≤ size_a), or clamps it to
// +size_a; its code is Σ (σ_a + 1)·3^a. One clamped axis is a face, two an edge, three a vertex;
// none (the centre inside the box) is not a feature (−1: MuJoCo's own point is used).
//
//   HasFeatures   (m, id)         => whether the pair has features: a sphere or a capsule (geom1) on a
//                                    box (geom2), a sphere or a capsule (geom1) on a capsule (geom2),
//                                    a sphere (geom1) on a cylinder (geom2), a box on a box
//   FeatureAt     (m, d, id)      => the feature at d's kinematics; −1 for other pairs or a centre
//                                    inside the box or the cylinder
//   FeatureName   (feature)       => "face", "edge", "vertex"; "cylinder", "cap", "caps"; "cap-face",
//                                    "cap-edge", "cap-vertex"; "cylinder-edge", "cylinder-vertex";
//                                    "cyl-side", "cyl-face", "cyl-rim"; "vertex-face", "edge-edge"
//                                    ("" for −1)
//   FeaturePoint  (model, d, id, hint) => the point of id.feature extended beyond its region (a face's
//                   plane, an edge's line, a vertex's point; the infinite cylinder, a flat face's
//                   plane, the rim circle), at d's kinematics: gap, pos and normal as
//                   MuJoCo's sphere–box (sphere–cylinder) collision gives them inside the region, the frame completed as
//                   mj_collision does (hint: the first tangent to keep, or null); condim of the pair
//   FeatureGuards (m, d, id)      => the guards of id.feature's region at d's kinematics: per clamped
//                   axis σ_a c_a − size_a (→ unclamped), per free axis size_a ∓ c_a (→ clamped ±);
//                   each ≥ 0 inside the region, fires from + to −, with the feature it leads to.
//                   A sphere on a cylinder: h ∓ z (side → rim ±), R − ρ (face → rim), ρ − R and
//                   ±z − h (rim → face, side): cylinder_features.h.
//                   A capsule on a box, on the parameters of its segment and the box edge
//                   (segment_features.h, FeatureGuard::edge): a cap-edge or cap-vertex adds the
//                   segment's foot leaving the end (σ_end·e·(P − c) − h → the cylinder on the same
//                   edge or vertex); a cylinder-edge has the foot reaching either end (h ∓ t →
//                   cap-edge) and the edge's foot reaching either vertex (half ∓ u → cylinder-vertex);
//                   a cylinder-vertex the foot reaching either end (→ cap-vertex) and, per box axis,
//                   the foot leaving the vertex along that edge (σ_a p_a − half_a → cylinder-edge).
//                   A box on a box (box_box_features.h): a vertex–face the vertex reaching the face's
//                   rim along each in-plane axis (→ the edge–edge of the rim and the vertex's edge
//                   across it), an edge–edge each foot reaching either end of its edge (→ that vertex
//                   over the other box's face next to its edge)
//   FeatureGuardGradient (model, d, id, guard) => ∇h (ndx): (s · row a of Rᵀ(J_c,sphere − J_c,box), 0)
//                   (a capsule's, and a capsule–box guard on the segments: segment_features.h; a
//                   cylinder's on ρ: the radial unit vector for the row, cylinder_features.h)
//   FollowHeldPoints (model, d, points, contacts) => every held contact's anchor moved to its point
//                   at d: a capsule–box, capsule–capsule or box–box contact holding a feature to its
//                   feature's point (FeaturePoint), a contact holding none to the point of `points` (d's listed
//                   points of the contacts' pairs) it matches (MatchContacts); a sphere's contact
//                   holding a feature is its pair's one point and keeps its anchor. A pair with
//                   several points tells them apart by the nearest anchor, and a held point sliding
//                   far from where it was first seen must keep matching its own: a log sliding down a
//                   box edge on its cylinder towards its upper end's point; an edge–edge point of two
//                   boxes running along their nearly parallel edges until another listed point of the
//                   pair lay nearer to its first anchor (Pile(35) at 0.4639 s, the mode held that one
//                   and the real point came back as a touchdown; HeldAnchor.*)
//   WithFeatures  (m, d, contacts) => contacts with feature −1 of a featured pair resolved at d
//   NeedsFeatures (m, contacts)   => whether some featured pair has feature −1
// Reads only d's kinematics (geom_xpos, geom_xmat; the Jacobians for the gradient); writes nothing
// (but FollowHeldPoints' contacts).
// (FeatureAt of a capsule–box or box–box pair computes the pair's own points in a thread-local buffer.)
#ifndef SALTATION_CONTACT_FEATURES_H_
#define SALTATION_CONTACT_FEATURES_H_

#include <mujoco/mujoco.h>

#include <Eigen/Dense>
#include <vector>

#include "saltation/contacts.h"
#include "saltation/model.h"

namespace saltation {

bool HasFeatures(const mjModel* m, const ContactId& id);
int FeatureAt(const mjModel* m, const mjData* d, const ContactId& id);
const char* FeatureName(int feature);

ContactPoint FeaturePoint(const Model& model, const mjData* d, const ContactId& id,
                          const Eigen::Vector3d* tangent_hint = nullptr);

// h = sign · c_axis + offset (c: the sphere centre in the box's frame; for a capsule pair, axis is
// the segment i (0: geom1's) and c_axis its q_i, segment_features.h)
struct FeatureGuard {
  double value = 0;
  int axis = 0;
  double sign = 1, offset = 0;
  int to = -1;  // the feature past the boundary
  double length = 0;  // the size the guard compares with (the box's half size, the capsule's half length)
  // a capsule–box guard on the parameters of the capsule's segment and a box edge (segment_features.h:
  // axis is the side, 0 the capsule's, 1 the edge's): the edge's axis; −1 a guard on a box coordinate
  int edge = -1;
  // the pair's listed points change at this boundary (a capsule pair's lines passing the interior
  // threshold, own_points.h): its event is taken at the located bracket's far side, where the
  // listing is already the new feature's
  bool listing_changes = false;
};
struct FeatureGuardSet {
  int count = 0;
  FeatureGuard guard[6];
};
FeatureGuardSet FeatureGuards(const mjModel* m, const mjData* d, const ContactId& id);
Eigen::VectorXd FeatureGuardGradient(const Model& model, const mjData* d, const ContactId& id,
                                     const FeatureGuard& guard);

// (returns whether it moved an anchor: false when every anchor is, bit for bit, where it was)
bool FollowHeldPoints(const Model& model, const mjData* d, const std::vector<ContactPoint>& points,
                      std::vector<ContactId>& contacts);
std::vector<ContactId> WithFeatures(const mjModel* m, const mjData* d, const std::vector<ContactId>& contacts);
bool NeedsFeatures(const mjModel* m, const std::vector<ContactId>& contacts);

}  // namespace saltation

#endif  // SALTATION_CONTACT_FEATURES_H_
