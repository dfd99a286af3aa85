#include "island_solve.h"

namespace saltation {

void IslandSolver::Compute(const mjModel* m, const mjData* d, const RowMatrix& J, double tol,
                           PsdSolver::Method method) {
  GroupRows(m, J, groups_);
  if (static_cast<int>(blocks_.size()) < groups_.count) blocks_.resize(groups_.count);
  // D^{−1/2} of MuJoCo's factor (mj_solveM2 takes it)
  sqrt_inv_d_ = Eigen::Map<const Eigen::VectorXd>(d->qLDiagInv, m->nv).cwiseSqrt();
  for (int g = 0; g < groups_.count; g++) {
    Block& b = blocks_[g];
    GatherRows(J, groups_.rows[g], b.full);
    b.solved_full.resize(b.full.rows(), m->nv);
    mj_solveM2(m, const_cast<mjData*>(d), b.solved_full.data(), b.full.data(), sqrt_inv_d_.data(),
               static_cast<int>(b.full.rows()));
    GatherColumns(b.solved_full, groups_.dofs[g], b.left);
    b.A.resize(b.left.rows(), b.left.rows());
    b.A.noalias() = b.left * b.left.transpose();
    b.solver.Compute(b.A, tol, method);
  }
}

void IslandSolver::Compute(const mjModel* m, const RowMatrix& J, const RowMatrix& JMinv, double tol,
                           PsdSolver::Method method) {
  GroupRows(m, J, groups_);
  if (static_cast<int>(blocks_.size()) < groups_.count) blocks_.resize(groups_.count);
  for (int g = 0; g < groups_.count; g++) {
    Block& b = blocks_[g];
    GatherRows(J, groups_.rows[g], b.full);
    GatherColumns(b.full, groups_.dofs[g], b.left);
    GatherRows(JMinv, groups_.rows[g], b.solved_full);
    GatherColumns(b.solved_full, groups_.dofs[g], b.right);
    b.A.resize(b.left.rows(), b.left.rows());
    b.A.noalias() = b.left * b.right.transpose();
    b.solver.Compute(b.A, tol, method);
  }
}

void IslandSolver::GatherRows(const RowMatrix& from, const std::vector<int>& rows, RowMatrix& to) {
  to.resize(static_cast<Eigen::Index>(rows.size()), from.cols());
  for (size_t r = 0; r < rows.size(); r++) to.row(static_cast<Eigen::Index>(r)) = from.row(rows[r]);
}

void IslandSolver::GatherColumns(const RowMatrix& from, const std::vector<int>& columns, RowMatrix& to) {
  to.resize(from.rows(), static_cast<Eigen::Index>(columns.size()));
  for (size_t k = 0; k < columns.size(); k++) to.col(static_cast<Eigen::Index>(k)) = from.col(columns[k]);
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

int IslandSolver::rank() const {
  int r = 0;
  for (int g = 0; g < groups_.count; g++) r += blocks_[g].solver.rank();
  return r;
}

}  // namespace saltation
