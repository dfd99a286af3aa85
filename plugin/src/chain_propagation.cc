#include "chain_propagation.h"

#include <cmath>
#include <utility>

namespace saltation {
namespace {

void Renormalize(Eigen::MatrixXd& A, double& log_scale) {
  const double n = A.cwiseAbs().maxCoeff();
  if (n > 1e50 || (n > 0 && n < 1e-50)) {
    A /= n;
    log_scale += std::log(n);
  }
}

// exp(h·A) to third order (the per-step transition of a linear flow)
Eigen::MatrixXd StepTransition(const Eigen::MatrixXd& A, double h) {
  const Eigen::MatrixXd hA = h * A;
  return Eigen::MatrixXd::Identity(A.rows(), A.cols()) + hA * (Eigen::MatrixXd::Identity(A.rows(), A.cols()) + hA / 2 * (Eigen::MatrixXd::Identity(A.rows(), A.cols()) + hA / 3));
}

}  // namespace

ChainPropagator::ChainPropagator(const Model& model, Data& data, const HookOptions& options)
    : model_(model), data_(data), options_(options) {}

void ChainPropagator::Reset(double t0, const Mode& mode) {
  mode_ = mode;
  pending_.clear();
  const int n = model_.ndx();
  t0_ = time_ = t0;
  phi_rigid_log_ = phi_compliant_log_ = 0;
  const bool rigid = options_.propagation == Propagation::kRigid || options_.propagation == Propagation::kBoth;
  const bool compliant = options_.propagation == Propagation::kCompliant || options_.propagation == Propagation::kBoth;
  phi_rigid_ = rigid ? Eigen::MatrixXd::Identity(n, n) : Eigen::MatrixXd();
  phi_compliant_ = compliant ? Eigen::MatrixXd::Identity(n, n) : Eigen::MatrixXd();
  if (options_.covariance) {
    cov_ = options_.initial_covariance * Eigen::MatrixXd::Identity(n, n);
    cov_dreset_ = cov_;
  } else {
    cov_.resize(0, 0);
    cov_dreset_.resize(0, 0);
  }
}

void ChainPropagator::Skip(double t) {
  pending_.clear();
  time_ = t;
}

void ChainPropagator::Advance(const SavedStep& prev, const SavedStep& cur, double dt, Resimulator& resim) {
  const int n = model_.ndx();
  const double t0 = prev.time, t1 = cur.time;
  if (phi_compliant_.size()) {
    phi_compliant_ = resim.StepJacobian(prev, dt, options_.fd_eps) * phi_compliant_;
    Renormalize(phi_compliant_, phi_compliant_log_);
  }
  if (phi_rigid_.size() || cov_.size()) {
    // the rigid chain over [t_{k−1}, t_k]: mode flows between the events, Ξ at each
    Eigen::MatrixXd step = Eigen::MatrixXd::Identity(n, n), step_dreset = step;
    std::vector<std::pair<Eigen::MatrixXd, Eigen::MatrixXd>> jumps;  // (Ξ, DΔ) in order
    State x = prev.state();
    Mode mode = mode_;  // the hook's at t_{k−1} (HoldMode), then each event's mode_after
    double t = t0;
    auto flow = [&](double until) {
      if (until <= t) return;
      const Eigen::MatrixXd A = ModeVectorFieldJacobian(model_, data_, x, mode, options_.model.fd_step);
      const Eigen::MatrixXd E = StepTransition(A, until - t);
      step = E * step;
      step_dreset = E * step_dreset;
      t = until;
    };
    while (!pending_.empty() && pending_.front().time <= t1) {
      const HookEvent ev = std::move(pending_.front());
      pending_.erase(pending_.begin());
      flow(ev.time);
      step = ev.rigid.xi.Dense() * step;
      step_dreset = ev.rigid.xi.reset.Dense() * step_dreset;
      x = ev.rigid.x_plus;
      mode = ev.rigid.mode_after;
    }
    flow(t1);
    if (phi_rigid_.size()) {
      phi_rigid_ = step * phi_rigid_;
      Renormalize(phi_rigid_, phi_rigid_log_);
    }
    if (cov_.size()) {
      const Eigen::MatrixXd Q = options_.process_noise * dt * Eigen::MatrixXd::Identity(n, n);
      cov_ = step * cov_ * step.transpose() + Q;
      cov_dreset_ = step_dreset * cov_dreset_ * step_dreset.transpose() + Q;
      cov_ = 0.5 * (cov_ + cov_.transpose()).eval();
      cov_dreset_ = 0.5 * (cov_dreset_ + cov_dreset_.transpose()).eval();
    }
  }
  if (!phi_rigid_.size() && !cov_.size()) pending_.clear();  // Ξ is folded into the rigid chain only
  time_ = t1;
}

}  // namespace saltation
