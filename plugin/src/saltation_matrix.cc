#include "saltation/saltation_matrix.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>
#include <vector>

#include "saltation/errors.h"

namespace saltation {
namespace {

// DΔ δx from the blocks; a restricted DΔ (ResetJacobian::dofs) is the identity off its dofs, so
// only their velocity rows change, by the island's blocks (k² instead of nv²)
Eigen::VectorXd ApplyReset(const ResetJacobian& r, const Eigen::VectorXd& dx) {
  const int nv = r.nv;
  Eigen::VectorXd y = dx;
  if (!r.Restricted()) {
    y.segment(nv, nv) = r.dv_dq * dx.head(nv) + r.dv_dv * dx.segment(nv, nv);
    return y;
  }
  const std::vector<int>& s = r.dofs;
  const Eigen::VectorXd dq = dx.head(nv)(s), dv = dx.segment(nv, nv)(s);
  y.segment(nv, nv)(s) = r.dv_dq * dq + r.dv_dv * dv;  // the island's blocks
  return y;
}

Eigen::VectorXd ApplyResetTranspose(const ResetJacobian& r, const Eigen::VectorXd& w) {
  const int nv = r.nv;
  Eigen::VectorXd y = w;
  if (!r.Restricted()) {
    y.head(nv) += r.dv_dq.transpose() * w.segment(nv, nv);
    y.segment(nv, nv) = r.dv_dv.transpose() * w.segment(nv, nv);
    return y;
  }
  const std::vector<int>& s = r.dofs;
  const Eigen::VectorXd wv = w.segment(nv, nv)(s);
  y.head(nv)(s) += r.dv_dq.transpose() * wv;
  y.segment(nv, nv)(s) = r.dv_dv.transpose() * wv;
  return y;
}

// whether DΔ's entries are finite (off a restricted DΔ's dofs they are 0 and 1 by construction)
bool ResetIsFinite(const ResetJacobian& r) {
  return r.dv_dq.allFinite() && r.dv_dv.allFinite();  // restricted: the island's blocks
}

}  // namespace

SaltationMatrix ComputeTransversality(const Eigen::VectorXd& f_minus, const Eigen::VectorXd& grad_g,
                                      double dg_dt) {
  SaltationMatrix xi;
  xi.f_minus = f_minus;
  xi.grad_g = grad_g;
  xi.dg_dt = dg_dt;
  xi.transversality = grad_g.dot(f_minus) + dg_dt;
  xi.transversality_rel = std::numeric_limits<double>::quiet_NaN();
  if (xi.transversality == 0 || !std::isfinite(xi.transversality)) {
    throw NumericalError("saltation matrix undefined: transversality ∇gᵀF⁻ is zero or not finite "
                         "(a grazing contact)");
  }
  xi.dt_dx = -grad_g / xi.transversality;
  return xi;
}

SaltationMatrix ComputeSaltation(ResetJacobian reset, const Eigen::VectorXd& f_minus,
                                 const Eigen::VectorXd& f_plus, const Eigen::VectorXd& grad_g,
                                 double dg_dt, const Eigen::VectorXd& dreset_dt) {
  SaltationMatrix xi = ComputeTransversality(f_minus, grad_g, dg_dt);
  xi.reset = std::move(reset);
  const ResetJacobian& r = xi.reset;
  xi.f_plus = f_plus;
  xi.correction = f_plus - ApplyReset(r, f_minus);
  if (dreset_dt.size() > 0) {
    if (dreset_dt.size() != f_minus.size()) throw NumericalError("D_tΔ has the wrong size");
    xi.dreset_dt = dreset_dt;
    xi.correction -= dreset_dt;
  }
  xi.correction /= xi.transversality;
  if (!xi.correction.allFinite() || !ResetIsFinite(r)) {
    throw NumericalError("saltation matrix has non-finite entries");
  }
  return xi;
}

double CancellationRatio(const Eigen::VectorXd& grad_g, const Eigen::VectorXd& f_minus, int nv) {
  const int n = static_cast<int>(grad_g.size());
  const double t_q = grad_g.head(nv).dot(f_minus.head(nv));
  const double t_v = grad_g.segment(nv, nv).dot(f_minus.segment(nv, nv));
  const double t_a = grad_g.tail(n - 2 * nv).dot(f_minus.tail(n - 2 * nv));
  const double sum = std::abs(t_q) + std::abs(t_v) + std::abs(t_a);
  return sum > 0 ? std::abs(t_q + t_v + t_a) / sum : 0;
}

Eigen::MatrixXd SaltationMatrix::Dense() const {
  return reset.Dense() + correction * grad_g.transpose();
}

Eigen::VectorXd SaltationMatrix::Apply(const Eigen::VectorXd& dx) const {
  return ApplyReset(reset, dx) + correction * grad_g.dot(dx);
}

Eigen::VectorXd SaltationMatrix::ApplyTranspose(const Eigen::VectorXd& w) const {
  return ApplyResetTranspose(reset, w) + grad_g * correction.dot(w);
}

double SaltationMatrix::Norm() const {
  const int n = ndx();
  if (n == 0) return 0;
  // Ξ = DΔ + c ∇gᵀ differs from the identity only on the indices S whose row or column does (an
  // event's island, islands.h): Ξ is then I on the rest and has no entries between S and the
  // rest, so ‖Ξ‖₂ = max(‖Ξ_SS‖₂, 1) — an event among many bodies costs its island's size
  const int nv = reset.nv;
  std::vector<char> in(n, 0);
  for (int i = 0; i < n; i++) in[i] = correction(i) != 0 || grad_g(i) != 0;
  // a restricted DΔ differs from I only on its dofs' blocks (ResetJacobian::dofs)
  std::vector<int> all;
  if (!reset.Restricted()) {
    all.resize(nv);
    for (int i = 0; i < nv; i++) all[i] = i;
  }
  const std::vector<int>& moved = reset.Restricted() ? reset.dofs : all;
  for (int r : moved) {
    for (int c : moved) {
      if (reset.DvDq(r, c) != 0) in[nv + r] = in[c] = 1;
      if (reset.DvDv(r, c) != (r == c ? 1.0 : 0.0)) in[nv + r] = in[nv + c] = 1;
    }
  }
  std::vector<int> S;
  for (int i = 0; i < n; i++) {
    if (in[i]) S.push_back(i);
  }
  if (S.empty()) return 1;
  const int k = static_cast<int>(S.size());
  const Eigen::MatrixXd xi = Block(S);
  // σ_max² = λ_max(ΞᵀΞ): a symmetric eigenvalue problem, several times cheaper than an SVD
  const Eigen::MatrixXd gram = xi.transpose() * xi;
  const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(gram, Eigen::EigenvaluesOnly);
  const double norm = std::sqrt(std::max(0.0, eig.eigenvalues().maxCoeff()));
  return k < n ? std::max(norm, 1.0) : norm;
}

Eigen::MatrixXd SaltationMatrix::Block(const std::vector<int>& S) const {
  const int nv = reset.nv;
  const int k = static_cast<int>(S.size());
  Eigen::MatrixXd block(k, k);
  for (int b = 0; b < k; b++) {
    const int c = S[b];
    for (int a = 0; a < k; a++) {
      const int r = S[a];
      double reset_rc = r == c ? 1.0 : 0.0;
      if (r >= nv && r < 2 * nv) {
        reset_rc = c < nv ? reset.DvDq(r - nv, c) : c < 2 * nv ? reset.DvDv(r - nv, c - nv) : 0.0;
      }
      block(a, b) = reset_rc + correction(r) * grad_g(c);
    }
  }
  return block;
}

}  // namespace saltation
