#include "saltation/tangent.h"

#include <cmath>
#include <string>

#include "saltation/errors.h"

namespace saltation {

std::vector<std::string> StateLabels(const mjModel* m) {
  std::vector<std::string> dofs;
  for (int j = 0; j < m->njnt; j++) {
    const char* name = mj_id2name(m, mjOBJ_JOINT, j);
    std::string base;
    if (name && *name) {
      base = name;
    } else if (const char* body = mj_id2name(m, mjOBJ_BODY, m->jnt_bodyid[j]); body && *body) {
      base = std::string(body) + ".joint";
    } else {
      base = "joint" + std::to_string(j);
    }
    switch (m->jnt_type[j]) {
      case mjJNT_FREE:
        for (const char* axis : {".x", ".y", ".z", ".rx", ".ry", ".rz"}) dofs.push_back(base + axis);
        break;
      case mjJNT_BALL:
        for (const char* axis : {".rx", ".ry", ".rz"}) dofs.push_back(base + axis);
        break;
      default:
        dofs.push_back(base);
    }
  }
  std::vector<std::string> labels;
  labels.reserve(2 * m->nv + m->na);
  for (const std::string& dof : dofs) labels.push_back("q:" + dof);
  for (const std::string& dof : dofs) labels.push_back("v:" + dof);
  for (int a = 0; a < m->nu; a++) {
    if (m->actuator_actadr[a] < 0) continue;
    const char* name = mj_id2name(m, mjOBJ_ACTUATOR, a);
    const std::string base = name && *name ? std::string(name) : "actuator" + std::to_string(a);
    for (int k = 0; k < m->actuator_actnum[a]; k++) {
      labels.push_back("act:" + base + (m->actuator_actnum[a] > 1 ? "." + std::to_string(k) : ""));
    }
  }
  return labels;
}

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
