// Features of a pair of rounded segments (contact_features.h's second family): a sphere (geom1, a
// segment of length zero) or a capsule (geom1) against a capsule (geom2); and the segment geometry
// the third family's interior points share (a capsule's segment against a box edge, a segment of
// radius zero: contact_features.cc).
//
// MuJoCo's sphere–capsule and capsule–capsule points are the sphere–sphere contact of the segments'
// nearest points: on each capsule's segment (centre c_i, unit axis e_i = its z axis, half length
// L_i) the point at s_i ∈ [−L_i, L_i] along e_i. Where s_i lies inside the segment the contact is on
// the capsule's cylinder; where it is clamped to ±L_i, on its cap. The distance and its gradient are
// continuous across the boundary, its curvature is not (a cylinder bends the path in one direction,
// a cap in two; a ball on a horizontal capsule's top moves straight, past the end it circles the
// cap). The feature is σ_i ∈ {−1, 0, +1} per segment (a sphere's σ is 0), its code
// kSegmentFeatureBase + (σ_1 + 1) + 3(σ_2 + 1).
//
// A capsule–capsule pair's points are our own (own_points.h: each end sphere against the other's
// segment, the interior only away from parallel); each is one of these regions, and the held
// feature is the region of the contact's own point (the one whose anchor lies nearest).
//
//   IsSegmentPair      (m, id)     => whether id's pair is sphere–capsule or capsule–capsule
//   SegmentFeatureAt   (m, d, id)  => sphere–capsule: the feature of MuJoCo's nearest points at d (its
//                                     clipping rule), −1 where the segments touch; capsule–capsule:
//                                     the region of id's own point (nearest anchor), −1 for none
//   SegmentFeatureCode (σ_1, σ_2)  => the code of a region
//   SegmentsOf         (m, d, g1, g2) => the two geoms' segments at d
//   SegmentFeatureName (feature)   => "cylinder" (no end clamped), "cap" (one), "caps" (both)
//   SegmentNearest     (m, d, id, p1, p2) => the nearest points of id.feature extended beyond its
//                      region: a clamped segment's end, a free one's point on its line (the other's
//                      nearest point projected; both free: the lines' common perpendicular);
//                      false where two free lines are parallel
//   SegmentFeatureGuards (m, d, id) => per capsule i, q_i = e_i·(P_j − c_i) (P_j the other's nearest
//                      point): free, L_i ∓ q_i (→ σ_i = ±1); clamped, σ_i q_i − L_i (→ σ_i = 0);
//                      each ≥ 0 inside the region (the nearest-point conditions), fires + → −;
//                      capsule–capsule: an end's guard into its segment's interior is the larger of
//                      that and threshold − (1 − (e_1·e_2)²) (CapsuleInteriorThreshold, own_points.h):
//                      below the threshold an end stays an end, it hands over where both are past
//                      (axis kLinesAngleGuard while the angle's term is the larger); the interior's
//                      region ends at the threshold too, a guard
//                      (1 − (e_1·e_2)²) − threshold (axis kLinesAngleGuard) handing the contact to
//                      the nearest of the four ends (SegmentEnds: the least separation, its region
//                      with the foot clamped where it lies past the other's end)
//   SegmentGuardGradient (model, d, id, guard) => ∇h (ndx): sign · dq_i/dt as a row in v, from the
//                      point Jacobians of both bodies at both nearest points (b_i = e_iᵀ(J_j − J_i)
//                      at P_j; a free s_j moves as ṡ_j = b_j + (e_i·e_j) ṡ_i), zero in v̇ and act
// The same on any two segments (Segments: a capsule pair's, or a capsule's and a box edge's), the
// region given as σ per side:
//   NearestParams      (s, sigma, t)      => the parameters along e_i of the nearest points of the
//                      region extended (as SegmentNearest); false where two free lines are parallel
//   AppendSideGuards   (s, sigma, i, set) => side i's guards of the region (as SegmentFeatureGuards),
//                      `axis` i and `to` the σ_i past the boundary (the caller's family turns it
//                      into its own code); nothing where NearestParams fails
//   SideGuardGradient  (model, d, s, sigma, guard) => ∇h of such a guard (as SegmentGuardGradient)
//   SegmentEnds        (s) => each end sphere's point against the other segment (SegmentEnd below);
//                      the one computation of the ends for capsule_capsule_points.cc's listing and
//                      the interior's hand-over
// Reads only d's kinematics (geom_xpos, geom_xmat; the Jacobians for the gradient); writes nothing.
#ifndef SALTATION_SEGMENT_FEATURES_H_
#define SALTATION_SEGMENT_FEATURES_H_

#include <mujoco/mujoco.h>

#include <Eigen/Dense>
#include <array>

#include "saltation/contact_features.h"
#include "saltation/contacts.h"
#include "saltation/model.h"

namespace saltation {

constexpr int kSegmentFeatureBase = 27;  // after a box's 27 codes
// FeatureGuard::axis of a capsule–capsule interior's guard on the angle of the lines (not a side)
constexpr int kLinesAngleGuard = 2;

// two segments in the world: centre c_i, unit axis e_i, half length L_i (a sphere: 0, no length),
// the body carrying each
struct Segments {
  Eigen::Vector3d c[2], e[2];
  double half[2] = {0, 0};
  bool has_length[2] = {false, false};
  int body[2] = {-1, -1};
};

bool IsSegmentPair(const mjModel* m, const ContactId& id);
int SegmentFeatureCode(int sigma1, int sigma2);
Segments SegmentsOf(const mjModel* m, const mjData* d, int g1, int g2);
int SegmentFeatureAt(const mjModel* m, const mjData* d, const ContactId& id);
const char* SegmentFeatureName(int feature);
bool SegmentNearest(const mjModel* m, const mjData* d, const ContactId& id, Eigen::Vector3d& p1,
                    Eigen::Vector3d& p2);
FeatureGuardSet SegmentFeatureGuards(const mjModel* m, const mjData* d, const ContactId& id);
Eigen::VectorXd SegmentGuardGradient(const Model& model, const mjData* d, const ContactId& id,
                                     const FeatureGuard& guard);

bool NearestParams(const Segments& s, const int sigma[2], double t[2]);

// An end sphere of segment `side` against the other segment j (a capsule pair's own end point,
// own_points.h): its region σ (σ_side = `end`, σ_j the end of j its foot is clamped to, else 0),
// the parameters t of the two nearest points along e_1, e_2 (the end's, and its foot on j's line
// clamped to j's ends), the clamped foot, and `separation`, the distance between the two points
// (the pair's distance plus r_1 + r_2).
struct SegmentEnd {
  int side = 0, end = 0;
  int sigma[2] = {0, 0};
  double t[2] = {0, 0};
  Eigen::Vector3d foot;
  double separation = 0;
};
// the four ends of two segments with length, in the order side 0's −, +, side 1's −, +
std::array<SegmentEnd, 4> SegmentEnds(const Segments& s);
void AppendSideGuards(const Segments& s, const int sigma[2], int side, FeatureGuardSet& set);
Eigen::VectorXd SideGuardGradient(const Model& model, const mjData* d, const Segments& s, const int sigma[2],
                                  const FeatureGuard& guard);

}  // namespace saltation

#endif  // SALTATION_SEGMENT_FEATURES_H_
