#include "own_points.h"

#include "nearest_on_box.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace saltation {

namespace {

using Vec3 = Eigen::Vector3d;
using Mat3 = Eigen::Matrix3d;

Vec3 MapVec(const mjtNum* v) { return Eigen::Map<const Vec3>(v); }
Mat3 MapMat(const mjtNum* r) { return Eigen::Map<const Eigen::Matrix<double, 3, 3, Eigen::RowMajor>>(r); }

// The height field's samples in its geom frame, triangulated as MuJoCo's collision does.
struct Grid {
  int nrow = 0, ncol = 0;
  double size0 = 0, size1 = 0, size2 = 0;  // half extents in x, y; elevation scale
  double dx = 0, dy = 0;
  const float* data = nullptr;

  Grid(const mjModel* m, int g) {
    const int h = m->geom_dataid[g];
    nrow = m->hfield_nrow[h];
    ncol = m->hfield_ncol[h];
    size0 = m->hfield_size[4 * h];
    size1 = m->hfield_size[4 * h + 1];
    size2 = m->hfield_size[4 * h + 2];
    dx = 2 * size0 / (ncol - 1);
    dy = 2 * size1 / (nrow - 1);
    data = m->hfield_data + m->hfield_adr[h];
  }
  Vec3 Sample(int r, int c) const { return {dx * c - size0, dy * r - size1, double(data[r * ncol + c]) * size2}; }
  // the cell index containing coordinate x along an axis of n samples (clamped to a real cell)
  static int Cell(double x, double lo, double step, int n) {
    return std::clamp(static_cast<int>(std::floor((x - lo) / step)), 0, n - 2);
  }
  bool Covers(double x, double y) const { return std::abs(x) <= size0 && std::abs(y) <= size1; }
  // the triangle of cell (r, c): the one holding sample (r + 1, c) (upper == true) or (r, c + 1)
  void Triangle(int r, int c, bool upper, Vec3 v[3]) const {
    if (upper) {
      v[0] = Sample(r + 1, c), v[1] = Sample(r, c), v[2] = Sample(r + 1, c + 1);
    } else {
      v[0] = Sample(r, c), v[1] = Sample(r + 1, c + 1), v[2] = Sample(r, c + 1);
    }
  }
  // the triangle under (x, y) (which must be covered)
  void TriangleUnder(double x, double y, Vec3 v[3]) const {
    const int c = Cell(x, -size0, dx, ncol), r = Cell(y, -size1, dy, nrow);
    const double u = (x - (c * dx - size0)) / dx, w = (y - (r * dy - size1)) / dy;
    Triangle(r, c, w >= u, v);
  }
};

// upward unit normal of a triangle
Vec3 UpNormal(const Vec3 v[3]) {
  Vec3 n = (v[1] - v[0]).cross(v[2] - v[0]).normalized();
  return n.z() < 0 ? Vec3(-n) : n;
}

// the point of triangle v nearest to p (Ericson, Real-Time Collision Detection, 5.1.5)
Vec3 ClosestOnTriangle(const Vec3& p, const Vec3 v[3]) {
  const Vec3 &a = v[0], &b = v[1], &c = v[2];
  const Vec3 ab = b - a, ac = c - a, ap = p - a;
  const double d1 = ab.dot(ap), d2 = ac.dot(ap);
  if (d1 <= 0 && d2 <= 0) return a;
  const Vec3 bp = p - b;
  const double d3 = ab.dot(bp), d4 = ac.dot(bp);
  if (d3 >= 0 && d4 <= d3) return b;
  const double vc = d1 * d4 - d3 * d2;
  if (vc <= 0 && d1 >= 0 && d3 <= 0) return a + ab * (d1 / (d1 - d3));
  const Vec3 cp = p - c;
  const double d5 = ab.dot(cp), d6 = ac.dot(cp);
  if (d6 >= 0 && d5 <= d6) return c;
  const double vb = d5 * d2 - d1 * d6;
  if (vb <= 0 && d2 >= 0 && d6 <= 0) return a + ac * (d2 / (d2 - d6));
  const double va = d3 * d6 - d5 * d4;
  if (va <= 0 && (d4 - d3) >= 0 && (d5 - d6) >= 0) return b + (c - b) * ((d4 - d3) / ((d4 - d3) + (d5 - d6)));
  const double denom = 1 / (va + vb + vc);
  return a + ab * (vb * denom) + ac * (vc * denom);
}

// A point in the height field's frame => a SurfacePoint in world coordinates.
void Emit(const Vec3& xh, const Mat3& Rh, const Vec3& pos_local, const Vec3& normal_local, double dist,
          std::vector<SurfacePoint>& out) {
  SurfacePoint& s = out.emplace_back();
  s.pos = xh + Rh * pos_local;
  s.normal = Rh * normal_local;
  s.dist = dist;
}

void BoxPoints(const mjModel* m, const mjData* d, const Grid& grid, int g1, int g2, double band,
               std::vector<SurfacePoint>& out) {
  const Vec3 xh = MapVec(d->geom_xpos + 3 * g1);
  const Mat3 Rh = MapMat(d->geom_xmat + 9 * g1);
  const Vec3 half = MapVec(m->geom_size + 3 * g2);
  // the box in the height field's frame
  const Vec3 centre = Rh.transpose() * (MapVec(d->geom_xpos + 3 * g2) - xh);
  const Mat3 R = Rh.transpose() * MapMat(d->geom_xmat + 9 * g2);
  if (!centre.allFinite() || !R.allFinite()) return;  // no points of a non-finite pose (the grid indices would be undefined)

  // box vertices against the triangle under each
  for (int k = 0; k < 8; k++) {
    const Vec3 corner((k & 1 ? 1 : -1) * half.x(), (k & 2 ? 1 : -1) * half.y(), (k & 4 ? 1 : -1) * half.z());
    const Vec3 v = centre + R * corner;
    if (!grid.Covers(v.x(), v.y())) continue;
    Vec3 tri[3];
    grid.TriangleUnder(v.x(), v.y(), tri);
    const Vec3 n = UpNormal(tri);
    const double s = (v - tri[0]).dot(n);
    if (s < band) Emit(xh, Rh, v - 0.5 * s * n, n, s, out);
  }

  // grid vertices that are local peaks towards the box, against its nearest face or edge
  const Vec3 extent = R.cwiseAbs() * half + Vec3::Constant(band);
  const int c0 = std::max(0, static_cast<int>(std::ceil((centre.x() - extent.x() + grid.size0) / grid.dx)));
  const int c1 = std::min(grid.ncol - 1, static_cast<int>(std::floor((centre.x() + extent.x() + grid.size0) / grid.dx)));
  const int r0 = std::max(0, static_cast<int>(std::ceil((centre.y() - extent.y() + grid.size1) / grid.dy)));
  const int r1 = std::min(grid.nrow - 1, static_cast<int>(std::floor((centre.y() + extent.y() + grid.size1) / grid.dy)));
  const double tol = 1e-9 * std::max(grid.dx, grid.dy);
  static const int kNeighbour[6][2] = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}, {1, 1}, {-1, -1}};
  for (int r = r0; r <= r1; r++) {
    for (int c = c0; c <= c1; c++) {
      const Vec3 t = grid.Sample(r, c);
      const BoxDistance near = SignedDistanceToBox(R.transpose() * (t - centre), half);
      if (near.nearest.clamped == 3) continue;  // a box vertex: its point against the triangles above
      const double dist = near.dist;
      const Vec3 u = -near.outward;  // from the terrain vertex towards the box (box frame)
      if (dist >= band) continue;
      const Vec3 uh = R * u;
      bool peak = true;
      for (const auto& nb : kNeighbour) {
        const int rr = r + nb[0], cc = c + nb[1];
        if (rr < 0 || cc < 0 || rr >= grid.nrow || cc >= grid.ncol) continue;
        if ((grid.Sample(rr, cc) - t).dot(uh) > -tol) {
          peak = false;
          break;
        }
      }
      if (peak) Emit(xh, Rh, t + 0.5 * dist * uh, uh, dist, out);
    }
  }
}

