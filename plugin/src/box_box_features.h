// Features of a box against a box (contact_features.h's fourth family): which of box_box_points.cc's
// own points a contact is, held in the rigid mode like a sphere's or a capsule's feature.
//
//   "vertex-face": a vertex of one box over a face of the other — a sphere of radius 0 centred at
//     the vertex on the box's face (the first family's face). Code kVertexFaceBase + 48·side +
//     6·v + 2·axis + (sign > 0): side 0 a vertex of geom1 over a face of geom2, 1 the reverse; v the
//     vertex (bit a set: +size_a along the vertex box's axis a); the face's axis and side on the
//     other box.
//   "edge-edge": an edge of geom1 against an edge of geom2 — a segment of radius 0 across a box edge
//     (the third family's cylinder-edge; segment_features.h's two free sides). Code kEdgeEdgeBase +
//     12·edge1 + edge2, an edge being 4·axis + s (its signs on the other two axes (a+1)%3, (a+2)%3:
//     bit 0, bit 1 set for +).
// The point of a feature extended beyond its region (BoxBoxFeaturePoint) is box_box_points.cc's
// point of that vertex–face or edge–edge, whatever the listing: the vertex's height over the face's
// plane along its normal; the edge lines' distance along n = ±(e1 × e2)/|e1 × e2|, oriented outward
// from geom2's edge (signed: negative penetrating), so the bias stencil never looks at another point.
// The region's boundary is a guard, each ≥ 0 inside and firing + → −, with the feature past it:
//   vertex–face: the vertex's coordinate along each of the face's two in-plane axes reaching the
//     face's rim (size_a ∓ p_a, the first family's guard) → the edge–edge point of the rim edge and
//     the vertex's edge across it: of the vertex's three edges the one whose pair's normal lies
//     nearest the face's (the normal runs on continuously; a vertical edge's pair with the rim,
//     normal along the face, is not it), ties by the least out of both edges' normal cones
//     (box_box_points' measure; at the boundary the vertex lies on the rim's line, where the lines
//     meet and the point continues);
//   edge–edge: each foot reaching either end of its edge (segment_features.h's free-side guards on
//     the two edges as segments of radius 0) → the vertex at that end over the face of the other
//     box next to the other edge whose outward normal is nearest to the pair's normal.
// The successor is decided by the geometry at the guard's state, not by the listing (near a rim the
// listing keeps one of two coincident points, own_points.h). Where it is not the pair's point past
// the boundary (a vertex passing a rim straight onto another edge, a corner across a corner) the
// successor's own guard is then already negative and the reference takes its next boundary from
// there (left open).
//
//   IsBoxBoxFeature     (feature)        => whether the code is one of these
//   BoxBoxFeatureName   (feature)        => "vertex-face", "edge-edge"
//   BoxBoxFeatureOf     (corner/edges)   => the codes (box_box_points.cc tags its points with them)
//   BoxBoxFeaturePoint  (m, d, id, on1, normal, dist) => id.feature's point extended: on geom1's
//                        surface, the unit normal geom1 → geom2, the signed distance
//   BoxBoxFeatureGuards (m, d, id)       => the region's guards (FeatureGuard: axis is the face's
//                        in-plane axis for a vertex–face, the side for an edge–edge)
//   BoxBoxGuardGradient (model, d, id, guard) => ∇h (ndx), zero in v̇ and act
// Reads only d's kinematics (geom_xpos, geom_xmat; the Jacobians for the gradient); writes nothing.
#ifndef SALTATION_BOX_BOX_FEATURES_H_
#define SALTATION_BOX_BOX_FEATURES_H_

#include <mujoco/mujoco.h>

#include <Eigen/Dense>

#include "saltation/contact_features.h"
#include "saltation/contacts.h"
#include "saltation/model.h"

namespace saltation {

// after the capsule–box codes (contact_features.cc: 90 + 27)
constexpr int kVertexFaceBase = 117;
constexpr int kEdgeEdgeBase = kVertexFaceBase + 96;
constexpr int kBoxBoxFeatureEnd = kEdgeEdgeBase + 144;

bool IsBoxBoxFeature(int feature);
const char* BoxBoxFeatureName(int feature);
// side: 0 the vertex is geom1's; vertex: bits as above; face_axis, face_sign (±1) on the other box
int VertexFaceFeature(int side, int vertex, int face_axis, int face_sign);
// an edge: its axis and its signs (±1) on the other two axes (sign[axis] ignored)
int EdgeCode(int axis, const int sign[3]);
int EdgeEdgeFeature(int edge1, int edge2);

void BoxBoxFeaturePoint(const mjModel* m, const mjData* d, const ContactId& id, Eigen::Vector3d& on1,
                        Eigen::Vector3d& normal, double& dist);
FeatureGuardSet BoxBoxFeatureGuards(const mjModel* m, const mjData* d, const ContactId& id);
Eigen::VectorXd BoxBoxGuardGradient(const Model& model, const mjData* d, const ContactId& id,
                                    const FeatureGuard& guard);

}  // namespace saltation

#endif  // SALTATION_BOX_BOX_FEATURES_H_
