#include "saltation/mode_flow.h"

namespace saltation {
namespace {

// d/dt of (qpos, qvel, act) in ambient coordinates (nq + nv + na)
Eigen::VectorXd AmbientRate(const Model& model, Data& data, const State& x, const Mode& mode) {
  const mjModel* m = model.mj();
  const int nq = m->nq, nv = m->nv, na = m->na;
  const State xn = Normalized(m, x);
  const ModeDynamics dyn = EvaluateMode(model, data, xn, mode);
  Eigen::VectorXd rate(nq + nv + na);
  QposRate(m, xn.qpos.data(), xn.qvel.data(), rate.data());
  rate.segment(nq, nv) = dyn.qacc;
  rate.segment(nq + nv, na) = dyn.act_dot;
  return rate;
}

State AddAmbient(const mjModel* m, const State& x, const Eigen::VectorXd& k, double h) {
  const int nq = m->nq, nv = m->nv, na = m->na;
  State y = x;
  y.time = x.time + h;  // the stage's time (a prescribed mocap motion is evaluated there)
  y.qpos += h * k.head(nq);
  y.qvel += h * k.segment(nq, nv);
  y.act += h * k.segment(nq + nv, na);
  return y;
}

}  // namespace

State Normalized(const mjModel* m, const State& x) {
  State y = x;
  mj_normalizeQuat(m, y.qpos.data());
  return y;
}

State Rk4Step(const Model& model, Data& data, const State& x, const Mode& mode, double h) {
  const mjModel* m = model.mj();
  const Eigen::VectorXd k1 = AmbientRate(model, data, x, mode);
  const Eigen::VectorXd k2 = AmbientRate(model, data, AddAmbient(m, x, k1, h / 2), mode);
  const Eigen::VectorXd k3 = AmbientRate(model, data, AddAmbient(m, x, k2, h / 2), mode);
  const Eigen::VectorXd k4 = AmbientRate(model, data, AddAmbient(m, x, k3, h), mode);
  State y = Normalized(m, AddAmbient(m, x, k1 + 2 * k2 + 2 * k3 + k4, h / 6));
  y.time = x.time + h;
  // the mocap bodies where their prescribed motion has them at the step's end, for the guards the
  // caller evaluates there (RigidSimulator's touchdown gaps); no-op without Options::mocap_motion
  ApplyMocapMotion(model, data, y.time);
  return y;
}

}  // namespace saltation
