#include "cylinder_features.h"

#include <cmath>

namespace saltation {
namespace {

using RowMat3 = Eigen::Matrix<double, 3, 3, Eigen::RowMajor>;

constexpr int kSide = 0, kFace = 1, kRim = 3;  // + 0 (at −h) or + 1 (at +h) for a face or a rim

int Kind(int feature) {
  const int f = feature - kCylinderFeatureBase;
  return f == kSide ? kSide : f < kRim ? kFace : kRim;
}
// the flat end a face or rim lies at: −1 (z = −h), +1 (z = +h); 0 for the side
int End(int feature) {
  const int f = feature - kCylinderFeatureBase;
  return f == kSide ? 0 : (f - Kind(feature)) ? 1 : -1;
}
int Code(int kind, int end) { return kCylinderFeatureBase + kind + (kind == kSide ? 0 : end > 0 ? 1 : 0); }

// the sphere centre in the cylinder's frame, the cylinder's rotation (columns: its axes), origin,
// radius and half height
struct CylinderFrame {
  Eigen::Vector3d c, origin;
  RowMat3 R;
  double radius = 0, half = 0;
  double Rho() const { return std::hypot(c(0), c(1)); }
};

CylinderFrame FrameOf(const mjModel* m, const mjData* d, const ContactId& id) {
  CylinderFrame f;
  f.R = Eigen::Map<const RowMat3>(d->geom_xmat + 9 * id.geom2);
  f.origin = Eigen::Map<const Eigen::Vector3d>(d->geom_xpos + 3 * id.geom2);
  f.radius = m->geom_size[3 * id.geom2];
  f.half = m->geom_size[3 * id.geom2 + 1];
  f.c = f.R.transpose() * (Eigen::Map<const Eigen::Vector3d>(d->geom_xpos + 3 * id.geom1) - f.origin);
  return f;
}

}  // namespace

bool IsSphereCylinder(const mjModel* m, const ContactId& id) {
  return id.geom1 >= 0 && id.geom2 >= 0 && id.geom1 < m->ngeom && id.geom2 < m->ngeom &&
         m->geom_type[id.geom1] == mjGEOM_SPHERE && m->geom_type[id.geom2] == mjGEOM_CYLINDER;
}

bool IsCylinderFeature(int feature) {
  return feature >= kCylinderFeatureBase && feature < kCylinderFeatureBase + 5;
}

int CylinderFeatureAt(const mjModel* m, const mjData* d, const ContactId& id) {
  const CylinderFrame f = FrameOf(m, d, id);
  const double z = f.c(2);
  // the regions closed towards the side and the face, as a box's face (MuJoCo has |z| < h and
  // ρ² < R²: on the boundaries the two features' points are the same)
  const bool side = std::abs(z) <= f.half;
  const bool cap = f.Rho() <= f.radius;
  const int end = z > 0 ? 1 : -1;
  if (side && cap) return -1;
  if (side) return Code(kSide, 0);
  return Code(cap ? kFace : kRim, end);
}

const char* CylinderFeatureName(int feature) {
  const int kind = Kind(feature);
  return kind == kSide ? "cyl-side" : kind == kFace ? "cyl-face" : "cyl-rim";
}

void CylinderFeatureCore(const mjModel* m, const mjData* d, const ContactId& id, Eigen::Vector3d& core,
                         double& radius) {
  const CylinderFrame f = FrameOf(m, d, id);
  const int kind = Kind(id.feature), end = End(id.feature);
  Eigen::Vector3d local;
  radius = 0;
  if (kind == kSide) {
    local = Eigen::Vector3d(0, 0, f.c(2));
    radius = f.radius;
  } else if (kind == kFace) {
    local = Eigen::Vector3d(f.c(0), f.c(1), end * f.half);
  } else {
    const double rho = f.Rho();
    // on the axis every rim point is as near: take the x axis's (only a centre deep inside gets here)
    const double ux = rho > 0 ? f.c(0) / rho : 1, uy = rho > 0 ? f.c(1) / rho : 0;
    local = Eigen::Vector3d(f.radius * ux, f.radius * uy, end * f.half);
  }
  core = f.origin + f.R * local;
}

FeatureGuardSet CylinderFeatureGuards(const mjModel* m, const mjData* d, const ContactId& id) {
  FeatureGuardSet set;
  const CylinderFrame f = FrameOf(m, d, id);
  const double rho = f.Rho();
  auto add = [&](int axis, double sign, double offset, int to) {
    FeatureGuard& g = set.guard[set.count++];
    g.axis = axis, g.sign = sign, g.offset = offset, g.to = to;
    g.length = axis == kRadialAxis ? f.radius : f.half;
    g.value = sign * (axis == kRadialAxis ? rho : f.c(2)) + offset;
  };
  const int kind = Kind(id.feature), end = End(id.feature);
  if (kind == kSide) {
    add(2, -1, f.half, Code(kRim, 1));
    add(2, 1, f.half, Code(kRim, -1));
  } else if (kind == kFace) {
    add(kRadialAxis, -1, f.radius, Code(kRim, end));
  } else {
    add(kRadialAxis, 1, -f.radius, Code(kFace, end));
    add(2, end, -f.half, Code(kSide, 0));
  }
  return set;
}

Eigen::VectorXd CylinderGuardGradient(const Model& model, const mjData* d, const ContactId& id,
                                      const FeatureGuard& guard) {
  const mjModel* m = model.mj();
  const int nv = m->nv;
  const CylinderFrame f = FrameOf(m, d, id);
  // dc/dt = Rᵀ(ċ − velocity of the cylinder's point at c): the centre's Jacobian relative to the cylinder's
  Eigen::Matrix<double, 3, Eigen::Dynamic, Eigen::RowMajor> j1(3, nv), j2(3, nv);
  const Eigen::Vector3d centre = Eigen::Map<const Eigen::Vector3d>(d->geom_xpos + 3 * id.geom1);
  mj_jac(m, d, j1.data(), nullptr, centre.data(), m->geom_bodyid[id.geom1]);
  mj_jac(m, d, j2.data(), nullptr, centre.data(), m->geom_bodyid[id.geom2]);
  Eigen::Vector3d u = Eigen::Vector3d::UnitZ();
  if (guard.axis == kRadialAxis) {
    const double rho = f.Rho();
    u = rho > 0 ? Eigen::Vector3d(f.c(0) / rho, f.c(1) / rho, 0) : Eigen::Vector3d::Zero();
  }
  Eigen::VectorXd grad = Eigen::VectorXd::Zero(model.ndx());
  grad.head(nv) = guard.sign * ((j1 - j2).transpose() * (f.R * u));
  return grad;
}

}  // namespace saltation
