#include "saltation/contact_features.h"

#include <cmath>

#include "box_box_features.h"
#include "cylinder_features.h"
#include "nearest_on_box.h"
#include "own_points.h"
#include "same_bits.h"
#include "saltation/errors.h"
#include "segment_features.h"

namespace saltation {
namespace {

using RowMat3 = Eigen::Matrix<double, 3, 3, Eigen::RowMajor>;

// a capsule's end on a box: kCapsuleEndBase + box code + 27 (end at +h) or + 0 (end at −h); its
// segment's interior against a box edge or vertex: kCapsuleInteriorBase + box code
constexpr int kCapsuleEndBase = kSegmentFeatureBase + 9;
constexpr int kCapsuleInteriorBase = kCapsuleEndBase + 54;

// the part of geom1 a box feature is held on: a sphere's centre (kSpherePart), a capsule's end at
// −h or +h (−1, +1), the capsule's segment inside its ends (0)
constexpr int kSpherePart = 2;
int Part(int feature) {
  return feature < kCapsuleEndBase ? kSpherePart : feature < kCapsuleEndBase + 27 ? -1 : feature < kCapsuleInteriorBase ? 1 : 0;
}
int BaseOf(int part) {
  return part == kSpherePart ? 0 : part == -1 ? kCapsuleEndBase : part == 1 ? kCapsuleEndBase + 27 : kCapsuleInteriorBase;
}

// the box part of a feature (σ per axis), a capsule's end (±1; 0 a sphere or the segment's interior)
int BoxCode(int feature) { return feature - BaseOf(Part(feature)); }
int CapsuleEnd(int feature) { return Part(feature) == kSpherePart ? 0 : Part(feature); }
bool OnInterior(int feature) { return Part(feature) == 0; }
int WithBoxCode(int feature, int box) { return BaseOf(Part(feature)) + box; }

int Sigma(int feature, int axis) {
  feature = BoxCode(feature);
  for (int a = 0; a < axis; a++) feature /= 3;
  return feature % 3 - 1;
}

int Clamped(int feature) {
  int clamped = 0;
  for (int a = 0; a < 3; a++) clamped += Sigma(feature, a) != 0;
  return clamped;
}

int WithSigma(int feature, int axis, int sigma) {
  int scale = 1;
  for (int a = 0; a < axis; a++) scale *= 3;
  return WithBoxCode(feature, BoxCode(feature) + (sigma - Sigma(feature, axis)) * scale);
}

bool IsSphereBox(const mjModel* m, const ContactId& id) {
  return id.geom1 >= 0 && id.geom2 >= 0 && id.geom1 < m->ngeom && id.geom2 < m->ngeom &&
         m->geom_type[id.geom1] == mjGEOM_SPHERE && m->geom_type[id.geom2] == mjGEOM_BOX;
}

bool IsCapsuleBox(const mjModel* m, const ContactId& id) {
  return id.geom1 >= 0 && id.geom2 >= 0 && id.geom1 < m->ngeom && id.geom2 < m->ngeom &&
         OwnCapsuleBoxPoints(m, id.geom1, id.geom2);
}

bool IsBoxBox(const mjModel* m, const ContactId& id) {
  return id.geom1 >= 0 && id.geom2 >= 0 && id.geom1 < m->ngeom && id.geom2 < m->ngeom &&
         OwnBoxBoxPoints(m, id.geom1, id.geom2);
}

// a held contact whose anchor follows its feature's point: a capsule–box, capsule–capsule or
// box–box pair's (several points per pair)
bool Follows(const mjModel* m, const ContactId& id) {
  return id.feature >= 0 &&
         (IsCapsuleBox(m, id) || OwnCapsuleCapsulePoints(m, id.geom1, id.geom2) || IsBoxBox(m, id));
}

// a box–box contact's feature: that of its own point (the nearest anchor), −1 for none
int BoxBoxFeatureAt(const mjModel* m, const mjData* d, const ContactId& id) {
  thread_local std::vector<SurfacePoint> points;
  points.clear();
  BoxBoxPoints(m, d, id.geom1, id.geom2, 1e300, points);
  const Eigen::Map<const RowMat3> R(d->geom_xmat + 9 * id.geom2);
  const Eigen::Map<const Eigen::Vector3d> origin(d->geom_xpos + 3 * id.geom2);
  int feature = -1;
  double best = INFINITY;
  for (const SurfacePoint& p : points) {
    const double dist = (R.transpose() * (p.pos - origin) - id.anchor).norm();
    if (dist < best) best = dist, feature = p.box_box_feature;
  }
  return feature;
}

// the centre of the sphere about which geom1 touches the box (world): a sphere's centre, a
// capsule's end (`end` = ±1) at ±h along its axis
Eigen::Vector3d CoreCentre(const mjModel* m, const mjData* d, int geom1, int end) {
  Eigen::Vector3d centre = Eigen::Map<const Eigen::Vector3d>(d->geom_xpos + 3 * geom1);
  if (end) {
    const mjtNum* mat = d->geom_xmat + 9 * geom1;
    centre += end * m->geom_size[3 * geom1 + 1] * Eigen::Vector3d(mat[2], mat[5], mat[8]);
  }
  return centre;
}

// the core centre in the box's frame, the box's rotation (columns: its axes) and half sizes
struct BoxFrame {
  Eigen::Vector3d c, size;
  RowMat3 R;
  Eigen::Vector3d origin;
};

BoxFrame FrameOf(const mjModel* m, const mjData* d, int geom1, int geom2, int end) {
  BoxFrame b;
  b.R = Eigen::Map<const RowMat3>(d->geom_xmat + 9 * geom2);
  b.origin = Eigen::Map<const Eigen::Vector3d>(d->geom_xpos + 3 * geom2);
  b.size = Eigen::Map<const Eigen::Vector3d>(m->geom_size + 3 * geom2);
  b.c = b.R.transpose() * (CoreCentre(m, d, geom1, end) - b.origin);
  return b;
}

BoxFrame FrameOf(const mjModel* m, const mjData* d, const ContactId& id) {
  return FrameOf(m, d, id.geom1, id.geom2, CapsuleEnd(id.feature));
}

// the feature of a core centre (box frame) nearest a box: −1 inside
int BoxFeature(const BoxFrame& b, int end) {
  const BoxNearest near = NearestOnBox(b.c, b.size);
  int box = 0;
  for (int a = 0, scale = 1; a < 3; a++, scale *= 3) box += (near.sigma[a] + 1) * scale;
  if (!near.clamped) return -1;
  return end == 0 ? box : kCapsuleEndBase + box + (end > 0 ? 27 : 0);
}

// a capsule–box contact's point among the pair's own points (the nearest anchor)
SurfacePoint OwnPointOf(const mjModel* m, const mjData* d, const ContactId& id) {
  thread_local std::vector<SurfacePoint> points;
  points.clear();
  CapsuleBoxPoints(m, d, id.geom1, id.geom2, 1e300, points);
  const Eigen::Map<const RowMat3> R(d->geom_xmat + 9 * id.geom2);
  const Eigen::Map<const Eigen::Vector3d> origin(d->geom_xpos + 3 * id.geom2);
  SurfacePoint own;
  double best = INFINITY;
  for (const SurfacePoint& p : points) {
    const double dist = (R.transpose() * (p.pos - origin) - id.anchor).norm();
    if (dist < best) best = dist, own = p;
  }
  return own;
}

// A capsule's segment against a box edge or vertex as two segments (segment_features.h): side 0
// the capsule's (σ_0: the end clamped, 0 inside), side 1 the box edge along `axis` through the
// feature's σ on the other two axes, radius 0 (σ_1 = σ_axis: clamped at a vertex, 0 along the edge)
struct CapsuleEdge {
  Segments s;
  int sigma[2] = {0, 0};
};

CapsuleEdge CapsuleEdgeOf(const mjModel* m, const mjData* d, const ContactId& id, int axis) {
  CapsuleEdge ce;
  Segments& s = ce.s;
  const mjtNum* mat = d->geom_xmat + 9 * id.geom1;
  s.c[0] = Eigen::Map<const Eigen::Vector3d>(d->geom_xpos + 3 * id.geom1);
  s.e[0] = Eigen::Vector3d(mat[2], mat[5], mat[8]);
  s.half[0] = m->geom_size[3 * id.geom1 + 1];
  s.has_length[0] = true;
  s.body[0] = m->geom_bodyid[id.geom1];
  const Eigen::Map<const RowMat3> R(d->geom_xmat + 9 * id.geom2);
  const Eigen::Map<const Eigen::Vector3d> size(m->geom_size + 3 * id.geom2);
  Eigen::Vector3d mid = Eigen::Vector3d::Zero();  // the edge's midpoint (box frame)
  for (int a = 0; a < 3; a++) {
    if (a != axis) mid(a) = Sigma(id.feature, a) * size(a);
  }
  s.c[1] = Eigen::Map<const Eigen::Vector3d>(d->geom_xpos + 3 * id.geom2) + R * mid;
  s.e[1] = R.col(axis);
  s.half[1] = size(axis);
  s.has_length[1] = true;
  s.body[1] = m->geom_bodyid[id.geom2];
  ce.sigma[0] = CapsuleEnd(id.feature);
  ce.sigma[1] = Sigma(id.feature, axis);
  return ce;
}

// the edge axis a capsule–box feature's segment pair is taken along: an edge's free axis; any of a
// vertex's (the first)
int EdgeAxis(int feature) {
  for (int a = 0; a < 3; a++) {
    if (Sigma(feature, a) == 0) return a;
  }
  return 0;
}

// appends side `side`'s guards of the pair along `axis` to `set`, each leading to `to(σ past it)`
template <typename To>
void AppendCapsuleEdgeGuards(const mjModel* m, const mjData* d, const ContactId& id, int axis, int side, To to,
                             FeatureGuardSet& set) {
  const CapsuleEdge ce = CapsuleEdgeOf(m, d, id, axis);
  const int first = set.count;
  AppendSideGuards(ce.s, ce.sigma, side, set);
  for (int n = first; n < set.count; n++) {
    set.guard[n].to = to(set.guard[n].to);
    set.guard[n].edge = axis;
  }
}

}  // namespace

bool HasFeatures(const mjModel* m, const ContactId& id) {
  return IsSphereBox(m, id) || IsSegmentPair(m, id) || IsCapsuleBox(m, id) || IsSphereCylinder(m, id) ||
         IsBoxBox(m, id);
}

int FeatureAt(const mjModel* m, const mjData* d, const ContactId& id) {
  if (IsSegmentPair(m, id)) return SegmentFeatureAt(m, d, id);
  if (IsSphereCylinder(m, id)) return CylinderFeatureAt(m, d, id);
  if (IsBoxBox(m, id)) return BoxBoxFeatureAt(m, d, id);
  if (IsSphereBox(m, id)) return BoxFeature(FrameOf(m, d, id.geom1, id.geom2, 0), 0);
  if (!IsCapsuleBox(m, id)) return -1;
  const SurfacePoint own = OwnPointOf(m, d, id);
  if (own.end) return BoxFeature(FrameOf(m, d, id.geom1, id.geom2, own.end), own.end);
  return own.box_feature >= 0 ? kCapsuleInteriorBase + own.box_feature : -1;
}

const char* FeatureName(int feature) {
  if (feature < 0) return "";
  if (IsCylinderFeature(feature)) return CylinderFeatureName(feature);
  if (feature >= kSegmentFeatureBase && feature < kCapsuleEndBase) return SegmentFeatureName(feature);
  if (IsBoxBoxFeature(feature)) return BoxBoxFeatureName(feature);
  const int clamped = Clamped(feature);
  if (OnInterior(feature)) return clamped == 2 ? "cylinder-edge" : "cylinder-vertex";
  if (CapsuleEnd(feature)) return clamped == 1 ? "cap-face" : clamped == 2 ? "cap-edge" : "cap-vertex";
  return clamped == 1 ? "face" : clamped == 2 ? "edge" : "vertex";
}

ContactPoint FeaturePoint(const Model& model, const mjData* d, const ContactId& id,
                          const Eigen::Vector3d* tangent_hint) {
  const mjModel* m = model.mj();
  // the nearest points of the two cores (a sphere's centre, a capsule's segment, the box itself)
  // on id.feature extended, and the radii about them: MuJoCo's sphere–sphere contact of the two
  Eigen::Vector3d core1, core2;
  double radius1 = m->geom_size[3 * id.geom1], radius2 = 0;
  // a box–box feature: its point on geom1's surface, its normal and signed distance (the cores are
  // the surfaces themselves, and the normal does not turn over when they penetrate)
  Eigen::Vector3d box_normal;
  double box_dist = 0;
  const bool box_box = IsBoxBox(m, id);
  if (box_box) {
    BoxBoxFeaturePoint(m, d, id, core1, box_normal, box_dist);
    if (!std::isfinite(box_dist)) {
      throw NumericalError("contact " + ContactLabel(model, id) + " holds feature " + FeatureName(id.feature) +
                           " of two parallel box edges (no unique nearest points)");
    }
    radius1 = 0;
    core2 = core1 + box_dist * box_normal;
  } else if (IsSegmentPair(m, id)) {
    if (!SegmentNearest(m, d, id, core1, core2)) {
      throw NumericalError("contact " + ContactLabel(model, id) + " holds feature " + FeatureName(id.feature) +
                           " of two parallel capsules (no unique nearest points)");
    }
    radius2 = m->geom_size[3 * id.geom2];
  } else if (IsCylinderFeature(id.feature)) {
    core1 = Eigen::Map<const Eigen::Vector3d>(d->geom_xpos + 3 * id.geom1);
    CylinderFeatureCore(m, d, id, core2, radius2);
  } else if (OnInterior(id.feature)) {
    const CapsuleEdge ce = CapsuleEdgeOf(m, d, id, EdgeAxis(id.feature));
    double t[2];
    if (!NearestParams(ce.s, ce.sigma, t)) {
      throw NumericalError("contact " + ContactLabel(model, id) + " holds feature " + FeatureName(id.feature) +
                           " of a capsule parallel to the box's edge (no unique nearest points)");
    }
    core1 = ce.s.c[0] + t[0] * ce.s.e[0];
    core2 = ce.s.c[1] + t[1] * ce.s.e[1];
  } else {
    const BoxFrame b = FrameOf(m, d, id);
    Eigen::Vector3d nearest = b.c;  // the feature's point nearest to the centre (box frame)
    for (int a = 0; a < 3; a++) {
      const int sigma = Sigma(id.feature, a);
      if (sigma) nearest(a) = sigma * b.size(a);
    }
    core1 = b.origin + b.R * b.c;  // the sphere's centre, the capsule's end
    core2 = b.origin + b.R * nearest;
  }
  const double norm = box_box ? box_dist : (core2 - core1).norm();
  double margin, gap;
  int condim;
  PairContactParams(m, id.geom1, id.geom2, &margin, &gap, &condim);
  mjtNum frame[9] = {0};
  const Eigen::Vector3d normal = box_box ? box_normal : Eigen::Vector3d((core2 - core1) / norm);  // geom1 → geom2
  mju_copy3(frame, normal.data());
  if (tangent_hint) mju_copy3(frame + 3, tangent_hint->data());
  CompleteContactFrame(frame);
  ContactPoint p;
  p.id = id;
  const double dist = norm - radius1 - radius2;
  p.pos = core1 + (radius1 + 0.5 * dist) * normal;
  p.frame = Eigen::Map<const RowMat3>(frame);
  p.gap = dist - margin;
  p.condim = condim;
  const Eigen::Map<const RowMat3> R2(d->geom_xmat + 9 * id.geom2);
  p.id.anchor = R2.transpose() * (p.pos - Eigen::Map<const Eigen::Vector3d>(d->geom_xpos + 3 * id.geom2));
  return p;
}

FeatureGuardSet FeatureGuards(const mjModel* m, const mjData* d, const ContactId& id) {
  FeatureGuardSet set;
  if (id.feature < 0 || !HasFeatures(m, id)) return set;
  if (IsSegmentPair(m, id)) return SegmentFeatureGuards(m, d, id);
  if (IsSphereCylinder(m, id)) return CylinderFeatureGuards(m, d, id);
  if (IsBoxBox(m, id)) return BoxBoxFeatureGuards(m, d, id);
  if (OnInterior(id.feature)) {
    // the segment's foot reaching an end (→ that end on the same edge or vertex), and on the box's
    // side: along an edge, the foot reaching a vertex; at a vertex, the foot leaving it along each
    // of its edges (→ that edge)
    const int box = BoxCode(id.feature);
    auto cap = [&](int end) { return kCapsuleEndBase + box + (end > 0 ? 27 : 0); };
    const int axis = EdgeAxis(id.feature);
    AppendCapsuleEdgeGuards(m, d, id, axis, 0, cap, set);
    for (int a = 0; a < 3; a++) {
      if (Sigma(id.feature, axis) == 0 && a != axis) continue;  // an edge: its own axis only
      AppendCapsuleEdgeGuards(m, d, id, a, 1, [&](int sigma) { return WithSigma(id.feature, a, sigma); }, set);
    }
    return set;
  }
  const BoxFrame b = FrameOf(m, d, id);
  auto add = [&](int axis, double sign, double offset, int to) {
    FeatureGuard& g = set.guard[set.count++];
    g.axis = axis, g.sign = sign, g.offset = offset, g.to = to, g.length = b.size(axis);
    g.value = sign * b.c(axis) + offset;
  };
  for (int a = 0; a < 3; a++) {
    const int sigma = Sigma(id.feature, a);
    if (sigma) {
      add(a, sigma, -b.size(a), WithSigma(id.feature, a, 0));
    } else {
      add(a, -1, b.size(a), WithSigma(id.feature, a, 1));
      add(a, 1, b.size(a), WithSigma(id.feature, a, -1));
    }
  }
  // a capsule's end on an edge or a vertex: the segment's nearest point to it leaving the end
  // (→ the segment's interior on the same edge or vertex); on a face the end stays the segment's
  // nearest point until the segment lies parallel to the face, where another of the pair's points
  // touches (a touchdown, no feature change)
  if (CapsuleEnd(id.feature) && Clamped(id.feature) >= 2) {
    const int interior = kCapsuleInteriorBase + BoxCode(id.feature);
    AppendCapsuleEdgeGuards(m, d, id, EdgeAxis(id.feature), 0, [&](int) { return interior; }, set);
  }
  return set;
}

Eigen::VectorXd FeatureGuardGradient(const Model& model, const mjData* d, const ContactId& id,
                                     const FeatureGuard& guard) {
  const mjModel* m = model.mj();
  if (IsSegmentPair(m, id)) return SegmentGuardGradient(model, d, id, guard);
  if (IsSphereCylinder(m, id)) return CylinderGuardGradient(model, d, id, guard);
  if (IsBoxBox(m, id)) return BoxBoxGuardGradient(model, d, id, guard);
  if (guard.edge >= 0) {
    const CapsuleEdge ce = CapsuleEdgeOf(m, d, id, guard.edge);
    return SideGuardGradient(model, d, ce.s, ce.sigma, guard);
  }
  const int nv = m->nv;
  // dc/dt = Rᵀ(ċ − velocity of the box's point at c): the core centre's Jacobian relative to the box's
  Eigen::Matrix<double, 3, Eigen::Dynamic, Eigen::RowMajor> j1(3, nv), j2(3, nv);
  const Eigen::Vector3d centre = CoreCentre(m, d, id.geom1, CapsuleEnd(id.feature));
  mj_jac(m, d, j1.data(), nullptr, centre.data(), m->geom_bodyid[id.geom1]);
  mj_jac(m, d, j2.data(), nullptr, centre.data(), m->geom_bodyid[id.geom2]);
  const Eigen::Map<const RowMat3> R(d->geom_xmat + 9 * id.geom2);
  Eigen::VectorXd grad = Eigen::VectorXd::Zero(model.ndx());
  grad.head(nv) = guard.sign * ((j1 - j2).transpose() * R.col(guard.axis));
  return grad;
}

bool FollowHeldPoints(const Model& model, const mjData* d, const std::vector<ContactPoint>& points,
                      std::vector<ContactId>& contacts) {
  thread_local std::vector<int> match;
  MatchContacts(contacts, points, match);
  bool moved = false;
  for (size_t k = 0; k < contacts.size(); k++) {
    ContactId& id = contacts[k];
    const Eigen::Vector3d before = id.anchor;
    if (Follows(model.mj(), id)) {
      id.anchor = FeaturePoint(model, d, id).id.anchor;
    } else if (id.feature < 0 && match[k] >= 0) {
      id.anchor = points[match[k]].id.anchor;
    }
    moved = moved || !SameBits(id.anchor, before);
  }
  return moved;
}

std::vector<ContactId> WithFeatures(const mjModel* m, const mjData* d, const std::vector<ContactId>& contacts) {
  std::vector<ContactId> out = contacts;
  for (ContactId& id : out) {
    if (id.feature < 0) id.feature = FeatureAt(m, d, id);
  }
  return out;
}

bool NeedsFeatures(const mjModel* m, const std::vector<ContactId>& contacts) {
  for (const ContactId& id : contacts) {
    if (id.feature < 0 && HasFeatures(m, id)) return true;
  }
  return false;
}

}  // namespace saltation
