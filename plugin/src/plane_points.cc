// A plane against a mesh's convex hull (own_points.h): each hull vertex within the band.
#include "own_points.h"

namespace saltation {

namespace {

using Vec3 = Eigen::Vector3d;
using RowMat3 = Eigen::Matrix<double, 3, 3, Eigen::RowMajor>;

// The plane g1 (its origin and its z axis, from the plane towards the other geom's side) against
// vertices of geom g2 (its convex hull's): each vertex `local` (g2's frame) whose distance along the normal is below
// the band (MuJoCo's planes are unbounded), midway between it and the plane.
struct PlaneVertices {
  Vec3 origin, normal, x2;
  RowMat3 R2;
  double band;
  std::vector<SurfacePoint>& out;

  PlaneVertices(const mjData* d, int g1, int g2, double band_, std::vector<SurfacePoint>& out_)
      : origin(Eigen::Map<const Vec3>(d->geom_xpos + 3 * g1)),
        normal(Eigen::Map<const RowMat3>(d->geom_xmat + 9 * g1).col(2)),
        x2(Eigen::Map<const Vec3>(d->geom_xpos + 3 * g2)),
        R2(Eigen::Map<const RowMat3>(d->geom_xmat + 9 * g2)),
        band(band_),
        out(out_) {}

  void operator()(const Vec3& local) const {
    const Vec3 world = x2 + R2 * local;
    const double dist = (world - origin).dot(normal);
    if (!(dist < band)) return;
    SurfacePoint& s = out.emplace_back();
    s.pos = world - 0.5 * dist * normal;
    s.normal = normal;
    s.dist = dist;
  }
};

}  // namespace

bool OwnPlaneMeshPoints(const mjModel* m, int g1, int g2) {
  return g1 >= 0 && g2 >= 0 && m->geom_type[g1] == mjGEOM_PLANE && m->geom_type[g2] == mjGEOM_MESH &&
         m->geom_dataid[g2] >= 0;
}

void PlaneMeshPoints(const mjModel* m, const mjData* d, int g1, int g2, double band, std::vector<SurfacePoint>& out) {
  if (!OwnPlaneMeshPoints(m, g1, g2)) return;
  const PlaneVertices emit(d, g1, g2, band, out);
  const int mesh = m->geom_dataid[g2];
  const float* vert = m->mesh_vert + 3 * m->mesh_vertadr[mesh];
  // the hull's vertices (mesh_graph: numvert, numface, vert_edgeadr[numvert], vert_globalid[numvert],
  // …), or every vertex of a mesh without a hull graph
  const int graph = m->mesh_graphadr[mesh];
  const int count = graph >= 0 ? m->mesh_graph[graph] : m->mesh_vertnum[mesh];
  const int* global = graph >= 0 ? m->mesh_graph + graph + 2 + count : nullptr;
  for (int i = 0; i < count; i++) {
    const int v = global ? global[i] : i;
    emit(Vec3(vert[3 * v], vert[3 * v + 1], vert[3 * v + 2]));
  }
}

}  // namespace saltation
