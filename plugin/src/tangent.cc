#include "saltation/tangent.h"

#include <cmath>
#include <string>

#include "saltation/errors.h"

namespace saltation {

State StateFromData(const mjModel* m, const mjData* d) {
  State x;
  x.time = d->time;
  x.qpos = Eigen::Map<const Eigen::VectorXd>(d->qpos, m->nq);
  x.qvel = Eigen::Map<const Eigen::VectorXd>(d->qvel, m->nv);
  x.act = Eigen::Map<const Eigen::VectorXd>(d->act, m->na);
  return x;
}

void StateToData(const mjModel* m, const State& x, mjData* d) {
  d->time = x.time;
  Eigen::Map<Eigen::VectorXd>(d->qpos, m->nq) = x.qpos;
  Eigen::Map<Eigen::VectorXd>(d->qvel, m->nv) = x.qvel;
  if (m->na) Eigen::Map<Eigen::VectorXd>(d->act, m->na) = x.act;
}

State Integrate(const mjModel* m, const State& x, const Eigen::VectorXd& dx, double scale) {
  const int nv = m->nv, na = m->na;
  State y = x;
  mj_integratePos(m, y.qpos.data(), dx.data(), scale);
  y.qvel += scale * dx.segment(nv, nv);
  if (na) y.act += scale * dx.segment(2 * nv, na);
  return y;
}

Eigen::VectorXd Difference(const mjModel* m, const State& x, const State& y) {
  const int nv = m->nv, na = m->na;
  Eigen::VectorXd dx(2 * nv + na);
  mj_differentiatePos(m, dx.data(), 1.0, x.qpos.data(), y.qpos.data());
  dx.segment(nv, nv) = y.qvel - x.qvel;
  if (na) dx.segment(2 * nv, na) = y.act - x.act;
  return dx;
}

namespace {

// q̇ = ½ q ⊗ (0, ω), ω in the local frame (the convention of mj_integratePos; mju_derivQuat in
// MuJoCo 2.2 uses the other one, ½ (0, ω) ⊗ q)
void LocalQuatRate(const double* quat, const double* omega, double* rate) {
  const double pure[4] = {0, omega[0], omega[1], omega[2]};
  mju_mulQuat(rate, quat, pure);
  for (int i = 0; i < 4; i++) rate[i] *= 0.5;
}

}  // namespace

void QposRate(const mjModel* m, const double* qpos, const double* qvel, double* qpos_rate) {
  for (int j = 0; j < m->njnt; j++) {
    const int qa = m->jnt_qposadr[j], va = m->jnt_dofadr[j];
    switch (m->jnt_type[j]) {
      case mjJNT_FREE:
        for (int i = 0; i < 3; i++) qpos_rate[qa + i] = qvel[va + i];
        LocalQuatRate(qpos + qa + 3, qvel + va + 3, qpos_rate + qa + 3);
        break;
      case mjJNT_BALL:
        LocalQuatRate(qpos + qa, qvel + va, qpos_rate + qa);
        break;
      default:
        qpos_rate[qa] = qvel[va];
    }
  }
}

void CheckSizes(const mjModel* m, const State& x) {
  if (x.qpos.size() != m->nq || x.qvel.size() != m->nv || x.act.size() != m->na) {
    throw ConfigError("state sizes (qpos " + std::to_string(x.qpos.size()) + ", qvel " +
                      std::to_string(x.qvel.size()) + ", act " + std::to_string(x.act.size()) +
                      ") do not match the model (nq " + std::to_string(m->nq) + ", nv " +
                      std::to_string(m->nv) + ", na " + std::to_string(m->na) + ")");
  }
}

bool IsFinite(const State& x) {
  return std::isfinite(x.time) && x.qpos.allFinite() && x.qvel.allFinite() && x.act.allFinite();
}

}  // namespace saltation
