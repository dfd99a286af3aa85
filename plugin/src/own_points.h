// Contact points this library computes itself where MuJoCo's narrow phase gives too few for a
// rigid model: a height field against a box or a sphere (hfield_points.cc), a plane against a
// mesh (plane_points.cc), a capsule against a box (capsule_box_points.cc), a box against a box
// (box_box_points.cc), a capsule against a capsule (capsule_capsule_points.cc), a plane against a
// cylinder (plane_cylinder_points.cc); the dispatch in own_points.cc.
//
// Height fields, from their own triangles:
// MuJoCo's height-field collision (mjc_ConvexHField) runs one convex test per triangular prism
// and keeps one point per prism, the deepest: a box corner near the surface is not listed while
// another part of the box is deeper in the same prism, so the rigid reference saw corners "appear
// penetrating" and the hook saw them late. These points are the ones a rigid model needs:
//   - every box vertex against the triangle under it (its distance along that triangle's normal:
//     zero exactly when the vertex lies on the surface, with the face's normal);
//   - every grid vertex of the height field that is a local peak towards the box against the
//     box's face or edge nearest to it (a box face resting on a bump);
//   - a sphere: its centre's nearest point over the triangles near it, minus the radius.
// Not represented: a box edge crossing a terrain ridge (edge against edge), the height field's
// sides and base. The triangulation is MuJoCo's: cell (r, c) is split along the diagonal from
// sample (r, c) to (r + 1, c + 1); sample (r, c) sits at x = c·dx − size[0], y = r·dy − size[1],
// z = data[r·ncol + c]·size[2] in the height field geom's frame.
//
// A plane against a mesh: MuJoCo (mjc_PlaneConvex) lists the mesh's deepest vertex and at most
// three of its neighbours on the hull graph, so a vertex of a landing robot's trunk mesh that
// reaches the floor is not listed until it is among them (the rigid reference saw it "appear
// penetrating"). Here: every vertex of the mesh's convex hull (MuJoCo collides the hull) within
// the band, its distance along the plane's normal (MuJoCo's planes are unbounded).
//
// A capsule against a box: MuJoCo's capsule–box (mjc_CapsuleBox) gives a capsule lying parallel
// to a box edge, beyond the edge's end (its end sphere nearest to the box's corner), two identical
// points (same place, same distance) and then one as the gap closes, so a rigid mode holding both
// loses one (Menagerie's Go2: its hip capsule onto its calf box).
// Here, with the capsule's segment (centre ± half length along its axis) and radius:
//   - each end sphere against the box: its centre's signed distance to the box (nearest_on_box.h;
//     inside: minus the depth below the nearest face) minus the radius, at the box's nearest point;
//   - the segment's interior point nearest to a box edge, where the lines' common perpendicular
//     meets the open segment and the open edge and points out of the box across at least one of the
//     edge's two faces: within the edge's normal cone (a capsule lying across an edge), or over one
//     of the faces with the segment sloping away from it towards the edge — there the distance to
//     the edge's line is more than the box's and becomes it where the segment comes to lie
//     parallel to the face, so a rim tipping onto the cylinder touches as a point listed before,
//     not one appearing already penetrating (lines closer to parallel than 1e-12 in 1 − cos² are
//     left to the ends and vertices);
//   - the segment's interior point nearest to a box vertex, where the vertex is the box's feature
//     nearest to that point (a capsule across a corner, or along an edge it overhangs).
// Each point says which part of the capsule it is on: an end (SurfacePoint::end) or the interior,
// then against which edge or vertex (SurfacePoint::box_feature).
// The normal runs from the capsule to the box, along the line from the segment's point to the
// box's; each point lies midway between the two surfaces. A capsule lying on a face gives its two
// ends, or where it crosses the face's rim; anchors in the box's frame keep them apart. Where two
// of these coincide (to 1e-9 of the sizes: an end right over a rim) the pair gets one point.
//
// A box against a box: MuJoCo's box–box (mjc_BoxBox) takes the separating axis of least
// penetration among the 15 candidates; where a face lies flat on a face (a box landing on a box in
// a pile) an edge–edge axis ties with the face's near touching and wins or loses by round-off, so
// the pair's four points of the face-on-face support become one and back from one evaluation to
// the next (about half the time at a tilt of 1e-9…1e-2 rad within 1e-6 m of touching), and a rigid
// mode holding the four lost three: "active contact … has no contact point within the detection
// margin" (issue 14; box piles of 35 bodies stopped at the first box-on-box landing). Here, with
// each box's centre, axes and half sizes:
//   - each vertex of either box over a face of the other (its coordinates along the face's two
//     axes within the face, up to 1e-9 of the sizes) or inside it: its height over the face's plane
//     (inside: minus the depth below the least deep face), along the face's normal — only faces
//     the vertex is its box's support towards (minus the face's normal within the vertex's normal
//     cone, up to the edges' 0.1): a cube's top corner level with the top of a cube beside it lies
//     on that top's plane to round-off, but touches the side;
//   - each pair of edges, one per box, whose lines' common perpendicular meets both open edges:
//     the signed distance of the lines along n = ±(e1 × e2)/|e1 × e2|, taken outward from box 2's
//     edge, listed while n lies in box 2's edge's normal cone and −n in box 1's up to 0.1 (the
//     sine of the angle into a face) and box 1's centre lies on n's side of box 2's. Within the
//     cones that is the boxes' own distance (an edge across an edge); just outside them it is the
//     height of one box's edge over the other's rim, the corner of a face-on-face support where
//     the two faces lie flat, whatever their tilt by round-off; further out the lines' distance
//     falls below the boxes' (an edge's line passing into the other box through a face). Edges
//     closer to parallel than 1e-12 in 1 − cos² are left to the vertices. A negative distance
//     is kept only where it is no deeper than the boxes' overlap along every face normal (the
//     face axes of the separating-axis test): else the lines pass each other beside two faces
//     lying on one another.
// Together these are the corners of the support polygon of two faces lying flat on each other, and
// the single points of a vertex on a face and of an edge across an edge. Not represented: a vertex
// against an edge or a vertex (measure zero as first touch; a vertex leaving a face past its rim
// hands over to its edges' points there, which coincide with it). Each point says which vertex–face
// or edge–edge it is (SurfacePoint::box_box_feature); the rigid reference holds it as the contact's
// feature and locates where one ends and another takes over (a corner sliding over the other box's
// rim: box_box_features.h). Where two points coincide (to 1e-9 of the sizes: a vertex on the other's rim) the
// pair gets one.
//
// A capsule against a capsule (capsule_capsule_points.cc): MuJoCo's capsule–capsule
// (mjraw_CapsuleCapsule) gives the sphere–sphere contact of the segments' nearest points, one point,
// two only where the axes are exactly parallel; near parallel that point runs along the axes at
// (relative speed)/angle, so a rigid mode holding it sees accelerations without bound (issue 14:
// a capsule landing on a spinning one in Pile(35) threw it out of the floor's band). Here, with each
// capsule's segment (centre c_i, unit axis e_i, half length L_i) and radius r_i, the points a rigid
// model needs, each the sphere–sphere contact of two points of the segments (segment_features.h's
// regions, SurfacePoint::segment_feature):
//   - each end sphere of either capsule against the other's segment: the end's foot on the other's
//     line, clamped to its ends (an end against the interior, or against an end) — fixed on one body,
//     a smooth function of the state that stays put near parallel; a capsule lying on a capsule,
//     parallel, is held by two of these (as MuJoCo's two points there);
//   - the lines' common perpendicular where it meets both open segments (a capsule lying across
//     another), only where 1 − (e_1·e_2)² ≥ CapsuleInteriorThreshold = 2(r_1 + r_2)ε/(L_1 + L_2)²
//     with ε = 1e-6 (r_1 + r_2) (at least 4e-9: four times segment_features' parallel lines, so a
//     held interior's RK4 stages a little past it still have the perpendicular). Two lines at angle
//     φ touching at the interior point: an end s along the axis from it lies sφ aside, its distance
//     above the interior's by (sφ)²/(2(r_1 + r_2)), and the nearer end lies within L_1 + L_2 of it;
//     so below the threshold the interior is within ε of an end (not distinct from the ends: they
//     carry the contact, the model's error there at most ε), and above it the point's slide rate
//     along the axes, (relative speed)/φ, stays below (L_1 + L_2)/√(2(r_1 + r_2)ε) per m/s
//     (Pile(35)'s capsules, r 0.05, L 0.06: ε = 1e-7 m, φ ≥ 1.2e-3 rad. Measured on its capsule
//     landing on a spinning one: a threshold at φ = 1.1e-4 took the interior at φ = 1.14e-4 and
//     still threw the capsule out; at φ = 3.4e-4 the scene ran.)
// Where the interior is a point, an end's point is listed only inside its own region (its
// nearest-point condition σ_i e_i·(P_j − c_i) ≥ L_i, the guard segment_features.h holds it by): two
// convex bodies off parallel have one nearest pair, so an end outside its region is not a contact of
// its own but the interior's, reached through it; the end leaving its region and the interior taking
// over are the one boundary of one contact's feature (a `feature` event, the point continuous: at
// the boundary the common perpendicular's foot is the end), and listing both would let the end's
// point touch down again beside the interior it handed over to, the same contact twice (the
// spinning log of capsule_on_capsule_test chattered 34 ↔ 31 that way). As the lines pass the
// threshold with both ends held, both guards fire together; the second end joins the held interior
// (events.cc: released) — and the interior, up to ε deeper than the ends there, is then held
// that far inside (left open: issue 14).
// Where two coincide (to 1e-9 of the sizes: an end against an end is found from both sides) the
// pair gets one.
//
// A plane against a cylinder (plane_cylinder_points.cc): MuJoCo's plane–cylinder
// (mjc_PlaneCylinder) gives the lowest rim point of the cap facing the plane, the other cap's
// matching point, and, where the cap's rim points at ±120° from the lowest lie within the band (a
// cylinder standing on its face), two more there. The lowest point's direction is the radial part
// of −normal, of length sin(tilt): it turns with the direction of the tilt, and standing upright
// it is set by round-off (exactly upright: the cylinder's x axis), so the three points of a
// cylinder resting on its face jump round the rim between evaluations and a rigid mode holding them
// loses them (tests/plane_cylinder_test.cc measures it). Here, with the plane's normal n and the
// cylinder's centre c, unit axis a, radius r, half length h:
//   - while sin(tilt) = |n × a| < CylinderCornerTilt = 0.1 (CylinderFaceCorners): four material
//     points of the cap facing the plane, its rim at the cylinder's local ±x and ±y. The support of
//     a flat disc on a plane is the whole disc; a rigid mode holds it by the vertices of a polygon
//     inscribed in the rim (as a box's face by its four corners): it carries any resultant inside
//     the square (2/π of the disc's area). Fixed on the body, each is a smooth function of the
//     state (its J̇v a plane against a body point, contact_jdot.h); listed up to 0.1 so that a
//     disc slapping flat from its rim (a leaning coin falling onto its face) has its far corners'
//     crossings seen by their guards however fast its tilt passes zero (up to 0.1 rad a step).
//     From sin(tilt) ≥ CylinderNearCornerTilt = 0.01 on only those of the rim's far half (not below
//     the cap's centre): the tilted disc's support is its rim's lowest point alone, and a corner of
//     the near half lies above it by r·sin(tilt)·(1 − cos ψ), ψ its angle round the rim from it, so
//     a coin rolling or precessing on its rim had its corners pass under that point (touching at
//     zero distance: touchdowns that held a corner and stopped its rolling; CylinderTip.*);
//   - from sin(tilt) ≥ CylinderFaceThreshold = 1e-8/(1 − cos 45°) ≈ 3.4e-8 on, each cap's lowest
//     rim point (c ± h a + r·u, u the unit radial part of −n), as MuJoCo's first two: a coin on its
//     rim, a wheel on its tread (two points, one per cap); smooth while the tilt is away from zero
//     (its J̇v in closed form too: the point slides round the rim as u turns). Below the threshold
//     the disc's lowest rim point lies at most r·sin(tilt)·(1 − cos 45°) ≤ 1e-8 r below the
//     lowest corner (the model's error there) and is not listed: its direction is undefined at
//     zero tilt. It is listed before the corners: a corner coinciding with it (to 1e-9 r) is that
//     point, not listed (contact_jdot routes it to the rim's rates). MuJoCo's ±120°
//     points are not listed: a tilted disc touches the plane at its lowest rim point alone.
// The corners carry the disc below the threshold, the rim point above it: tipping up from the face
// on a held corner (or a chord of two), the change of support is where the rim point's listing
// begins, sin(tilt) − CylinderFaceThreshold (CylinderRimListingGuard) crossing zero — a guard the
// rigid reference locates (rigid_simulator.cc: a rim point new in a step, IsCylinderRimPoint, is
// no start point's continuation). There the rim point takes over from the corners the mode holds
// on the pair (they leave the mode), r·T·(1 − cos ψ) below them (ψ its angle round the rim from
// them; ≤ 1e-8 r, 3.4e-8 r from a chord of opposite corners): a plastic impact of the rim point
// alone at its approach speed r (1 − cos ψ)·d(tilt)/dt (ω r (1 − cos ψ) tipping at ω; tipping
// from rest, small as d(tilt)/dt = √(2 α T) there, and so its impulse). Alone: with the held
// corners as candidates a slow hand-over's Zeno-scale rule (impact.cc) kept a corner with a pulling
// impulse, turning the tilt's rate off the rim point, which then swung round the rim at |τ̇⊥|/|τ|
// and the puck fell through. The threshold is that small because the hand-over's depth
// is held from there on (at acceleration level): at 3.4e-6 the puck dropped at a generic tilt
// (MissedTouchdown) rocked across it and came to rest on three corners, the fourth 1.8e-9 m deep.
// Settling below the threshold (the rim point no longer listed) the held contact is matched to the
// nearest listed point (MatchContacts), up to 45° of rim away: its gap changes by at most 1e-8 r.
// Each point's normal is the plane's, at the midpoint between the rim point and the plane.
//
// Read m's height fields, meshes, geom sizes and types, d's geom_xpos and geom_xmat; write `out`.
#ifndef SALTATION_OWN_POINTS_H_
#define SALTATION_OWN_POINTS_H_

