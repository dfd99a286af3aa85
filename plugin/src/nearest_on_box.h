// A point's nearest point on a box, in the box's own frame (centre at the origin, axes its axes,
// half sizes `half`): the point's coordinates clamped to [−half, half], axis by axis. Which axes
// were clamped, and to which side, names the box's feature nearest to the point: none, the point
// is inside (or on the surface); one, a face; two, an edge; three, a vertex.
//
//   NearestOnBox        (p, half) => the nearest point of the solid box, the clamped axes
//   SignedDistanceToBox (p, half) => the nearest point of the surface, the outward direction and
//                                    the signed distance (negative inside: the depth below the
//                                    nearest face)
//
// Pure functions of their arguments: they read and write nothing else.
#ifndef SALTATION_NEAREST_ON_BOX_H_
#define SALTATION_NEAREST_ON_BOX_H_

#include <Eigen/Dense>
#include <cmath>

namespace saltation {

struct BoxNearest {
  Eigen::Vector3d point;  // nearest point of the solid box (p itself when inside)
  int sigma[3] = {0, 0, 0};  // per axis: +1 (−1) p lies beyond the face at +half (−half), 0 within
  int clamped = 0;        // how many axes were clamped: 0 inside, 1 face, 2 edge, 3 vertex
};

inline BoxNearest NearestOnBox(const Eigen::Vector3d& p, const Eigen::Vector3d& half) {
  BoxNearest b;
  b.point = p;
  for (int a = 0; a < 3; a++) {
    b.sigma[a] = p(a) > half(a) ? 1 : p(a) < -half(a) ? -1 : 0;
    if (b.sigma[a]) b.point(a) = b.sigma[a] * half(a);
    b.clamped += b.sigma[a] != 0;
  }
  return b;
}

struct BoxDistance {
  BoxNearest nearest;       // NearestOnBox(p, half)
  Eigen::Vector3d surface;  // the surface's point nearest to p
  Eigen::Vector3d outward;  // unit: from `surface` towards p outside; the nearest face's outward
                            // normal inside (the first of equally deep faces; its −side on the mid-plane)
  double dist = 0;          // |p − surface| outside, −(depth below the nearest face) inside
};

inline BoxDistance SignedDistanceToBox(const Eigen::Vector3d& p, const Eigen::Vector3d& half) {
  BoxDistance b;
  b.nearest = NearestOnBox(p, half);
  if (b.nearest.clamped == 0) {
    int face = 0;
    (half - p.cwiseAbs()).minCoeff(&face);
    const double sign = p(face) > 0 ? 1 : -1;
    b.dist = -(half(face) - std::abs(p(face)));
    b.outward = Eigen::Vector3d::Zero();
    b.outward(face) = sign;
    b.surface = p;
    b.surface(face) = sign * half(face);
  } else {
    b.surface = b.nearest.point;
    b.dist = (p - b.surface).norm();
    b.outward = (p - b.surface) / b.dist;
  }
  return b;
}

}  // namespace saltation

#endif  // SALTATION_NEAREST_ON_BOX_H_
