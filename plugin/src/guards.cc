#include "saltation/guards.h"

#include <algorithm>
#include <cmath>

#include "island_passes.h"
#include "mujoco_stages.h"

#include "saltation/islands.h"
#include "saltation/mode_flow.h"

namespace saltation {

Eigen::VectorXd TouchdownGuardGradient(const Model& model, const mjData* d,
                                       const ContactPoint& point, Workspace& work) {
  RowMatrix rows(ContactRowCount(point), model.nv());
  ContactRows(model, d, point, rows, work);
  Eigen::VectorXd grad = Eigen::VectorXd::Zero(model.ndx());
  grad.head(model.nv()) = rows.row(0).transpose();
  return grad;
}

double KineticTransversality(const Model& model, const mjData* d, const Eigen::VectorXd& grad_g,
                             const Eigen::VectorXd& qvel, double dg_dt, const Island* island,
                             bool d_on_island_trees) {
  const int nv = model.nv();
  // v and M⁻¹J_nᵀ are taken on the island's dofs, so nothing of the other trees enters (with
  // d_on_island_trees, d's factor holds only the island's blocks, the other trees' are stale)
  const Island whole;
  const Island& scope = island ? *island : whole;
  const mjModel* m = !scope.whole && d_on_island_trees ? model.mj_island_passes() : model.mj();
  const Eigen::VectorXd jn = grad_g.head(nv);  // 0 off the island: the contact's rows
  Eigen::VectorXd minv_jn(nv), mw = Eigen::VectorXd::Zero(nv), v = qvel;
  ZeroOutside(scope, v);
  mj_solveM(m, const_cast<mjData*>(d), minv_jn.data(), jn.data(), 1);
  ZeroOutside(scope, minv_jn);
  const double w_n = jn.dot(minv_jn);  // J_n M⁻¹ J_nᵀ = 1/m_eff
  if (!(w_n > 0)) return 0;
  const Eigen::VectorXd w = v + minv_jn * (dg_dt / w_n);
  mj_mulM(m, d, mw.data(), w.data());
  const double energy = w.dot(mw);  // wᵀ M w = 2 T
  if (!(energy > 0)) return 0;
  return std::min(1.0, std::abs(jn.dot(w)) / std::sqrt(w_n * energy));
}

double LiftoffGuard(const Model& model, Data& data, const State& x, const Mode& mode, int k) {
  return EvaluateMode(model, data, x, mode).normal_force(k);
}

Eigen::VectorXd LiftoffGuardGradient(const Model& model, Data& data, const State& x,
                                     const Mode& mode, int k) {
  const mjModel* m = model.mj();
  const int nv = m->nv, na = m->na, n = model.ndx();
  const double eps = model.options().fd_step;
  Eigen::VectorXd grad = Eigen::VectorXd::Zero(n), e = Eigen::VectorXd::Zero(n);
  // the trees contact k's force depends on (islands.h): every other column is zero
  const std::vector<int> dofs = IslandOf(model, mode.contacts, {mode.contacts[k]}).dofs;
  // configuration columns: whole mode evaluations at the perturbed configurations
  for (int i : dofs) {
    e.setZero();
    e(i) = eps;
    const double gp = LiftoffGuard(model, data, Integrate(m, x, e), mode, k);
    const double gm = LiftoffGuard(model, data, Integrate(m, x, e, -1), mode, k);
    grad(i) = (gp - gm) / (2 * eps);
  }
  // velocity and activation columns: the configuration is x's, so the rows, M and the
  // factorisation of J M⁻¹ Jᵀ are the center's (the same pseudo-inverse EvaluateMode takes); only
  // the velocity and actuation stages and the bias J̇v change
  const ModeDynamics center = EvaluateMode(model, data, x, mode);  // leaves data.main() at x
  const RowMatrix& J = center.constraints.J;
  PsdSolver solver;
  solver.Compute(J * center.JMinv.transpose(), model.options().rank_tol, PsdSolver::Method::kPseudoInverse);
  mjData* d = data.main();
  Eigen::VectorXd lambda;
  std::vector<int> columns = dofs;  // the island's velocities, then every activation
  for (int a = 0; a < na; a++) columns.push_back(nv + a);
  for (int i : columns) {
    double g[2];
    for (int side = 0; side < 2; side++) {
      State xs = x;
      const double step = side == 0 ? eps : -eps;
      if (i < nv) {
        xs.qvel(i) += step;
      } else {
        xs.act(i - nv) += step;
      }
      mju_copy(d->qvel, xs.qvel.data(), nv);
      mju_copy(d->act, xs.act.data(), na);
      SmoothStages(m, d);
      const Eigen::Map<const Eigen::VectorXd> a_s(d->qacc_smooth, nv);
      const Eigen::VectorXd bias = ConstraintBias(model, data, xs, mode.contacts, &center.constraints);
      solver.Solve(-(J * a_s + bias), lambda);
      g[side] = lambda(center.constraints.normal_row[k]);
    }
    grad(nv + i) = (g[0] - g[1]) / (2 * eps);
  }
  // data.main() back at x, as EvaluateMode leaves it
  mju_copy(d->qvel, x.qvel.data(), nv);
  mju_copy(d->act, x.act.data(), na);
  SmoothStages(m, d);
  return grad;
}

double LiftoffGuardRateFD(const Model& model, Data& data, const State& x, const Mode& mode, int k,
                          double h) {
  const State xp = Rk4Step(model, data, x, mode, h);
  const State xm = Rk4Step(model, data, x, mode, -h);
  return (LiftoffGuard(model, data, xp, mode, k) - LiftoffGuard(model, data, xm, mode, k)) / (2 * h);
}

}  // namespace saltation
