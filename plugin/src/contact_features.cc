#include "saltation/contact_features.h"

#include <cmath>

#include "nearest_on_box.h"
#include "saltation/errors.h"
#include "segment_features.h"

namespace saltation {
namespace {

using RowMat3 = Eigen::Matrix<double, 3, 3, Eigen::RowMajor>;

int Sigma(int feature, int axis) {
  for (int a = 0; a < axis; a++) feature /= 3;
  return feature % 3 - 1;
}

int WithSigma(int feature, int axis, int sigma) {
  int scale = 1;
  for (int a = 0; a < axis; a++) scale *= 3;
  return feature + (sigma - Sigma(feature, axis)) * scale;
}

// the sphere centre in the box's frame, the box's rotation (columns: its axes) and half sizes
struct BoxFrame {
  Eigen::Vector3d c, size;
  RowMat3 R;
  Eigen::Vector3d origin;
};

BoxFrame FrameOf(const mjModel* m, const mjData* d, const ContactId& id) {
  BoxFrame b;
  b.R = Eigen::Map<const RowMat3>(d->geom_xmat + 9 * id.geom2);
  b.origin = Eigen::Map<const Eigen::Vector3d>(d->geom_xpos + 3 * id.geom2);
  b.size = Eigen::Map<const Eigen::Vector3d>(m->geom_size + 3 * id.geom2);
  b.c = b.R.transpose() * (Eigen::Map<const Eigen::Vector3d>(d->geom_xpos + 3 * id.geom1) - b.origin);
  return b;
}

}  // namespace

namespace {

bool IsSphereBox(const mjModel* m, const ContactId& id) {
  return id.geom1 >= 0 && id.geom2 >= 0 && id.geom1 < m->ngeom && id.geom2 < m->ngeom &&
         m->geom_type[id.geom1] == mjGEOM_SPHERE && m->geom_type[id.geom2] == mjGEOM_BOX;
}

}  // namespace

bool HasFeatures(const mjModel* m, const ContactId& id) { return IsSphereBox(m, id) || IsSegmentPair(m, id); }

int FeatureAt(const mjModel* m, const mjData* d, const ContactId& id) {
  if (IsSegmentPair(m, id)) return SegmentFeatureAt(m, d, id);
  if (!IsSphereBox(m, id)) return -1;
  const BoxFrame b = FrameOf(m, d, id);
  const BoxNearest near = NearestOnBox(b.c, b.size);
  int feature = 0;
  for (int a = 0, scale = 1; a < 3; a++, scale *= 3) feature += (near.sigma[a] + 1) * scale;
  return near.clamped ? feature : -1;
}

const char* FeatureName(int feature) {
  if (feature < 0) return "";
  if (feature >= kSegmentFeatureBase) return SegmentFeatureName(feature);
  int clamped = 0;
  for (int a = 0; a < 3; a++) clamped += Sigma(feature, a) != 0;
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
    core1 = b.origin + b.R * b.c;
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
  // dc/dt = Rᵀ(ċ − velocity of the box's point at c): the centre's Jacobian relative to the box's
  Eigen::Matrix<double, 3, Eigen::Dynamic, Eigen::RowMajor> j1(3, nv), j2(3, nv);
  const mjtNum* centre = d->geom_xpos + 3 * id.geom1;
  mj_jac(m, d, j1.data(), nullptr, centre, m->geom_bodyid[id.geom1]);
  mj_jac(m, d, j2.data(), nullptr, centre, m->geom_bodyid[id.geom2]);
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
