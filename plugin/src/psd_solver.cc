#include "saltation/psd_solver.h"

namespace saltation {

void PsdSolver::Compute(const Eigen::MatrixXd& A, double tol, Method method) {
  method_ = method;
  if (A.rows() == 0) {  // nothing to solve (Eigen's eigensolver does not take an empty matrix)
    if (method_ == Method::kAuto) method_ = Method::kCholesky;
    llt_.compute(A);
    rank_ = 0;
    return;
  }
  if (method_ != Method::kPseudoInverse) {
    llt_.compute(A);
    const double amax = A.diagonal().maxCoeff();
    const double pivot = llt_.info() == Eigen::Success ? llt_.matrixLLT().diagonal().minCoeff() : 0;
    if (method_ == Method::kAuto) {
      method_ = pivot * pivot > 1e3 * tol * amax ? Method::kCholesky : Method::kPseudoInverse;
    } else if (!(pivot > 0)) {
      // a forced Cholesky whose factorisation failed (A no longer positive definite at a
      // difference column): the pseudo-inverse rather than a meaningless solve
      method_ = Method::kPseudoInverse;
    }
    rank_ = static_cast<int>(A.rows());
  }
  if (method_ == Method::kPseudoInverse) {
    // what SelfAdjointEigenSolver::compute does (scaled to max |A| = 1, Householder
    // tridiagonalisation, implicit symmetric QR), with every buffer kept from call to call
    const int n = static_cast<int>(A.rows());
    const double scale = A.cwiseAbs().maxCoeff();
    scaled_ = A;
    if (scale > 0) scaled_ /= scale;
    hcoeffs_.resize(n - 1);
    Eigen::internal::tridiagonalization_inplace(scaled_, hcoeffs_);  // reflectors below the subdiagonal
    diag_ = scaled_.diagonal();
    subdiag_ = scaled_.diagonal<-1>();
    eig_.computeFromTridiagonal(diag_, subdiag_, Eigen::ComputeEigenvectors);
    // A's eigenvectors Q·W, Q = H₀ H₁ ⋯ H_{n−2}, H_k = I − h_k v v ᵀ with v = (1, scaled_(k+2:, k))
    // on rows k+1:, applied by hand (Eigen's own application allocates for large n)
    vectors_ = eig_.eigenvectors();
    for (int k = n - 2; k >= 0; k--) {
      const double h = hcoeffs_(k);
      if (h == 0) continue;
      const int len = n - k - 2;
      const auto v = scaled_.col(k).segment(k + 2, len);
      for (int j = 0; j < n; j++) {
        auto column = vectors_.col(j);
        const double w = h * (column(k + 1) + v.dot(column.segment(k + 2, len)));
        column(k + 1) -= w;
        column.segment(k + 2, len) -= w * v;
      }
    }
    values_ = eig_.eigenvalues() * scale;
    const double wmax = values_.cwiseAbs().maxCoeff();
    winv_.setZero(n);
    rank_ = 0;
    for (int i = 0; i < n; i++) {
      if (values_(i) > tol * wmax && values_(i) > 0) {
        winv_(i) = 1 / values_(i);
        rank_++;
      }
    }
  }
}

void PsdSolver::Solve(const Eigen::VectorXd& b, Eigen::VectorXd& x) const {
  if (b.size() == 0) {
    x.resize(0);
    return;
  }
  if (method_ == Method::kCholesky) {
    x = b;
    llt_.solveInPlace(x);
    return;
  }
  c_.noalias() = vectors_.transpose() * b;
  c_.array() *= winv_.array();
  x.noalias() = vectors_ * c_;
}

Eigen::MatrixXd PsdSolver::Solve(const Eigen::MatrixXd& B) const {
  if (B.rows() == 0) return Eigen::MatrixXd(0, B.cols());
  if (method_ == Method::kCholesky) return llt_.solve(B);
  return vectors_ * (winv_.asDiagonal() * (vectors_.transpose() * B));
}

int SolvePsd(const Eigen::MatrixXd& A, const Eigen::VectorXd& b, double tol, Eigen::VectorXd& x) {
  PsdSolver solver;
  solver.Compute(A, tol, PsdSolver::Method::kPseudoInverse);
  solver.Solve(b, x);
  return solver.rank();
}

}  // namespace saltation
