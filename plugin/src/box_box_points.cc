// A box against a box (own_points.h): each box's vertices over a face of the other, and each pair
// of edges (one per box) whose lines' common perpendicular meets both open edges, each within the
// band.
#include <algorithm>
#include <cmath>

#include "box_frame.h"

#include "box_box_features.h"
#include "own_points.h"

namespace saltation {

namespace {

using Vec3 = Eigen::Vector3d;
using RowMat3 = Eigen::Matrix<double, 3, 3, Eigen::RowMajor>;

using Box = BoxFrame;

// the pair's points so far: a point within `same` of one the pair already has is that one (a
// vertex on the other box's rim: its point and its edges' points coincide there) and is left out
struct Emitter {
  double band, same;
  size_t first;
  std::vector<SurfacePoint>& out;

  // pos: on geom1's surface; normal: unit, geom1 → geom2; feature: box_box_features.h's code
  void operator()(const Vec3& on1, const Vec3& normal, double dist, int feature) const {
    if (!(dist < band)) return;
    SurfacePoint s;
    s.pos = on1 + 0.5 * dist * normal;
    s.normal = normal;
    s.dist = dist;
    s.box_box_feature = feature;
    AppendUnlessCoincident(s, first, same, out);
  }
};

// how far (the sine of the angle) an edge–edge normal may point into one of the edges' faces and
// still be listed. Random pairs of boxes within 0.1 m of each other (14284, two seeds) gave no
// point below the pair's distance (mj_geomDistance) at 0.1, one at 0.3 (0.054 m below), 69 at 0.5
// (BoxBoxPoints.NoPointIsCloserThanTheBoxes). Wide enough that a face turning flat onto another at
// 20 rad/s lists its rim corner some 5 ms before it touches (at 1e-2 it appeared 0.9 mm away and
// crossed within the same 1 ms step: 'appeared penetrating' in a box pile).
constexpr double kOutOfCone = 0.1;

// the vertices of box `a` over a face of box `b` (or inside it): the vertex's height over that
// face's plane (inside: minus its depth below the least deep face), the face's outward normal;
// `sign` +1: a is geom1 (the normal geom1 → geom2 is minus the face's), −1: a is geom2. Only faces
// whose normal the vertex can touch along: −outward within the vertex's normal cone up to
// kOutOfCone (the vertex is a's support towards the face, as an edge–edge point's edges are). A
// vertex at b's rim lies on two faces' planes to round-off; the one it is not a's support towards
// (a cube's top corner reaching the side of a cube of its height beside it, level with its top) is
// no contact: its normal at right angles to the approach made a touchdown of the wrong row.
void VertexPoints(const Box& a, const Box& b, double sign, double rim, const Emitter& emit) {
  const RowMat3 Rab = b.R.transpose() * a.R;  // a's axes in b's frame
  for (int v = 0; v < 8; v++) {
    const Vec3 corner = LocalVertex(a, v);
    const Vec3 world = a.x + a.R * corner;
    const Vec3 p = b.R.transpose() * (world - b.x);
    const Vec3 excess = p.cwiseAbs() - b.half;
    int face = -1;
    for (int f = 0; f < 3; f++) {
      // how far the vertex's outward directions point against the face's outward normal (b's frame)
      const double side = p(f) > 0 ? 1.0 : -1.0;
      double out_of_cone = 0;
      for (int j = 0; j < 3; j++) out_of_cone = std::max(out_of_cone, (corner(j) > 0 ? 1.0 : -1.0) * side * Rab(f, j));
      if (out_of_cone <= kOutOfCone && (face < 0 || excess(f) > excess(face))) face = f;
    }
    if (face < 0) continue;
    const double dist = excess(face);
    bool over = true;  // within the face's region up to `rim` along its other two axes
    for (int i = 0; i < 3; i++) {
      if (i != face && excess(i) > rim) over = false;
    }
    if (!over) continue;
    const Vec3 outward = (p(face) > 0 ? 1.0 : -1.0) * b.R.col(face);
    // the point on geom1's surface: the vertex itself (a is geom1), or the face point below it
    emit(sign > 0 ? world : Vec3(world - dist * outward), -sign * outward, dist,
         VertexFaceFeature(sign > 0 ? 0 : 1, v, face, p(face) > 0 ? 1 : -1));
  }
}

// the outward bisector of a box edge (box frame): along its two clamped axes, their signs
Vec3 Bisector(const int sign[3]) { return Vec3(sign[0], sign[1], sign[2]); }

}  // namespace

bool OwnBoxBoxPoints(const mjModel* m, int g1, int g2) {
  return g1 >= 0 && g2 >= 0 && m->geom_type[g1] == mjGEOM_BOX && m->geom_type[g2] == mjGEOM_BOX;
}

void BoxBoxPoints(const mjModel* m, const mjData* d, int g1, int g2, double band, std::vector<SurfacePoint>& out) {
  if (!OwnBoxBoxPoints(m, g1, g2)) return;
  const Box b1 = BoxFrameOf(m, d, g1), b2 = BoxFrameOf(m, d, g2);
  if (!b1.x.allFinite() || !b2.x.allFinite() || !b1.R.allFinite() || !b2.R.allFinite() || !std::isfinite(band)) return;
  const double scale = std::max(b1.half.maxCoeff(), b2.half.maxCoeff());
  const double rim = 1e-9 * scale;
  const Emitter emit{band, 1e-9 * scale, out.size(), out};

  VertexPoints(b1, b2, 1, rim, emit);
  VertexPoints(b2, b1, -1, rim, emit);

  // edge against edge, in box 2's frame: box 1's edge along axis i (centre c, unit direction e1,
  // half length L1) and box 2's along axis k. Where the lines' common perpendicular meets both
  // open edges, the signed distance along n = ±(e1 × e2)/|e1 × e2|, n taken outward from box 2's
  // edge (n · its outward bisector > 0), if n lies in box 2's edge's normal cone and −n in box
  // 1's (an edge across an edge) up to kOutOfCone: n may point into one of the edges' faces by at
  // most that much (the sine of the angle). Within the cones the signed distance is the boxes' own
  // (at a contact each edge is its box's support along ∓n); just outside them it is the height of
  // one box's edge over the other's rim where a face lies nearly flat on a face, the corners of a
  // face-on-face support, which must stay listed whatever their tilt by round-off (MuJoCo's axis
  // choice flickers exactly there), and which a face rotating down flat onto the other brings to
  // zero as a located crossing. Further out the lines' distance is not the boxes' (an edge's line
  // passes into the other box through a face: the lines' distance falls below the boxes', by up to
  // 0.25 m in the fuzzing of kOutOfCone at 0.5); n · (c1 − c2) > 0 keeps
  // out the faces' far edges (a box's bottom against the top of the box below it). Parallel edges
  // (1 − cos² below 1e-12) are left to the vertices.
  const RowMat3 R12 = b2.R.transpose() * b1.R;  // box 1's axes in box 2's frame
  const Vec3 c1 = b2.R.transpose() * (b1.x - b2.x);
  // the boxes' largest separation along a face's normal (the six face axes of the separating-axis
  // test; negative: they overlap along every one of them, by that much at least)
  double face_separation = -INFINITY;
  for (int a = 0; a < 3; a++) {
    const double radius1 = R12.row(a).cwiseAbs().dot(b1.half), radius2 = R12.col(a).cwiseAbs().dot(b2.half);
    face_separation = std::max({face_separation, std::abs(c1(a)) - b2.half(a) - radius1,
                                std::abs(R12.col(a).dot(c1)) - b1.half(a) - radius2});
  }
  for (int i = 0; i < 3; i++) {
    const Vec3 e1 = R12.col(i);
    for (int s1 = 0; s1 < 4; s1++) {
      int sign1[3] = {0, 0, 0};
      sign1[(i + 1) % 3] = s1 & 1 ? 1 : -1;
      sign1[(i + 2) % 3] = s1 & 2 ? 1 : -1;
      Vec3 mid1 = Vec3::Zero();  // the edge's midpoint (box 1's frame)
      for (int a = 0; a < 3; a++) mid1(a) = sign1[a] * b1.half(a);
      const Vec3 p1 = c1 + R12 * mid1;
      for (int k = 0; k < 3; k++) {
        const double cosine = e1(k), denom = 1 - cosine * cosine;
        if (denom < 1e-12) continue;
        for (int s2 = 0; s2 < 4; s2++) {
          int sign2[3] = {0, 0, 0};
          sign2[(k + 1) % 3] = s2 & 1 ? 1 : -1;
          sign2[(k + 2) % 3] = s2 & 2 ? 1 : -1;
          Vec3 p2 = Vec3::Zero();
          for (int a = 0; a < 3; a++) p2(a) = sign2[a] * b2.half(a);
          const Vec3 w = p1 - p2;
          const double we1 = e1.dot(w), we2 = w(k);
          const double t = (cosine * we2 - we1) / denom;  // along box 1's edge
          const double u = (we2 - cosine * we1) / denom;  // along box 2's edge
          if (!(std::abs(t) < b1.half(i)) || !(std::abs(u) < b2.half(k))) continue;
          Vec3 n = e1.cross(Vec3::Unit(k)).normalized();
          if (n.dot(Bisector(sign2)) < 0) n = -n;
          double out_of_cone = 0;  // how far n points into one of the two edges' faces
          for (int a = 0; a < 3; a++) {
            if (sign2[a]) out_of_cone = std::max(out_of_cone, -sign2[a] * n(a));
            if (sign1[a]) out_of_cone = std::max(out_of_cone, sign1[a] * n.dot(R12.col(a)));
          }
          if (!(out_of_cone <= kOutOfCone) || !(n.dot(c1) > 0)) continue;
          const Vec3 on1 = p1 + t * e1;
          Vec3 on2 = p2;
          on2(k) = u;
          const double dist = n.dot(on1 - on2);
          // a penetration along n no deeper than along every face normal: else the edges' lines
          // pass each other beside two faces that lie on one another (a box's vertical edge
          // under the bottom edge of the box resting on it, 0.12 m 'deep' along the side's normal
          // on the pile's 7 cm boxes)
          if (dist < 0 && dist < face_separation - rim - 2 * kOutOfCone * -dist) continue;
          emit(b2.x + b2.R * on1, -(b2.R * n), dist,  // geom1 → geom2: −n
               EdgeEdgeFeature(EdgeCode(i, sign1), EdgeCode(k, sign2)));
        }
      }
    }
  }
}

}  // namespace saltation