#include <mujoco/mujoco.h>

#include <Eigen/Dense>
#include <vector>

namespace saltation {

struct SurfacePoint {
  Eigen::Vector3d pos;     // midpoint between the two surfaces (world)
  Eigen::Vector3d normal;  // unit, from geom1 (the height field, plane, capsule) towards geom2 (world)
  double dist = 0;         // signed distance between the surfaces (negative: penetrating)
  int end = 0;             // a capsule–box point of an end sphere: −1 (+1) the end at −h (+h); 0 otherwise
  // a capsule–box point of the segment's interior: the box edge or vertex it is nearest to, as the
  // box's code Σ_a (σ_a + 1)·3^a (σ_a ∈ {−1, 0, +1}: the side of axis a the feature lies on, 0
  // along the edge's own axis; contact_features.h); −1 otherwise
  int box_feature = -1;
  // a capsule–capsule point: its region as segment_features.h's code (which end or interior of each
  // segment the two nearest points lie on); −1 otherwise
  int segment_feature = -1;
  // a box–box point: its vertex–face or edge–edge as box_box_features.h's code; −1 otherwise
  int box_box_feature = -1;
};

// Whether the pair (g1, g2), in MuJoCo's order (geom1's type ≤ geom2's), gets its points here:
// a height field with a box or a sphere, a plane with a mesh, a capsule with a box, a box with a box,
// a capsule with a capsule, a plane with a cylinder.
bool HasOwnPoints(const mjModel* m, int g1, int g2);

// (d's geom poses) => out: the points of such a pair whose distance is below `band` (MuJoCo's
// detection band of the pair, margin + gap). `out` is cleared.
void OwnPoints(const mjModel* m, const mjData* d, int g1, int g2, double band, std::vector<SurfacePoint>& out);

// The families (OwnPoints dispatches; each clears nothing, appends to `out`).
bool OwnHeightFieldPoints(const mjModel* m, int g1, int g2);
void HeightFieldPoints(const mjModel* m, const mjData* d, int g1, int g2, double band,
                       std::vector<SurfacePoint>& out);
bool OwnPlaneMeshPoints(const mjModel* m, int g1, int g2);
void PlaneMeshPoints(const mjModel* m, const mjData* d, int g1, int g2, double band, std::vector<SurfacePoint>& out);
bool OwnCapsuleBoxPoints(const mjModel* m, int g1, int g2);
void CapsuleBoxPoints(const mjModel* m, const mjData* d, int g1, int g2, double band,
                      std::vector<SurfacePoint>& out);
bool OwnBoxBoxPoints(const mjModel* m, int g1, int g2);
void BoxBoxPoints(const mjModel* m, const mjData* d, int g1, int g2, double band, std::vector<SurfacePoint>& out);

// A pair's new point p, unless one of the pair's points so far (out[first…]) lies within `same` of
// its position (the same point found twice: a box vertex on the other box's rim and its edges'
// points, a capsule end against an end found from both sides): appends p to out, or nothing.
void AppendUnlessCoincident(const SurfacePoint& p, size_t first, double same, std::vector<SurfacePoint>& out);

// A capsule against a capsule: the family, and the 1 − (e_1·e_2)² at and above which the lines'
// common perpendicular is a point of the pair (above)
bool OwnCapsuleCapsulePoints(const mjModel* m, int g1, int g2);
void CapsuleCapsulePoints(const mjModel* m, const mjData* d, int g1, int g2, double band,
                          std::vector<SurfacePoint>& out);
double CapsuleInteriorThreshold(const mjModel* m, int g1, int g2);

// A plane (g1) against a cylinder (g2): the family; the sin(tilt) from which the rim's lowest points
// are listed, and below which the corners are (above); (d's geom poses) => the corners listed
// (world; the first `count` of `corners`) and their count: four while sin(tilt) <
// CylinderNearCornerTilt, those of the rim's far half (not below the cap's centre) up to
// CylinderCornerTilt, none from there on (each corner still subject to the band where listed)
bool OwnPlaneCylinderPoints(const mjModel* m, int g1, int g2);
void PlaneCylinderPoints(const mjModel* m, const mjData* d, int g1, int g2, double band,
                         std::vector<SurfacePoint>& out);
double CylinderFaceThreshold();
double CylinderCornerTilt();
double CylinderNearCornerTilt();
// (d's geom poses) => whether the caps' lowest rim points are listed (sin(tilt) ≥ CylinderFaceThreshold)
bool CylinderRimPointsListed(const mjModel* m, const mjData* d, int g1, int g2);
// (d's geom poses) => the rim points' listing guard, sin(tilt) − CylinderFaceThreshold (listed from
// zero up; the rigid reference locates its crossing, below); NaN for another pair or a non-finite pose
double CylinderRimListingGuard(const mjModel* m, const mjData* d, int g1, int g2);
// (d's geom poses) => whether `pos` (world) is where a cap's lowest rim point is listed (to 1e-9 r)
bool IsCylinderRimPoint(const mjModel* m, const mjData* d, int g1, int g2, const Eigen::Vector3d& pos);
// DΔ's configuration probes (impact.cc) for an impact on a cap's lowest rim point: a tilt δ across
// the tilt's direction turns that point round the rim by δ/sin(tilt), so the impact's rows are
// differenced with a step below the tilt. (d's geom poses; `pos` the point's world position) =>
// min(step, CylinderRimProbeFraction · sin(tilt)) where `pos` is a listed rim point of the pair
// (IsCylinderRimPoint), `step` otherwise
double CylinderRimProbeFraction();
double CylinderRimProbeStep(const mjModel* m, const mjData* d, int g1, int g2, const Eigen::Vector3d& pos, double step);
// While one lives (on this thread) the caps' lowest rim points are listed at any nonzero tilt, also
// below CylinderFaceThreshold: the probes of an impact on a rim point at the threshold (the corner →
// rim-point hand-over, where sin(tilt) = T) then difference the point's own smooth continuation,
// not the corners that carry the disc below it (the threshold is a listing choice, not the point's)
class CylinderRimListedAtAnyTilt {
 public:
  CylinderRimListedAtAnyTilt();
  ~CylinderRimListedAtAnyTilt();
  CylinderRimListedAtAnyTilt(const CylinderRimListedAtAnyTilt&) = delete;
  CylinderRimListedAtAnyTilt& operator=(const CylinderRimListedAtAnyTilt&) = delete;
};
int CylinderFaceCorners(const mjModel* m, const mjData* d, int g1, int g2, Eigen::Vector3d corners[4]);

}  // namespace saltation

#endif  // SALTATION_OWN_POINTS_H_
