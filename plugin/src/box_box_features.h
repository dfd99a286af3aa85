// Features of a box against a box (contact_features.h's fourth family; theory.md §3, §9): which
// of the pair's own points (box_box_points.cc, own_points.h) a contact is, held in the rigid mode.
//
// A box–box point is one of two features:
//   - vertex–face: vertex v of one box (the owner: 0 geom1, 1 geom2; v's bit a set: the vertex at
//     +half_a on axis a) over face (axis f, side s_f) of the other; its distance s_f p_f − half_f
//     (p: the vertex in the face box's frame), normal along the face's outward normal;
//   - edge–edge: geom1's edge along axis i against geom2's edge along axis k (each edge named by
//     its axis and its two signs: bit 0 the side on axis (axis + 1) % 3, bit 1 on (axis + 2) % 3),
//     the signed distance of the lines along their common perpendicular n = ±(e1 × e2)/|e1 × e2|,
//     n outward from geom2's edge (n · its bisector > 0).
// Codes: kBoxBoxFeatureBase + 48·owner + 6·v + 2·f + (s_f > 0) for vertex–face (96 codes), then
// kBoxBoxFeatureBase + 96 + 12·(4i + signs1) + (4k + signs2) for edge–edge (144 codes).
//
// The region of a feature, and where it leads (the guards, each ≥ 0 inside, firing from + to −):
//   - vertex–face: the vertex's foot within the face's rectangle, per rim axis a of the face
//     half_a ∓ p_a. Past it the vertex's edges' points take over on that rim (B's edge along the
//     third axis, through the face's side and a's side): the owner's edge at the vertex that goes
//     back over the face (s_a d_a < 0, d: from the vertex along the edge, in the face box's frame)
//     with the least slope above the face, (s_f d_f)/(−s_a d_a) — the edge that lies on the rim
//     once the vertex is past it.
//   - edge–edge: the common perpendicular's feet inside both open edges (segment_features.h on
//     the two edges as segments of radius zero: per edge, half ∓ t). Past an end of one edge that
//     edge's vertex takes over, over the face of the other box's edge that the vertex moves onto
//     when it slides along its own edge past the other's: of the other edge's two faces, the one
//     whose axis has the larger outward component of the direction from the vertex into its edge.
// Where the two features' normals differ (a tilted box: the corner's normal is the face's, its
// edge's across the rim is tilted by the box's tilt) the new feature's gap opens at once at the
// boundary (its normal velocity δ̇ sin θ > 0): FeatureEvent makes it a liftoff (events.h). Where
// they coincide (a face lying flat on a face, an edge parallel to the face) the distance is C¹
// across the boundary and only the bias J̇v jumps: a feature event. Not features: a vertex against
// an edge or a vertex (the degenerate boundary points themselves).
//
//   IsBoxBoxPair        (m, id)      => whether id's geoms are two boxes (our own points)
//   IsBoxBoxFeature     (feature)    => whether the code is one of the above
//   BoxBoxFeatureAt     (m, d, id)   => the feature of id's own point at d (the pair's own point
//                                       nearest id's anchor); −1 where the pair has none
//   BoxBoxFeatureName   (feature)    => "vertex-face", "edge-edge"
//   BoxBoxFeatureSurface(m, d, id, p)=> p: id.feature's point extended beyond its region (a face's
//                                       plane, the edges' lines), as box_box_points.cc lists it
//                                       inside the region; false for parallel edges
//   BoxBoxFeatureGuards (m, d, id)   => the region's guards at d (above), `to` the feature past each
//   BoxBoxGuardGradient (model, d, id, guard) => ∇h (ndx): a vertex–face guard's
//                                       sign · (row axis of R_faceᵀ)(J_vertex,owner − J_vertex,face box),
//                                       an edge–edge guard's SideGuardGradient; zero in v̇ and act
// Reads only d's kinematics (geom_xpos, geom_xmat; the Jacobians for the gradient); writes nothing.
// (BoxBoxFeatureAt computes the pair's own points in a thread-local buffer.)
#ifndef SALTATION_BOX_BOX_FEATURES_H_
#define SALTATION_BOX_BOX_FEATURES_H_

#include <mujoco/mujoco.h>

#include <Eigen/Dense>

#include "own_points.h"
#include "saltation/contact_features.h"
#include "saltation/contacts.h"
#include "saltation/model.h"

namespace saltation {

constexpr int kBoxBoxFeatureBase = 117;  // after the capsule–box codes (contact_features.cc)
constexpr int kBoxBoxVertexFaceCount = 96, kBoxBoxEdgeEdgeCount = 144;

// the codes (above); face = 2·axis + (side > 0), an edge = 4·axis + signs
inline int VertexFaceCode(int owner, int vertex, int face) { return kBoxBoxFeatureBase + 48 * owner + 6 * vertex + face; }
inline int EdgeEdgeCode(int edge1, int edge2) {
  return kBoxBoxFeatureBase + kBoxBoxVertexFaceCount + 12 * edge1 + edge2;
}

bool IsBoxBoxPair(const mjModel* m, const ContactId& id);
bool IsBoxBoxFeature(int feature);
int BoxBoxFeatureAt(const mjModel* m, const mjData* d, const ContactId& id);
const char* BoxBoxFeatureName(int feature);
bool BoxBoxFeatureSurface(const mjModel* m, const mjData* d, const ContactId& id, SurfacePoint& p);
FeatureGuardSet BoxBoxFeatureGuards(const mjModel* m, const mjData* d, const ContactId& id);
Eigen::VectorXd BoxBoxGuardGradient(const Model& model, const mjData* d, const ContactId& id,
                                    const FeatureGuard& guard);

}  // namespace saltation

#endif  // SALTATION_BOX_BOX_FEATURES_H_
