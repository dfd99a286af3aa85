#include "island_solve.h"

namespace saltation {

void IslandSolver::Compute(const mjModel* m, const mjData* d, const RowMatrix& J, double tol) {
  GroupRows(m, J, groups_);
  if (static_cast<int>(blocks_.size()) < groups_.count) blocks_.resize(groups_.count);
  // D^{−1/2} of MuJoCo's factor (mj_solveM2 takes it)
  sqrt_inv_d_ = Eigen::Map<const Eigen::VectorXd>(d->qLDiagInv, m->nv).cwiseSqrt();
  for (int g = 0; g < groups_.count; g++) {
    Block& b = blocks_[g];
    const std::vector<int>& rows = groups_.rows[g];
    const std::vector<int>& dofs = groups_.dofs[g];
    const int nr = static_cast<int>(rows.size()), nd = static_cast<int>(dofs.size());
    b.J.resize(nr, m->nv);
    for (int r = 0; r < nr; r++) b.J.row(r) = J.row(rows[r]);
    b.Yfull.resize(nr, m->nv);
    mj_solveM2(m, const_cast<mjData*>(d), b.Yfull.data(), b.J.data(), sqrt_inv_d_.data(), nr);
    b.Y.resize(nr, nd);
    for (int k = 0; k < nd; k++) b.Y.col(k) = b.Yfull.col(dofs[k]);
    b.A.resize(nr, nr);
    b.A.noalias() = b.Y * b.Y.transpose();
    b.solver.Compute(b.A, tol);
  }
}

void IslandSolver::Solve(const Eigen::VectorXd& rhs, Eigen::VectorXd& x) {
  x.resize(rhs.size());
  for (int g = 0; g < groups_.count; g++) {
    Block& b = blocks_[g];
    const std::vector<int>& rows = groups_.rows[g];
    const int nr = static_cast<int>(rows.size());
    b.b.resize(nr);
    for (int r = 0; r < nr; r++) b.b(r) = rhs(rows[r]);
    b.solver.Solve(b.b, b.x);
    for (int r = 0; r < nr; r++) x(rows[r]) = b.x(r);
  }
}

}  // namespace saltation
