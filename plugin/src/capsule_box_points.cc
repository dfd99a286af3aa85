// A capsule against a box (own_points.h): the end spheres of the capsule's segment, and the
// segment's interior points nearest to a box edge or vertex, each within the band.
#include <algorithm>
#include <cmath>

#include "nearest_on_box.h"
#include "own_points.h"

namespace saltation {

namespace {

using Vec3 = Eigen::Vector3d;
using RowMat3 = Eigen::Matrix<double, 3, 3, Eigen::RowMajor>;

// a direction lies in the closed normal cone of a box feature: along each clamped axis of the
// feature (sign ≠ 0) it points outwards, up to a relative rounding tolerance; along the others it
// is orthogonal by construction
bool InCone(const Vec3& dir, const int sign[3]) {
  const double tol = 1e-9 * dir.norm();
  for (int a = 0; a < 3; a++) {
    if (sign[a] && sign[a] * dir(a) < -tol) return false;
  }
  return true;
}

// the direction from a box edge's point (σ ≠ 0 on its two clamped axes) to a point of the segment
// has an outward component across at least one of the edge's two faces: the point lies in the
// edge's normal cone (the edge is its nearest feature) or over one of the two faces; not in the
// box's own quadrant behind the edge
bool OutsideAFaceOf(const Vec3& dir, const int sign[3]) {
  for (int a = 0; a < 3; a++) {
    if (sign[a] && sign[a] * dir(a) > 0) return true;
  }
  return false;
}

// the box's code of a feature given by its σ per axis (own_points.h, SurfacePoint::box_feature)
int BoxCode(const int sign[3]) { return (sign[0] + 1) + 3 * (sign[1] + 1) + 9 * (sign[2] + 1); }

// A point of the capsule's surface nearest the box's, both given in the box's frame: the capsule's
// axis point `axis` and the box's point `on_box`, the distance between them `sep` (signed: −depth
// when the axis point is inside), the unit `outward` from the box towards the axis point.
// A point within `same` of one the pair already has is that one (an edge's interior point
// reaching the segment's end, or the edge's end: the two coincide there) and is left out.
struct Emitter {
  Vec3 xb;
  RowMat3 Rb;
  double radius, band, same;
  size_t first;  // the pair's first point in `out`
  std::vector<SurfacePoint>& out;

  void operator()(const Vec3& on_box, const Vec3& outward, double sep, int end, int box_feature) const {
    const double dist = sep - radius;
    if (!(dist < band)) return;
    const Vec3 pos = xb + Rb * (on_box + 0.5 * dist * outward);
    for (size_t i = first; i < out.size(); i++) {
      if ((out[i].pos - pos).norm() <= same) return;
    }
    SurfacePoint& s = out.emplace_back();
    s.pos = pos;
    s.normal = -(Rb * outward);  // capsule → box
    s.dist = dist;
    s.end = end;
    s.box_feature = box_feature;
  }
};

}  // namespace

bool OwnCapsuleBoxPoints(const mjModel* m, int g1, int g2) {
  return g1 >= 0 && g2 >= 0 && m->geom_type[g1] == mjGEOM_CAPSULE && m->geom_type[g2] == mjGEOM_BOX;
}

void CapsuleBoxPoints(const mjModel* m, const mjData* d, int g1, int g2, double band,
                      std::vector<SurfacePoint>& out) {
  if (!OwnCapsuleBoxPoints(m, g1, g2)) return;
  const Vec3 xb = Eigen::Map<const Vec3>(d->geom_xpos + 3 * g2);
  const RowMat3 Rb = Eigen::Map<const RowMat3>(d->geom_xmat + 9 * g2);
  const Vec3 half = Eigen::Map<const Vec3>(m->geom_size + 3 * g2);
  const double radius = m->geom_size[3 * g1], h = m->geom_size[3 * g1 + 1];
  // the capsule's segment in the box's frame: centre c, unit axis a, t ∈ [−h, h]
  const Vec3 c = Rb.transpose() * (Eigen::Map<const Vec3>(d->geom_xpos + 3 * g1) - xb);
  const Vec3 a = Rb.transpose() * Eigen::Map<const RowMat3>(d->geom_xmat + 9 * g1).col(2);
  if (!c.allFinite() || !a.allFinite() || !std::isfinite(band)) return;
  const double same = 1e-9 * std::max({h, radius, half.maxCoeff()});
  const Emitter emit{xb, Rb, radius, band, same, out.size(), out};

  // the end spheres: each centre's signed distance to the box, minus the radius
  for (const double t : {-h, h}) {
    const BoxDistance e = SignedDistanceToBox(c + t * a, half);
    emit(e.surface, e.outward, e.dist, t > 0 ? 1 : -1, -1);
  }

  // the segment's interior against each edge (axis i, at the signs s of the other two axes): the
  // lines' common perpendicular, where it meets the open segment and the open edge and points out
  // of the box across at least one of the edge's faces. Within the edge's normal cone the edge is
  // the box's feature nearest to the segment's point, and that point the segment's nearest to the
  // edge (a local minimum of the distance, which is convex along the segment). Over one of the two
  // faces the segment slopes away from it towards the edge, and the distance to the edge's line is
  // more than the box's: the point enters the cone where the segment lies parallel to the face, at
  // the distance of every other point of the segment over the face, so a rim tipping onto a segment
  // lying across it (a box rocking on a capsule's end until its face meets the cylinder at the rim)
  // touches as a guard that was there before, not as a point appearing already penetrating.
  // Parallel lines: the ends and vertices cover them.
  const double parallel = 1e-12;
  for (int i = 0; i < 3; i++) {
    const int j = (i + 1) % 3, k = (i + 2) % 3;
    for (const int sj : {-1, 1}) {
      for (const int sk : {-1, 1}) {
        Vec3 p0 = Vec3::Zero();  // the edge's midpoint
        p0(j) = sj * half(j);
        p0(k) = sk * half(k);
        const Vec3 w = c - p0;
        const double b = a(i), denom = 1 - b * b;
        if (denom < parallel) continue;
        const double dd = a.dot(w), e = w(i);
        const double t = (b * e - dd) / denom;  // along the segment
        const double u = (e - b * dd) / denom;  // along the edge
        if (!(std::abs(t) < h) || !(std::abs(u) < half(i))) continue;
        Vec3 on_edge = p0;
        on_edge(i) = u;
        const Vec3 diff = c + t * a - on_edge;
        const double sep = diff.norm();
        int sign[3] = {0, 0, 0};
        sign[j] = sj, sign[k] = sk;
        if (!(sep > 0) || !OutsideAFaceOf(diff, sign)) continue;
        emit(on_edge, diff / sep, sep, 0, BoxCode(sign));
      }
    }
  }

  // the segment's interior against each vertex: the segment's point nearest to it, when the vertex
  // is the box's nearest feature to that point (a capsule across a corner, or along an edge that
  // it overhangs)
  for (int v = 0; v < 8; v++) {
    const int sign[3] = {v & 1 ? 1 : -1, v & 2 ? 1 : -1, v & 4 ? 1 : -1};
    const Vec3 corner(sign[0] * half(0), sign[1] * half(1), sign[2] * half(2));
    const double t = a.dot(corner - c);
    if (!(std::abs(t) < h)) continue;
    const Vec3 diff = c + t * a - corner;
    const double sep = diff.norm();
    if (!(sep > 0) || !InCone(diff, sign)) continue;
    emit(corner, diff / sep, sep, 0, BoxCode(sign));
  }
}

}  // namespace saltation
