#include "saltation/guards.h"

#include "saltation/rigid_simulator.h"

namespace saltation {

Eigen::VectorXd TouchdownGuardGradient(const Model& model, const mjData* d,
                                       const ContactPoint& point) {
  RowMatrix rows;
  ContactRows(model, d, point, rows);
  Eigen::VectorXd grad = Eigen::VectorXd::Zero(model.ndx());
  grad.head(model.nv()) = rows.row(0).transpose();
  return grad;
}

double LiftoffGuard(const Model& model, Data& data, const State& x, const Mode& mode, int k) {
  return EvaluateMode(model, data, x, mode).normal_force(k);
}

Eigen::VectorXd LiftoffGuardGradient(const Model& model, Data& data, const State& x,
                                     const Mode& mode, int k) {
  const int n = model.ndx();
  const double eps = model.options().fd_step;
  Eigen::VectorXd grad(n), e = Eigen::VectorXd::Zero(n);
  for (int i = 0; i < n; i++) {
    e.setZero();
    e(i) = eps;
    const double gp = LiftoffGuard(model, data, Integrate(model.mj(), x, e), mode, k);
    const double gm = LiftoffGuard(model, data, Integrate(model.mj(), x, e, -1), mode, k);
    grad(i) = (gp - gm) / (2 * eps);
  }
  return grad;
}

double LiftoffGuardRateFD(const Model& model, Data& data, const State& x, const Mode& mode, int k,
                          double h) {
  const State xp = Rk4Step(model, data, x, mode, h);
  const State xm = Rk4Step(model, data, x, mode, -h);
  return (LiftoffGuard(model, data, xp, mode, k) - LiftoffGuard(model, data, xm, mode, k)) / (2 * h);
}

}  // namespace saltation
