#include "capsule_rocking.h"

#include <cmath>
#include <cstdio>

#include "saltation/mode_dynamics.h"
#include "own_points.h"
#include "segment_features.h"

namespace saltation {

double InteriorRockingRate(const Model& model, mjData* d, const ContactId& id, double normal_force,
                           const RowMatrix& held) {
  const mjModel* m = model.mj();
  if (!OwnCapsuleCapsulePoints(m, id.geom1, id.geom2) || id.feature != SegmentFeatureCode(0, 0)) return 0;
  if (!(normal_force > 0)) return 0;
  const Segments s = SegmentsOf(m, d, id.geom1, id.geom2);
  const int interior[2] = {0, 0};
  double t[2];
  if (!NearestParams(s, interior, t)) return 0;
  const Eigen::Vector3d p1 = s.c[0] + t[0] * s.e[0], p2 = s.c[1] + t[1] * s.e[1];
  const double separation = (p2 - p1).norm(), c = s.e[0].dot(s.e[1]);
  Eigen::Vector3d u = s.e[0].cross(p2 - p1);
  if (!(separation > 0) || !(u.norm() > 0)) return 0;
  u.normalize();
  const double rho = separation / (1 - c * c);
  // the relative rotation's mobility about u, a = uᵀ(R₁ − R₂) M⁻¹ (R₁ − R₂)ᵀ u, less what the held rows
  // H take: a − bᵀ A⁺ b with A = H M⁻¹ Hᵀ, b = H M⁻¹ (R₁ − R₂)ᵀ u. With the contact's own normal row
  // the rocking turns about the contact point (I + m d², d its distance from the centre of mass)
  const int nv = m->nv;
  Eigen::Matrix<double, 3, Eigen::Dynamic, Eigen::RowMajor> r1(3, nv), r2(3, nv);
  mj_jac(m, d, nullptr, r1.data(), p1.data(), s.body[0]);
  mj_jac(m, d, nullptr, r2.data(), p2.data(), s.body[1]);
  const Eigen::VectorXd row = ((r1 - r2).transpose() * u).eval();
  Eigen::VectorXd solved(nv);
  mj_solveM(m, d, solved.data(), row.data(), 1);
  double mobility = row.dot(solved);
  if (held.rows() > 0) {
    RowMatrix minv_ht(held.cols(), held.rows());  // M⁻¹ Hᵀ, column by column
    for (int k = 0; k < held.rows(); k++) {
      const Eigen::VectorXd o = held.row(k).transpose();
      Eigen::VectorXd x(nv);
      mj_solveM(m, d, x.data(), o.data(), 1);
      minv_ht.col(k) = x;
    }
    const Eigen::MatrixXd a = held * minv_ht;
    const Eigen::VectorXd b = held * solved;
    mobility -= b.dot(a.completeOrthogonalDecomposition().solve(b));
  }
  if (!(mobility > 1e-12 * row.dot(solved))) return 0;
  return std::sqrt(normal_force * rho * mobility);
}

std::string StiffRockingError(const Model& model, Data& data, const HybridState& s, double step) {
  const mjModel* m = model.mj();
  bool any = false;
  for (const ContactId& id : s.mode.contacts) {
    any = any || (OwnCapsuleCapsulePoints(m, id.geom1, id.geom2) && id.feature == SegmentFeatureCode(0, 0));
  }
  if (!any) return "";
  const ModeDynamics dyn = EvaluateMode(model, data, s.x, s.mode);
  mjData* d = data.main();
  const double limit = 2 * std::sqrt(2.0);
  for (size_t k = 0; k < s.mode.contacts.size(); k++) {
    const ContactId& id = s.mode.contacts[k];
    const double omega = InteriorRockingRate(model, d, id, dyn.normal_force(k), dyn.constraints.J);
    if (!(omega * step > limit)) continue;
    const Segments seg = SegmentsOf(m, d, id.geom1, id.geom2);
    const double c = seg.e[0].dot(seg.e[1]);
    char buf[400];
    std::snprintf(buf, sizeof(buf),
                  " held on the capsules' interior point at t = %.9g, 1 − c² = %.3g from parallel, rocks at ω ≈ %.3g"
                  " rad/s (its foot moves (r₁ + r₂)/(1 − c²) per radian of pitch): the RK4 step %.3g s is unstable"
                  " for it (ω h = %.3g > 2√2); a step below %.3g s resolves it (the rigid command's --step,"
                  " SimulatorOptions::step)",
                  s.x.time, 1 - c * c, omega, step, omega * step, limit / omega);
    return "contact " + ContactLabel(model, id) + buf;
  }
  return "";
}

}  // namespace saltation
