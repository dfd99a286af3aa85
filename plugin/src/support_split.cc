#include "support_split.h"

#include <cmath>

namespace saltation {

Eigen::VectorXd NonNegativeLeastSquares(const Eigen::MatrixXd& E, const Eigen::VectorXd& f) {
  const int n = static_cast<int>(E.cols());
  Eigen::VectorXd u = Eigen::VectorXd::Zero(n);
  std::vector<bool> passive(n, false);
  const double tol = 1e-12 * std::max(1.0, E.cwiseAbs().maxCoeff()) * std::max(1.0, f.norm());
  // the unconstrained least squares on the passive columns (zero elsewhere)
  auto solve_passive = [&]() {
    std::vector<int> cols;
    for (int j = 0; j < n; j++) {
      if (passive[j]) cols.push_back(j);
    }
    Eigen::MatrixXd Ep(E.rows(), cols.size());
    for (size_t c = 0; c < cols.size(); c++) Ep.col(c) = E.col(cols[c]);
    const Eigen::VectorXd sp = Ep.completeOrthogonalDecomposition().solve(f);
    Eigen::VectorXd s = Eigen::VectorXd::Zero(n);
    for (size_t c = 0; c < cols.size(); c++) s(cols[c]) = sp(c);
    return s;
  };
  for (int outer = 0; outer < 3 * n + 3; outer++) {
    const Eigen::VectorXd w = E.transpose() * (f - E * u);
    int t = -1;
    for (int j = 0; j < n; j++) {
      if (!passive[j] && w(j) > tol && (t < 0 || w(j) > w(t))) t = j;
    }
    if (t < 0) break;
    passive[t] = true;
    Eigen::VectorXd s = solve_passive();
    for (int inner = 0; inner < 3 * n + 3; inner++) {
      double alpha = 1;
      bool any = false;
      for (int j = 0; j < n; j++) {
        if (passive[j] && s(j) <= 0) {
          any = true;
          const double a = u(j) / (u(j) - s(j));
          if (a < alpha) alpha = a;
        }
      }
      if (!any) break;
      u += alpha * (s - u);
      for (int j = 0; j < n; j++) {
        if (passive[j] && u(j) <= tol) {
          passive[j] = false;
          u(j) = 0;
        }
      }
      s = solve_passive();
    }
    u = s;
  }
  return u;
}

bool NonNegativeSplit(const Eigen::MatrixXd& null_space, const std::vector<int>& normal_rows, Eigen::VectorXd& lambda) {
  const int r = static_cast<int>(null_space.cols());
  if (r == 0) return false;
  // the normal entries the null space moves: G z ≥ h with G their rows of N, h = −λ_n, scaled by
  // the largest normal force (the least-distance solution scales with h)
  std::vector<int> moved;
  double scale = 0;
  bool negative = false;
  for (int row : normal_rows) {
    if (null_space.row(row).norm() <= 1e-12) continue;
    moved.push_back(row);
    scale = std::max(scale, std::abs(lambda(row)));
    negative = negative || lambda(row) < 0;
  }
  if (!negative || !(scale > 0)) return false;
  const int m = static_cast<int>(moved.size());
  // least distance (min ‖z‖, G z ≥ h) by NNLS: E = [Gᵀ; hᵀ], f = e_r; ρ = E u − f; z = −ρ_{0:r}/ρ_r
  Eigen::MatrixXd E(r + 1, m);
  for (int i = 0; i < m; i++) {
    E.col(i).head(r) = null_space.row(moved[i]).transpose();
    E(r, i) = -lambda(moved[i]) / scale;
  }
  Eigen::VectorXd f = Eigen::VectorXd::Zero(r + 1);
  f(r) = 1;
  const Eigen::VectorXd rho = E * NonNegativeLeastSquares(E, f) - f;
  if (!(rho.norm() > 1e-9) || !(std::abs(rho(r)) > 1e-12)) return false;  // no such split
  const Eigen::VectorXd z = -rho.head(r) / rho(r) * scale;
  lambda += null_space * z;
  return true;
}

}  // namespace saltation
