// A box geom's frame as the box–box code reads it: centre, half sizes, axes (world) and body, and
// its vertices numbered by the signs of their local coordinates (bit 0: +x, bit 1: +y, bit 2: +z).
//
//   BoxFrameOf (m, d, g)  => geom g's frame, read from d's geom_xpos / geom_xmat and m's geom_size
//                            (positions must be current in d); reads nothing else
//   LocalVertex(b, v)     => vertex v in the box's own frame
//   WorldVertex(b, v)     => vertex v in world coordinates
//
// Used by box_box_points.cc (the pair's points) and box_box_features.cc (the held features), so
// both number a box's vertices the same way.
#ifndef SALTATION_BOX_FRAME_H_
#define SALTATION_BOX_FRAME_H_

#include <Eigen/Dense>
#include <mujoco/mujoco.h>

namespace saltation {

struct BoxFrame {
  Eigen::Vector3d x, half;
  Eigen::Matrix<double, 3, 3, Eigen::RowMajor> R;  // columns: the box's axes (world)
  int body = -1;
};

inline BoxFrame BoxFrameOf(const mjModel* m, const mjData* d, int g) {
  using RowMat3 = Eigen::Matrix<double, 3, 3, Eigen::RowMajor>;
  return {Eigen::Map<const Eigen::Vector3d>(d->geom_xpos + 3 * g), Eigen::Map<const Eigen::Vector3d>(m->geom_size + 3 * g),
          Eigen::Map<const RowMat3>(d->geom_xmat + 9 * g), m->geom_bodyid[g]};
}

inline Eigen::Vector3d LocalVertex(const BoxFrame& b, int vertex) {
  return {vertex & 1 ? b.half(0) : -b.half(0), vertex & 2 ? b.half(1) : -b.half(1), vertex & 4 ? b.half(2) : -b.half(2)};
}

inline Eigen::Vector3d WorldVertex(const BoxFrame& b, int vertex) { return b.x + b.R * LocalVertex(b, vertex); }

}  // namespace saltation

#endif  // SALTATION_BOX_FRAME_H_
