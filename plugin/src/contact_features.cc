#include "saltation/contact_features.h"

#include <cmath>

#include "nearest_on_box.h"
#include "own_points.h"
#include "saltation/errors.h"
#include "segment_features.h"

namespace saltation {
namespace {

using RowMat3 = Eigen::Matrix<double, 3, 3, Eigen::RowMajor>;

// a capsule's end on a box: kCapsuleEndBase + box code + 27 (end at +h) or + 0 (end at −h)
constexpr int kCapsuleEndBase = kSegmentFeatureBase + 9;

// the box part of a sphere's or a capsule end's feature (σ per axis), and the capsule's end (±1; 0 a sphere)
int BoxCode(int feature) { return feature >= kCapsuleEndBase ? (feature - kCapsuleEndBase) % 27 : feature; }
int CapsuleEnd(int feature) { return feature < kCapsuleEndBase ? 0 : feature - kCapsuleEndBase >= 27 ? 1 : -1; }
int WithBoxCode(int feature, int box) {
  const int end = CapsuleEnd(feature);
  return end == 0 ? box : kCapsuleEndBase + box + (end > 0 ? 27 : 0);
}

int Sigma(int feature, int axis) {
  feature = BoxCode(feature);
  for (int a = 0; a < axis; a++) feature /= 3;
  return feature % 3 - 1;
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

// a capsule–box contact's point among the pair's own points (the nearest anchor): its end, 0 for
// an interior point of the segment (no feature: the point is our own as the geometry gives it)
int CapsuleEndOf(const mjModel* m, const mjData* d, const ContactId& id) {
  thread_local std::vector<SurfacePoint> points;
  points.clear();
  CapsuleBoxPoints(m, d, id.geom1, id.geom2, 1e300, points);
  const Eigen::Map<const RowMat3> R(d->geom_xmat + 9 * id.geom2);
  const Eigen::Map<const Eigen::Vector3d> origin(d->geom_xpos + 3 * id.geom2);
  int end = 0;
  double best = INFINITY;
  for (const SurfacePoint& p : points) {
    const double dist = (R.transpose() * (p.pos - origin) - id.anchor).norm();
    if (dist < best) best = dist, end = p.end;
  }
  return end;
}

}  // namespace

bool HasFeatures(const mjModel* m, const ContactId& id) {
  return IsSphereBox(m, id) || IsSegmentPair(m, id) || IsCapsuleBox(m, id);
}

int FeatureAt(const mjModel* m, const mjData* d, const ContactId& id) {
  if (IsSegmentPair(m, id)) return SegmentFeatureAt(m, d, id);
  if (IsSphereBox(m, id)) return BoxFeature(FrameOf(m, d, id.geom1, id.geom2, 0), 0);
  if (!IsCapsuleBox(m, id)) return -1;
  const int end = CapsuleEndOf(m, d, id);
  return end ? BoxFeature(FrameOf(m, d, id.geom1, id.geom2, end), end) : -1;
}

const char* FeatureName(int feature) {
  if (feature < 0) return "";
  if (feature >= kSegmentFeatureBase && feature < kCapsuleEndBase) return SegmentFeatureName(feature);
  int clamped = 0;
  for (int a = 0; a < 3; a++) clamped += Sigma(feature, a) != 0;
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
  if (IsSegmentPair(m, id)) {
    if (!SegmentNearest(m, d, id, core1, core2)) {
      throw NumericalError("contact " + ContactLabel(model, id) + " holds feature " + FeatureName(id.feature) +
                           " of two parallel capsules (no unique nearest points)");
    }
    radius2 = m->geom_size[3 * id.geom2];
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
  const double norm = (core2 - core1).norm();
  double margin, gap;
  int condim;
  PairContactParams(m, id.geom1, id.geom2, &margin, &gap, &condim);
  mjtNum frame[9] = {0};
  const Eigen::Vector3d normal = (core2 - core1) / norm;  // geom1 → geom2
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
  return set;
}

Eigen::VectorXd FeatureGuardGradient(const Model& model, const mjData* d, const ContactId& id,
                                     const FeatureGuard& guard) {
  const mjModel* m = model.mj();
  if (IsSegmentPair(m, id)) return SegmentGuardGradient(model, d, id, guard);
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
