// Solves with the symmetric positive semi-definite matrices of this library (J M⁻¹ Jᵀ): linear
// algebra only, no MuJoCo. Reads and writes nothing but its arguments and its own buffers.
#ifndef SALTATION_PSD_SOLVER_H_
#define SALTATION_PSD_SOLVER_H_

#include <Eigen/Dense>

namespace saltation {

// Solves A x = b for a symmetric positive semi-definite A (J M⁻¹ Jᵀ), factorised once for any
// number of right-hand sides: Cholesky when A is clearly positive definite (smallest pivot² above
// 1e3·tol·max diagonal), else the pseudo-inverse over the eigenvalues above tol·max (a forced
// method is kept whatever A looks like, so that difference columns share the center's, except
// that a Cholesky factorisation that fails falls back to the pseudo-inverse). Neither path
// allocates once a matrix of the size has been seen (the engine hook's per-step path): the
// eigendecomposition is Eigen's Householder tridiagonalisation and tridiagonal QR into buffers
// kept here, with the reflectors applied by hand.
class PsdSolver {
 public:
  enum class Method { kAuto, kCholesky, kPseudoInverse };
  void Compute(const Eigen::MatrixXd& A, double tol, Method method = Method::kAuto);
  void Solve(const Eigen::VectorXd& b, Eigen::VectorXd& x) const;
  Eigen::MatrixXd Solve(const Eigen::MatrixXd& B) const;
  Method method() const { return method_; }
  int rank() const { return rank_; }

 private:
  Method method_ = Method::kAuto;
  int rank_ = 0;
  Eigen::LLT<Eigen::MatrixXd> llt_;
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig_;  // of the tridiagonal matrix
  Eigen::MatrixXd scaled_, vectors_;                     // A / max|A| (then its reflectors); A's eigenvectors
  Eigen::VectorXd hcoeffs_, diag_, subdiag_, values_, winv_;
  mutable Eigen::VectorXd c_;
};

// Pseudo-inverse solve of the symmetric positive semi-definite A with relative threshold tol;
// returns the rank.
int SolvePsd(const Eigen::MatrixXd& A, const Eigen::VectorXd& b, double tol, Eigen::VectorXd& x);

}  // namespace saltation

#endif  // SALTATION_PSD_SOLVER_H_
