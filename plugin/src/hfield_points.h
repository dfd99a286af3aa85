// Contact points of a height field against a box or a sphere, from the height field's own
// triangles.
//
// MuJoCo's height-field collision (mjc_ConvexHField) runs one convex test per triangular prism
// and keeps one point per prism, the deepest: a box corner near the surface is not listed while
// another part of the box is deeper in the same prism, so the rigid reference saw corners "appear
// penetrating" and the hook saw them late. These points are the ones a rigid model needs:
//   - every box vertex against the triangle under it (its distance along that triangle's normal:
//     zero exactly when the vertex lies on the surface, with the face's normal);
//   - every grid vertex of the height field that is a local peak towards the box against the
//     box's face or edge nearest to it (a box face resting on a bump);
//   - a sphere: its centre's nearest point over the triangles near it, minus the radius.
// Not represented: a box edge crossing a terrain ridge (edge against edge), the height field's
// sides and base. The triangulation is MuJoCo's: cell (r, c) is split along the diagonal from
// sample (r, c) to (r + 1, c + 1); sample (r, c) sits at x = c·dx − size[0], y = r·dy − size[1],
// z = data[r·ncol + c]·size[2] in the height field geom's frame.
//
// Reads m's height field, geom sizes and types, d's geom_xpos and geom_xmat; writes `out`.
#ifndef SALTATION_HFIELD_POINTS_H_
#define SALTATION_HFIELD_POINTS_H_

#include <mujoco/mujoco.h>

#include <Eigen/Dense>
#include <vector>

namespace saltation {

struct SurfacePoint {
  Eigen::Vector3d pos;     // midpoint between the two surfaces (world)
  Eigen::Vector3d normal;  // unit, from the height field towards the other geom (world)
  double dist = 0;         // signed distance between the surfaces (negative: penetrating)
};

// Whether g1 is a height field and g2 a box or a sphere (the pairs HeightFieldPoints serves).
bool OwnHeightFieldPoints(const mjModel* m, int g1, int g2);

// (d's geom poses) => out: the points of the pair (g1 a height field, g2 a box or sphere) whose
// distance is below `band` (MuJoCo's detection band of the pair, margin + gap). `out` is cleared.
void HeightFieldPoints(const mjModel* m, const mjData* d, int g1, int g2, double band,
                       std::vector<SurfacePoint>& out);

}  // namespace saltation

#endif  // SALTATION_HFIELD_POINTS_H_
