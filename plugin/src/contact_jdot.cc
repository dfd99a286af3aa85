#include "contact_jdot.h"

#include <algorithm>
#include <cmath>

namespace saltation {
namespace {

using Vec3 = Eigen::Vector3d;
using Jac = Eigen::Matrix<double, 3, Eigen::Dynamic, Eigen::RowMajor>;

Vec3 Column(const mjtNum* mat, int c) { return Vec3(mat[c], mat[3 + c], mat[6 + c]); }

// The sphere centre fixed on geom2's body whose plane point is p's (the sphere's centre, or the
// capsule end that MuJoCo's mjc_PlaneCapsule tested), with the distance d; false when neither is.
bool SphereCentre(const mjModel* m, const mjData* d, const ContactPoint& p, Vec3& s, double& dist) {
  const int g1 = p.id.geom1, g2 = p.id.geom2;
  const Vec3 n = p.frame.row(0).transpose();
  const Vec3 p0 = Eigen::Map<const Vec3>(d->geom_xpos + 3 * g1);
  const Vec3 centre = Eigen::Map<const Vec3>(d->geom_xpos + 3 * g2);
  const double r = m->geom_size[3 * g2];
  Vec3 candidates[2] = {centre, centre};
  int count = 1;
  if (m->geom_type[g2] == mjGEOM_CAPSULE) {
    const Vec3 half = m->geom_size[3 * g2 + 1] * Column(d->geom_xmat + 9 * g2, 2);
    candidates[0] = centre + half;
    candidates[1] = centre - half;
    count = 2;
  }
  double best = INFINITY;
  for (int k = 0; k < count; k++) {
    const double dk = n.dot(candidates[k] - p0) - r;
    const double miss = (candidates[k] - n * (r + dk / 2) - p.pos).norm();
    if (miss < best) {
      best = miss;
      s = candidates[k];
      dist = dk;
    }
  }
  return best <= 1e-9 * std::max(r, 1e-6);
}

}  // namespace

bool HasContactJdot(const mjModel* m, const ContactId& id) {
  if (id.feature >= 0 || id.geom1 < 0 || id.geom2 < 0) return false;
  const int t2 = m->geom_type[id.geom2];
  return m->geom_type[id.geom1] == mjGEOM_PLANE && (t2 == mjGEOM_SPHERE || t2 == mjGEOM_CAPSULE);
}

bool ContactJdot(const mjModel* m, const mjData* d, const ContactPoint& p, const double* qvel,
                 Eigen::Ref<RowMatrix> rows) {
  Vec3 s = Vec3::Zero();
  double dist = 0;
  if (!SphereCentre(m, d, p, s, dist)) return false;
  const int nv = m->nv;
  const Eigen::Map<const Eigen::VectorXd> v(qvel, nv);
  const int body[2] = {m->geom_bodyid[p.id.geom1], m->geom_bodyid[p.id.geom2]};
  const double r = m->geom_size[3 * p.id.geom2];
  const Vec3 n = p.frame.row(0).transpose();
  const Vec3 c = p.pos;

  // per body: Jacobians at c (translation, rotation), mj_jacDot at c; v_b(s) = v_b(c) + ω_b × (s − c)
  Jac jc[2], jr[2], jdot[2];
  Vec3 omega[2], vs[2], vc[2];
  for (int b = 0; b < 2; b++) {
    jc[b].setZero(3, nv);
    jr[b].setZero(3, nv);
    jdot[b].setZero(3, nv);
    if (body[b] > 0) {
      mj_jac(m, d, jc[b].data(), jr[b].data(), c.data(), body[b]);
      mj_jacDot(m, d, jdot[b].data(), nullptr, c.data(), body[b]);
    }
    omega[b] = jr[b] * v;
    vc[b] = jc[b] * v;
    vs[b] = vc[b] + omega[b].cross(s - c);
  }
  const Vec3 ndot = omega[0].cross(n);
  const double ddot = n.dot(vs[1] - vs[0]);
  const Vec3 cdot = vs[1] - ndot * (r + dist / 2) - n * (ddot / 2);

  // J̇_rel = Σ ±(J̇_b(c) + Jr_b · × (ċ − v_b(c)))
  Jac jrel_dot = jdot[1] - jdot[0];
  for (int b = 0; b < 2; b++) {
    if (body[b] <= 0) continue;
    const Vec3 slip = cdot - vc[b];
    const double sign = b == 1 ? 1 : -1;
    for (int i = 0; i < nv; i++) {
      const Vec3 col = jr[b].col(i);
      if (col.squaredNorm() == 0) continue;
      jrel_dot.col(i) += sign * col.cross(slip);
    }
  }
  const int nrow = rows.rows();
  rows.row(0) = (ndot.transpose() * (jc[1] - jc[0]) + n.transpose() * jrel_dot);
  for (int k = 1; k < nrow; k++) rows.row(k) = p.frame.row(k) * jrel_dot;
  return true;
}

}  // namespace saltation
