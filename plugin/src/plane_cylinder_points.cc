// A plane against a cylinder (own_points.h): from CylinderFaceThreshold on, each cap's lowest rim
// point (MuJoCo's mjc_PlaneCylinder's first two points); then, while sin(tilt) < CylinderCornerTilt,
// the fixed rim points of the cap facing the plane (CylinderFaceCorners: four below
// CylinderNearCornerTilt, those of the rim's far half above it) unless one coincides with a rim
// point listed; each within the band. CylinderRimListingGuard, IsCylinderRimPoint: for the rigid
// reference, which locates where the rim points' listing begins.
#include <algorithm>
#include <cmath>

#include "own_points.h"

namespace saltation {

namespace {

using Vec3 = Eigen::Vector3d;
using RowMat3 = Eigen::Matrix<double, 3, 3, Eigen::RowMajor>;

// The plane g1 and the cylinder g2 at d: the plane's origin and normal, the cylinder's centre and
// axes (columns of its rotation), radius and half length.
struct PlaneCylinder {
  Vec3 origin, normal, centre;
  RowMat3 R;
  double radius, half;
  PlaneCylinder(const mjModel* m, const mjData* d, int g1, int g2)
      : origin(Eigen::Map<const Vec3>(d->geom_xpos + 3 * g1)),
        normal(Eigen::Map<const RowMat3>(d->geom_xmat + 9 * g1).col(2)),
        centre(Eigen::Map<const Vec3>(d->geom_xpos + 3 * g2)),
        R(Eigen::Map<const RowMat3>(d->geom_xmat + 9 * g2)),
        radius(m->geom_size[3 * g2]),
        half(m->geom_size[3 * g2 + 1]) {}
  Vec3 axis() const { return R.col(2); }
  // sin of the axis' tilt from the plane's normal (accurate near zero, unlike 1 − cos)
  double SinTilt() const { return normal.cross(axis()).norm(); }
  bool Finite() const { return origin.allFinite() && normal.allFinite() && centre.allFinite() && R.allFinite(); }
};

}  // namespace

bool OwnPlaneCylinderPoints(const mjModel* m, int g1, int g2) {
  return g1 >= 0 && g2 >= 0 && g1 < m->ngeom && g2 < m->ngeom && m->geom_type[g1] == mjGEOM_PLANE &&
         m->geom_type[g2] == mjGEOM_CYLINDER;
}

double CylinderCornerTilt() { return 0.1; }

namespace {
// CylinderRimListedAtAnyTilt's scopes alive on this thread
thread_local int rim_listed_at_any_tilt = 0;
}  // namespace

CylinderRimListedAtAnyTilt::CylinderRimListedAtAnyTilt() { rim_listed_at_any_tilt++; }
CylinderRimListedAtAnyTilt::~CylinderRimListedAtAnyTilt() { rim_listed_at_any_tilt--; }

bool CylinderRimPointsListed(const mjModel* m, const mjData* d, int g1, int g2) {
  if (!OwnPlaneCylinderPoints(m, g1, g2)) return false;
  const PlaneCylinder pc(m, d, g1, g2);
  if (!pc.Finite()) return false;
  const double tilt = pc.SinTilt();
  return tilt >= CylinderFaceThreshold() || (rim_listed_at_any_tilt > 0 && tilt > 0);
}

double CylinderNearCornerTilt() { return 0.01; }

double CylinderFaceThreshold() {
  // the disc's lowest rim point lies r·sin(tilt)·(1 − cos(π/4)) below the nearest of four corners
  // 90° apart: at most 1e-8 r within the threshold (the depth at which it takes over from a held
  // corner; 3.4e-8 r from a chord of two opposite ones, 90° round the rim from it)
  return 1e-8 / (1 - std::sqrt(0.5));
}

double CylinderRimListingGuard(const mjModel* m, const mjData* d, int g1, int g2) {
  if (!OwnPlaneCylinderPoints(m, g1, g2)) return NAN;
  const PlaneCylinder pc(m, d, g1, g2);
  return pc.Finite() ? pc.SinTilt() - CylinderFaceThreshold() : NAN;
}

double CylinderRimProbeFraction() { return 1e-4; }

double CylinderRimProbeStep(const mjModel* m, const mjData* d, int g1, int g2, const Eigen::Vector3d& pos,
                            double step) {
  if (!IsCylinderRimPoint(m, d, g1, g2, pos)) return step;
  const PlaneCylinder pc(m, d, g1, g2);
  return std::min(step, CylinderRimProbeFraction() * pc.SinTilt());
}

namespace {

// each cap's lowest rim point (the radial part of −normal, −(n − (n·a)a) = −a × (n × a): the cross
// products keep its direction exact to round-off where its length sin(tilt) is small; the
// threshold keeps that length from zero); `rim[0]` the cap at +h
void LowestRimPoints(const PlaneCylinder& pc, Vec3 rim[2]) {
  const Vec3 a = pc.axis();
  const Vec3 down = -a.cross(pc.normal.cross(a)).normalized();
  rim[0] = pc.centre + pc.half * a + pc.radius * down;
  rim[1] = pc.centre - pc.half * a + pc.radius * down;
}

// a point's listed position: midway between it and the plane
Vec3 Midway(const PlaneCylinder& pc, const Vec3& point) {
  return point - 0.5 * (point - pc.origin).dot(pc.normal) * pc.normal;
}

}  // namespace

bool IsCylinderRimPoint(const mjModel* m, const mjData* d, int g1, int g2, const Eigen::Vector3d& pos) {
  if (!CylinderRimPointsListed(m, d, g1, g2)) return false;
  const PlaneCylinder pc(m, d, g1, g2);
  Vec3 rim[2];
  LowestRimPoints(pc, rim);
  const double same = 1e-9 * pc.radius;
  return (Midway(pc, rim[0]) - pos).norm() <= same || (Midway(pc, rim[1]) - pos).norm() <= same;
}

int CylinderFaceCorners(const mjModel* m, const mjData* d, int g1, int g2, Eigen::Vector3d corners[4]) {
  if (!OwnPlaneCylinderPoints(m, g1, g2)) return 0;
  const PlaneCylinder pc(m, d, g1, g2);
  const double tilt = pc.SinTilt();
  if (!pc.Finite() || !(tilt < CylinderCornerTilt())) return 0;
  // the cap facing the plane: its outward axis points against the plane's normal
  const double side = pc.normal.dot(pc.axis()) < 0 ? 1.0 : -1.0;
  const Vec3 cap = pc.centre + side * pc.half * pc.axis();
  const Vec3 x = pc.R.col(0), y = pc.R.col(1);
  const Vec3 all[4] = {cap + pc.radius * x, cap + pc.radius * y, cap - pc.radius * x, cap - pc.radius * y};
  // tilted the support is the rim's lowest point alone: the corners of the rim's near half (below
  // the cap's centre: those round it) are not listed
  const bool tilted = tilt >= CylinderNearCornerTilt();
  int count = 0;
  for (const Vec3& c : all) {
    if (!tilted || (c - cap).dot(pc.normal) >= 0) corners[count++] = c;
  }
  return count;
}

void PlaneCylinderPoints(const mjModel* m, const mjData* d, int g1, int g2, double band,
                         std::vector<SurfacePoint>& out) {
  if (!OwnPlaneCylinderPoints(m, g1, g2) || !std::isfinite(band)) return;
  const PlaneCylinder pc(m, d, g1, g2);
  if (!pc.Finite()) return;
  const double same = 1e-9 * pc.radius;  // the rim's separation scales with r (contact_jdot's routing: 1e-9 r)
  const size_t first = out.size();
  auto emit = [&](const Vec3& point) {
    const double dist = (point - pc.origin).dot(pc.normal);
    if (!(dist < band)) return;
    SurfacePoint s;
    s.pos = Midway(pc, point);
    s.normal = pc.normal;
    s.dist = dist;
    AppendUnlessCoincident(s, first, same, out);
  };
  // each cap's lowest rim point first (a corner coinciding with it is that point, not the corner:
  // the disc's support while tilted)
  if (CylinderRimPointsListed(m, d, g1, g2)) {
    Vec3 rim[2];
    LowestRimPoints(pc, rim);
    for (const Vec3& point : rim) emit(point);
  }
  Vec3 corners[4];
  const int count = CylinderFaceCorners(m, d, g1, g2, corners);
  for (int k = 0; k < count; k++) emit(corners[k]);
}

}  // namespace saltation
