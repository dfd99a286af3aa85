// Contact points of the rigid model: identity, geometry, constraint rows.
//
// A contact is identified by its geom pair and, because one pair can touch at several points (a
// box face on a plane gives four), by an anchor: the point's position in geom2's frame when it
// was first seen. Points of a pair are matched to identities by the nearest anchor, so a box's
// corners keep their identity while it moves; a pair with one point (sphere on plane) matches
// trivially even though the point slides over the sphere.
#ifndef SALTATION_CONTACTS_H_
#define SALTATION_CONTACTS_H_

#include <mujoco/mujoco.h>

#include <Eigen/Dense>
#include <string>
#include <vector>

#include "saltation/model.h"

namespace saltation {

struct ContactId {
  int geom1 = -1;
  int geom2 = -1;
  Eigen::Vector3d anchor = Eigen::Vector3d::Zero();  // position in geom2's frame at identification
  // normal row only, whatever the condim: a sticking contact that would need a pulling normal
  // force or impulse to keep sticking is let slip, approximated as frictionless (stick–slip with
  // Coulomb friction is not modelled yet)
  bool frictionless = false;
  // the active feature of the geometry where the pair has them (contact_features.h: a sphere on a
  // box's face, edge or vertex, on a cylinder's side, face or rim; the capsule families), held as part of the mode by the exact rigid reference; −1: none
  // held (the feature is whatever the geometry gives at each configuration, MuJoCo's own point)
  int feature = -1;

