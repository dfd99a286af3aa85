// The dispatch of the pairs whose points are our own (own_points.h) to their families, and the
// families' shared dedupe of coinciding points.
#include "own_points.h"

namespace saltation {

bool HasOwnPoints(const mjModel* m, int g1, int g2) {
  return OwnHeightFieldPoints(m, g1, g2) || OwnPlaneMeshPoints(m, g1, g2) ||
         OwnCapsuleBoxPoints(m, g1, g2) || OwnBoxBoxPoints(m, g1, g2) ||
         OwnCapsuleCapsulePoints(m, g1, g2) || OwnPlaneCylinderPoints(m, g1, g2);
}

void OwnPoints(const mjModel* m, const mjData* d, int g1, int g2, double band, std::vector<SurfacePoint>& out) {
  out.clear();
  HeightFieldPoints(m, d, g1, g2, band, out);
  PlaneMeshPoints(m, d, g1, g2, band, out);
  CapsuleBoxPoints(m, d, g1, g2, band, out);
  BoxBoxPoints(m, d, g1, g2, band, out);
  CapsuleCapsulePoints(m, d, g1, g2, band, out);
  PlaneCylinderPoints(m, d, g1, g2, band, out);
}

void AppendUnlessCoincident(const SurfacePoint& p, size_t first, double same, std::vector<SurfacePoint>& out) {
  for (size_t k = first; k < out.size(); k++) {
    if ((out[k].pos - p.pos).norm() <= same) return;
  }
  out.push_back(p);
}

}  // namespace saltation
