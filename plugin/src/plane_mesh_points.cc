// A plane against a mesh's convex hull: every hull vertex within the band (own_points.h).
#include "own_points.h"

namespace saltation {

bool OwnPlaneMeshPoints(const mjModel* m, int g1, int g2) {
  return g1 >= 0 && g2 >= 0 && m->geom_type[g1] == mjGEOM_PLANE && m->geom_type[g2] == mjGEOM_MESH &&
         m->geom_dataid[g2] >= 0;
}

void PlaneMeshPoints(const mjModel* m, const mjData* d, int g1, int g2, double band, std::vector<SurfacePoint>& out) {
  if (!OwnPlaneMeshPoints(m, g1, g2)) return;
  using Vec3 = Eigen::Vector3d;
  using RowMat3 = Eigen::Matrix<double, 3, 3, Eigen::RowMajor>;
  const Eigen::Map<const RowMat3> R1(d->geom_xmat + 9 * g1), R2(d->geom_xmat + 9 * g2);
  const Vec3 origin = Eigen::Map<const Vec3>(d->geom_xpos + 3 * g1);
  const Vec3 x2 = Eigen::Map<const Vec3>(d->geom_xpos + 3 * g2);
  const Vec3 normal = R1.col(2);  // the plane's z axis, from the plane towards the mesh's side
  const int mesh = m->geom_dataid[g2];
  const float* vert = m->mesh_vert + 3 * m->mesh_vertadr[mesh];
  // the hull's vertices (mesh_graph: numvert, numface, vert_edgeadr[numvert], vert_globalid[numvert],
  // …), or every vertex of a mesh without a hull graph
  const int graph = m->mesh_graphadr[mesh];
  const int count = graph >= 0 ? m->mesh_graph[graph] : m->mesh_vertnum[mesh];
  const int* global = graph >= 0 ? m->mesh_graph + graph + 2 + count : nullptr;
  for (int i = 0; i < count; i++) {
    const int v = global ? global[i] : i;
    const Vec3 local(vert[3 * v], vert[3 * v + 1], vert[3 * v + 2]);
    const Vec3 world = x2 + R2 * local;
    const double dist = (world - origin).dot(normal);
    if (!(dist < band)) continue;
    SurfacePoint& s = out.emplace_back();
    s.pos = world - 0.5 * dist * normal;
    s.normal = normal;
    s.dist = dist;
  }
}

}  // namespace saltation