  bool SamePair(const ContactId& o) const { return geom1 == o.geom1 && geom2 == o.geom2; }
};

// "geom1/geom2" with names (GeomLabel: an unnamed geom by its body); for pairs that can touch at
// several points (neither geom a sphere or an ellipsoid) "geom1/geom2@k", k the octant of the
// point's anchor in geom2's frame (x > 0 adds 1, y > 0 adds 2, z > 0 adds 4): a box's four
// corners on the floor read floor/box@0, @1, @2, @3
std::string ContactLabel(const Model& model, const ContactId& id);

// The k of ContactLabel's "@k": the octant of id's anchor in geom2's frame; −1 for a pair that
// touches at one point only (a sphere or an ellipsoid against anything) or a non-finite anchor.
int ContactOctant(const mjModel* m, const ContactId& id);

// One contact point reported by MuJoCo's collision detection on the private model.
struct ContactPoint {
  ContactId id;             // anchor = current position in geom2's frame
  double gap = 0;           // dist − includemargin: the touchdown guard (negative = penetrating)
  Eigen::Vector3d pos;      // midpoint between the surfaces (world)
  Eigen::Matrix3d frame;    // rows: normal (geom1 → geom2), tangent 1, tangent 2 (world)
  int condim = 1;           // 1: normal row only; ≥ 3: three translational rows (sticking)
  int mj_index = -1;        // index in mjData::contact
  // the feature (contact_features.h) a point of our own is of where its family tells (a box–box
  // point's vertex–face or edge–edge); −1 otherwise. MatchContacts gives a contact holding a feature
  // the point of that feature.
  int own_feature = -1;
};

// Whether a and b are the same contact of a mode: every field equal — the pair, the anchor (each
// coordinate ==: no tolerance, so two points of a pair however near stay two contacts; +0 and −0
// equal, a NaN anchor equals nothing), the held feature and whether it is let slip. The one
// definition for a mode that did not change (SameContacts), the guards' renaming (crossings.cc) and
// the rigid reference's run state (rigid_simulator.h). Not the hook's "the contact holding this
// point" (ModeContactAt, contact_tracking.h: matching, no equality) nor "the same point, whatever
// its friction" (NamedModeContact: a slip keeps the point).
bool SameContact(const ContactId& a, const ContactId& b);
// Whether two lists name the same contacts in the same order (SameContact): a mode that did not change.
bool SameContacts(const std::vector<ContactId>& a, const std::vector<ContactId>& b);

// Number of rigid constraint rows of a point: 1 for condim 1, 3 (normal, two tangents) otherwise.
inline int ContactRowCount(const ContactPoint& p) { return p.condim == 1 ? 1 : 3; }

// Whether an actuator transmits through a body (adhesion): MuJoCo's mj_transmission then reads
// the contact list and its constraint rows.
bool HasBodyTransmission(const mjModel* m);

// Runs the parts of MuJoCo's position stage this library needs (kinematics, inertia and its
// factor, collision, equality constraints and the contacts' rows for adhesion actuators; not the
// constraint projections) on d at qpos. passes: the model MuJoCo's passes run with (Model::mj()
// when null; SleepOutside's, island_passes.h, for an island's trees and the pairs touching them:
// then d's contacts also hold pairs against other trees at their stale places, for the caller to
// drop); with equality constraints or an adhesion actuator, always the whole model.
void EvaluatePosition(const Model& model, mjData* d, const double* qpos, const mjModel* passes = nullptr);

// (d after EvaluatePosition) => points: every contact point in d, into `points` (its storage
// reused: the engine hook's per-step path allocates nothing). Pairs whose points are our own
// (plugin/src/own_points.h; mj_index −1): a height field with a box or a sphere, from the height
// field's triangles instead of MuJoCo's one point per prism (a sphere's anchor is in the height
// field's frame, so that its two points in a valley keep their identities while the ball rolls);
// a plane with a mesh, every hull vertex within the band; a capsule with a box, its end spheres
// and its segment's points nearest to a box edge or vertex (MuJoCo's lists a capsule parallel to
// a box edge, beyond its end, at the corner twice, then once).
void ListContacts(const Model& model, const mjData* d, std::vector<ContactPoint>& points);

// The margin, gap and condim MuJoCo's narrow phase gives geom pair (g1, g2): an explicit <pair>,
// or the sum of the geoms' margins and of their gaps (condim by mj_contactParam's priority rule;
// Contact Override replaces the margin). The rigid surface is at dist = margin.
void PairContactParams(const mjModel* m, int g1, int g2, double* margin, double* gap, int* condim);

// MuJoCo's completion of a contact frame (row-major 3×3) from its normal (first row) and an
// optional hint for the first tangent (second row, zero: none): the hint, or the y axis unless the
// normal is near it, then the z axis; made orthogonal to the normal; the third row normal × tangent.
void CompleteContactFrame(mjtNum frame[9]);

// The contact points of the geom pairs of `ids` alone, from MuJoCo's narrow-phase functions
// (mjCOLLISIONFUNC) called directly with the margin, gap, condim and frame completion that
// mj_collision would give them: the same points as ListContacts after a full collision pass,
// without the broad phase and the other pairs (the pairs whose points are our own, own_points.h:
// the same own points as ListContacts). d needs kinematics (mj_kinematics) only.
void CollidePairs(const Model& model, const mjData* d, const std::vector<ContactId>& ids,
                  std::vector<ContactPoint>& points);

// The position stage for the rows of `ids` alone: kinematics, tendons, M and its factor (unless
// inertia is false: rows only), and the points of the ids' geom pairs (CollidePairs) into
// `points`; with equality constraints or an adhesion actuator, the whole EvaluatePosition and
// every point. The rows built from `points` equal EvaluatePosition's. d->contact is refreshed only
// in the latter case. passes: the model MuJoCo's passes of the former case run with (Model::mj()
// when null; SleepOutside's, island_passes.h, to compute the island's trees only).
void EvaluatePositionForPairs(const Model& model, mjData* d, const double* qpos,
                              const std::vector<ContactId>& ids, std::vector<ContactPoint>& points,
                              bool inertia = true, const mjModel* passes = nullptr);

// (ids, points) => match: for each id, the index of the matching point in `points` (an id holding a
// feature: the point of the same pair tagged with it, ContactPoint::own_feature, if listed; the
// others: nearest anchor within the same pair, each point used once, earlier ids first), or −1
// when its pair has no point left; `match`'s storage is reused.
void MatchContacts(const std::vector<ContactId>& ids, const std::vector<ContactPoint>& points,
                   std::vector<int>& match);
// The index of the point matching one id (MatchContacts' rule: the point tagged with its held
// feature if listed, else the nearest anchor within the same pair), or −1.
int MatchContact(const ContactId& id, const std::vector<ContactPoint>& points);

// (d's kinematics, point) => rows: the rigid constraint rows of a point, frame ·
// (J_point(body2, pos) − J_point(body1, pos)), which equal MuJoCo's efc_J rows of the same
// contact; the normal row is the gradient of the signed distance with respect to the tangent
// configuration. `rows` is sized ContactRowCount(point) × nv already (a RowMatrix of its own, or a
// block of a larger one). Reads d's cdof and subtree_com on the two bodies' dof chains only (the
// columns of mj_jac's point Jacobians there, bit for bit, without forming its 3 × nv matrices):
// beyond zeroing `rows`, the cost is the chains', not nv's; allocates nothing. `work` is not read
// (kept for the callers that pass Data::work()).
void ContactRows(const Model& model, const mjData* d, const ContactPoint& point, Eigen::Ref<RowMatrix> rows,
                 Workspace& work);

// (d after EvaluatePosition) => rows: MuJoCo's equality constraint rows in d (always active in
// every mode), dense (neq_rows × nv), `rows`' storage reused.
void EqualityRows(const Model& model, const mjData* d, RowMatrix& rows);

}  // namespace saltation

#endif  // SALTATION_CONTACTS_H_
