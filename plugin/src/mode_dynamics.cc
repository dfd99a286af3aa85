#include "saltation/mode_dynamics.h"

#include "saltation/errors.h"

namespace saltation {

ConstraintSet ModeConstraints(const Model& model, const mjData* d,
                              const std::vector<ContactId>& contacts) {
  const int nv = model.nv();
  ConstraintSet set;
  const std::vector<ContactPoint> points = ListContacts(model, d);
  const std::vector<int> match = MatchContacts(contacts, points);

  int nrow = 0;
  for (size_t k = 0; k < contacts.size(); k++) {
    if (match[k] < 0) {
      throw NumericalError("active contact " + ContactLabel(model, contacts[k]) +
                           " has no contact point within the detection margin");
    }
    set.points.push_back(points[match[k]]);
    if (contacts[k].frictionless) set.points.back().condim = 1;
    set.normal_row.push_back(nrow);
    nrow += ContactRowCount(set.points.back());
  }
  set.ncontact_rows = nrow;
  const RowMatrix eq = EqualityRows(model, d);
  set.J.resize(nrow + eq.rows(), nv);
  RowMatrix rows;
  for (size_t k = 0; k < contacts.size(); k++) {
    ContactRows(model, d, set.points[k], rows);
    set.J.middleRows(set.normal_row[k], rows.rows()) = rows;
  }
  set.J.bottomRows(eq.rows()) = eq;
  return set;
}

Eigen::VectorXd ConstraintBias(const Model& model, Data& data, const State& x,
                               const std::vector<ContactId>& contacts) {
  const mjModel* m = model.mj();
  const double h = model.options().jdot_step;
  // f(s) = J(q ⊕ s v) v
  auto f = [&](double s) {
    Eigen::VectorXd q = x.qpos;
    mj_integratePos(m, q.data(), x.qvel.data(), s);
    EvaluatePosition(model, data.aux(), q.data());
    return Eigen::VectorXd(ModeConstraints(model, data.aux(), contacts).J * x.qvel);
  };
  if (x.qvel.squaredNorm() == 0) {
    EvaluatePosition(model, data.aux(), x.qpos.data());
    return Eigen::VectorXd::Zero(ModeConstraints(model, data.aux(), contacts).J.rows());
  }
  // five-point stencil, error O(h⁴)
  return (f(-2 * h) - 8 * f(-h) + 8 * f(h) - f(2 * h)) / (12 * h);
}

int SolvePsd(const Eigen::MatrixXd& A, const Eigen::VectorXd& b, double tol, Eigen::VectorXd& x) {
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(A);
  const Eigen::VectorXd& w = eig.eigenvalues();
  const double wmax = w.size() ? w.cwiseAbs().maxCoeff() : 0;
  Eigen::VectorXd c = eig.eigenvectors().transpose() * b;
  int rank = 0;
  for (int i = 0; i < w.size(); i++) {
    if (w(i) > tol * wmax && w(i) > 0) {
      c(i) /= w(i);
      rank++;
    } else {
      c(i) = 0;
    }
  }
  x = eig.eigenvectors() * c;
  return rank;
}

ModeDynamics EvaluateMode(const Model& model, Data& data, const State& x, const Mode& mode) {
  CheckSizes(model.mj(), x);
  if (!IsFinite(x)) throw NumericalError("state is not finite (NaN or Inf)");
  const mjModel* m = model.mj();
  mjData* d = data.main();
  const int nv = m->nv;

  // the ordinary MuJoCo pipeline up to qacc_smooth, without the constraint solver
  StateToData(m, x, d);
  mj_fwdPosition(m, d);
  mj_fwdVelocity(m, d);
  mj_fwdActuation(m, d);
  mj_fwdAcceleration(m, d);

  ModeDynamics out;
  out.qacc_smooth = Eigen::Map<const Eigen::VectorXd>(d->qacc_smooth, nv);
  out.act_dot = Eigen::Map<const Eigen::VectorXd>(d->act_dot, m->na);
  out.constraints = ModeConstraints(model, d, mode.contacts);
  const RowMatrix& J = out.constraints.J;
  const int nrow = J.rows();
  out.qacc = out.qacc_smooth;
  out.normal_force.setZero(mode.contacts.size());
  out.lambda.setZero(nrow);
  if (nrow == 0) return out;

  // J M⁻¹ (rows of J are right-hand sides; M is symmetric)
  out.JMinv.resize(nrow, nv);
  mj_solveM(m, d, out.JMinv.data(), J.data(), nrow);
  const Eigen::MatrixXd A = J * out.JMinv.transpose();
  const Eigen::VectorXd bias = ConstraintBias(model, data, x, mode.contacts);
  out.rank = SolvePsd(A, -(J * out.qacc_smooth + bias), model.options().rank_tol, out.lambda);
  out.qacc += out.JMinv.transpose() * out.lambda;
  for (size_t k = 0; k < mode.contacts.size(); k++) {
    out.normal_force(k) = out.lambda(out.constraints.normal_row[k]);
  }
  return out;
}

Eigen::VectorXd ModeVectorField(const Model& model, Data& data, const State& x, const Mode& mode) {
  const ModeDynamics dyn = EvaluateMode(model, data, x, mode);
  const int nv = model.nv(), na = model.na();
  Eigen::VectorXd f(2 * nv + na);
  f << x.qvel, dyn.qacc, dyn.act_dot;
  return f;
}

Eigen::MatrixXd ModeVectorFieldJacobianFD(const Model& model, Data& data, const State& x,
                                          const Mode& mode, double eps) {
  const int n = model.ndx();
  Eigen::MatrixXd jac(n, n);
  Eigen::VectorXd e = Eigen::VectorXd::Zero(n);
  for (int i = 0; i < n; i++) {
    e.setZero();
    e(i) = eps;
    const Eigen::VectorXd fp = ModeVectorField(model, data, Integrate(model.mj(), x, e), mode);
    const Eigen::VectorXd fm = ModeVectorField(model, data, Integrate(model.mj(), x, e, -1), mode);
    jac.col(i) = (fp - fm) / (2 * eps);
  }
  return jac;
}

}  // namespace saltation
