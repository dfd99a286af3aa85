// A capsule against a capsule (own_points.h): each end sphere of either capsule against the other's
// segment, and the lines' common perpendicular where it meets both open segments and the lines are
// further from parallel than CapsuleInteriorThreshold; each within the band; where the interior is
// listed, an end only inside its own region (own_points.h: the hand-over is one contact's feature).
#include <algorithm>
#include <cmath>

#include "own_points.h"
#include "segment_features.h"

namespace saltation {

bool OwnCapsuleCapsulePoints(const mjModel* m, int g1, int g2) {
  return g1 >= 0 && g2 >= 0 && g1 < m->ngeom && g2 < m->ngeom && m->geom_type[g1] == mjGEOM_CAPSULE &&
         m->geom_type[g2] == mjGEOM_CAPSULE;
}

double CapsuleInteriorThreshold(const mjModel* m, int g1, int g2) {
  const double r = m->geom_size[3 * g1] + m->geom_size[3 * g2];
  const double span = m->geom_size[3 * g1 + 1] + m->geom_size[3 * g2 + 1];
  const double eps = 1e-6 * r;
  // not below four times segment_features' parallel lines (1e-9), where the common perpendicular
  // is refused: a held interior's RK4 stages just past the threshold still have it
  return std::max(2 * r * eps / (span * span), 4e-9);
}

void CapsuleCapsulePoints(const mjModel* m, const mjData* d, int g1, int g2, double band,
                          std::vector<SurfacePoint>& out) {
  if (!OwnCapsuleCapsulePoints(m, g1, g2)) return;
  const Segments s = SegmentsOf(m, d, g1, g2);
  const double r[2] = {m->geom_size[3 * g1], m->geom_size[3 * g2]};
  for (int i = 0; i < 2; i++) {
    if (!s.c[i].allFinite() || !s.e[i].allFinite()) return;
  }
  if (!std::isfinite(band)) return;
  const double same = 1e-9 * std::max({s.half[0], s.half[1], r[0], r[1]});
  const size_t first = out.size();
  // the point of the region σ (its nearest points on the two segments, sphere–sphere between them)
  auto emit = [&](const int sigma[2], const double t[2]) {
    const Eigen::Vector3d p1 = s.c[0] + t[0] * s.e[0], p2 = s.c[1] + t[1] * s.e[1];
    const Eigen::Vector3d delta = p2 - p1;
    const double sep = delta.norm();
    if (!(sep > same)) return;  // the segments touch: no normal
    const double dist = sep - r[0] - r[1];
    if (!(dist < band)) return;
    SurfacePoint p;
    p.normal = delta / sep;
    p.pos = p1 + (r[0] + 0.5 * dist) * p.normal;
    p.dist = dist;
    p.segment_feature = SegmentFeatureCode(sigma[0], sigma[1]);
    AppendUnlessCoincident(p, first, same, out);
  };
  // the interior: the lines' common perpendicular inside both open segments, away from parallel
  const double c = s.e[0].dot(s.e[1]);
  double t_interior[2];
  const int interior[2] = {0, 0};
  const bool has_interior = 1 - c * c >= CapsuleInteriorThreshold(m, g1, g2) &&
                            NearestParams(s, interior, t_interior) && std::abs(t_interior[0]) < s.half[0] &&
                            std::abs(t_interior[1]) < s.half[1];
  // each end of side i against side j's segment (SegmentEnds: its foot on j's line, clamped to j's
  // ends); where the interior is a point, only inside the end's own region on side i (its
  // nearest-point condition σ_i e_i·(P_j − c_i) ≥ L_i, the guard segment_features.h holds it by):
  // outside it the interior is the nearer point and the end's would be the same contact listed twice
  for (const SegmentEnd& e : SegmentEnds(s)) {
    const int i = e.side;
    if (has_interior && !(e.end * s.e[i].dot(e.foot - s.c[i]) >= s.half[i])) continue;
    emit(e.sigma, e.t);
  }
  if (has_interior) emit(interior, t_interior);
}

}  // namespace saltation