void SpherePoint(const mjModel* m, const mjData* d, const Grid& grid, int g1, int g2, double band,
                 std::vector<SurfacePoint>& out) {
  const Vec3 xh = MapVec(d->geom_xpos + 3 * g1);
  const Mat3 Rh = MapMat(d->geom_xmat + 9 * g1);
  const double radius = m->geom_size[3 * g2];
  const Vec3 p = Rh.transpose() * (MapVec(d->geom_xpos + 3 * g2) - xh);
  const double reach = radius + band;
  if (!p.allFinite() || !std::isfinite(reach)) return;
  if (std::abs(p.x()) > grid.size0 + reach || std::abs(p.y()) > grid.size1 + reach) return;
  // the centre below the surface: the triangle under it, along its normal
  if (grid.Covers(p.x(), p.y())) {
    Vec3 tri[3];
    grid.TriangleUnder(p.x(), p.y(), tri);
    const Vec3 n = UpNormal(tri);
    const double s = (p - tri[0]).dot(n);
    if (s <= 0) {
      const double dist = s - radius;
      if (dist < band) Emit(xh, Rh, p - n * (0.5 * (s + radius)), n, dist, out);
      return;
    }
  }
  // above it: over the triangles within reach, every point of the surface nearest to the centre
  // locally (a valley touches the ball on two faces at once): a triangle's nearest point counts
  // when it is also the nearest point of every other triangle it lies on (interior points always;
  // a point on a shared edge or vertex once, when all the triangles around it agree)
  const int c0 = Grid::Cell(p.x() - reach, -grid.size0, grid.dx, grid.ncol);
  const int c1 = Grid::Cell(p.x() + reach, -grid.size0, grid.dx, grid.ncol);
  const int r0 = Grid::Cell(p.y() - reach, -grid.size1, grid.dy, grid.nrow);
  const int r1 = Grid::Cell(p.y() + reach, -grid.size1, grid.dy, grid.nrow);
  struct Candidate {
    Vec3 tri[3];
    Vec3 nearest;
  };
  thread_local std::vector<Candidate> candidates;
  candidates.clear();
  for (int r = r0; r <= r1; r++) {
    for (int c = c0; c <= c1; c++) {
      for (const bool upper : {true, false}) {
        Candidate& k = candidates.emplace_back();
        grid.Triangle(r, c, upper, k.tri);
        k.nearest = ClosestOnTriangle(p, k.tri);
      }
    }
  }
  const double tol = 1e-12 * std::max({1.0, grid.size0, grid.size1});
  const size_t first = out.size();
  for (const Candidate& k : candidates) {
    const double centre_dist = (p - k.nearest).norm();
    const double dist = centre_dist - radius;
    if (dist >= band || centre_dist == 0) continue;
    bool local = true;
    for (const Candidate& other : candidates) {
      if (&other == &k || (ClosestOnTriangle(k.nearest, other.tri) - k.nearest).norm() > tol) continue;
      if ((other.nearest - k.nearest).norm() > tol) {
        local = false;
        break;
      }
    }
    if (!local) continue;
    const Vec3 n = (p - k.nearest) / centre_dist;
    const Vec3 pos_local = k.nearest + 0.5 * dist * n;
    bool seen = false;
    for (size_t i = first; i < out.size() && !seen; i++) seen = (out[i].pos - (xh + Rh * pos_local)).norm() <= tol;
    if (!seen) Emit(xh, Rh, pos_local, n, dist, out);
  }
}

}  // namespace

bool OwnHeightFieldPoints(const mjModel* m, int g1, int g2) {
  return g1 >= 0 && g2 >= 0 && m->geom_type[g1] == mjGEOM_HFIELD &&
         (m->geom_type[g2] == mjGEOM_BOX || m->geom_type[g2] == mjGEOM_SPHERE);
}

void HeightFieldPoints(const mjModel* m, const mjData* d, int g1, int g2, double band,
                       std::vector<SurfacePoint>& out) {
  if (!OwnHeightFieldPoints(m, g1, g2)) return;
  const Grid grid(m, g1);
  if (grid.nrow < 2 || grid.ncol < 2) return;
  if (m->geom_type[g2] == mjGEOM_BOX) {
    BoxPoints(m, d, grid, g1, g2, band, out);
  } else {
    SpherePoint(m, d, grid, g1, g2, band, out);
  }
}

}  // namespace saltation
