// The hook's chains through the run: Φ of the rigid hybrid model (mode flows between events, Ξ
// at each), Φ of MuJoCo's own step (mjd_transitionFD), and the covariance through Ξ and through
// DΔ alone.
//
//   Reset    (t0, mode)                        => Φ = I, P = P₀ at t0
//   AddEvent (an event with Ξ)                 => folded in when the chain passes its time (kept
//                                                 only by the chains that fold Ξ: rigid Φ, covariance)
//   Advance  (saved x_{k−1}, x_k, Resimulator) => Φ and P advanced to t_k (time()): the mode flows
//                                                 from the mode HoldMode last gave, Ξ and
//                                                 mode_after at each pending event
//   HoldMode (the hook's mode at x_k)          => the mode the next Advance starts from (kept only
//                                                 by the chains that flow on it: rigid Φ, covariance)
//   Skip     (t_k)                             => nothing propagated: pending events dropped
//
// The mode is the hook's, taken after each step (HoldMode), not a copy the chain carries on by
// itself: the hook's held anchors follow their points after each step and its events
// (FollowHeldPoints, hook.cc), and the mode flows here match the contacts to the points by those
// anchors (EvaluateMode's MatchContacts, the J̇v stencil). A copy of its own, its anchors where the
// points were first seen, would after a long slide match another listed point of the pair (a
// plate's top corner for its bottom one once it slid 50 mm over a box: its Φ was no longer the
// sliding plate's) — and following them here again would be a second implementation of the
// hook's rule, on points the chain does not have. The hook's mode also holds what changes it
// between the chain's events (a measured restitution's rest, a Zeno record's point).
//
// Reads the model; writes data's workspaces, the Resimulator's data and its own matrices.
#ifndef SALTATION_CHAIN_PROPAGATION_H_
#define SALTATION_CHAIN_PROPAGATION_H_

#include <Eigen/Dense>
#include <vector>

#include "resimulation.h"
#include "saltation/hook_event.h"
#include "saltation/mode_dynamics.h"
#include "saltation/model.h"

namespace saltation {

class ChainPropagator {
 public:
  ChainPropagator(const Model& model, Data& data, const HookOptions& options);

  void Reset(double t0, const Mode& mode);
  bool active() const { return phi_rigid_.size() || phi_compliant_.size() || cov_.size(); }
  // whether Ξ of the events is folded in (the rigid chain, the covariance): AddEvent keeps a copy
  bool folds_events() const { return phi_rigid_.size() || cov_.size(); }
  void AddEvent(const HookEvent& ev) {
    if (folds_events()) pending_.push_back(ev);
  }
  void Advance(const SavedStep& prev, const SavedStep& cur, double dt, Resimulator& resim);
  // copied only for the chains that flow on it (rigid Φ, covariance: folds_events); the compliant
  // chain (MuJoCo's own step) does not read it
  void HoldMode(const Mode& mode) {
    if (folds_events()) mode_.contacts = mode.contacts;
  }
  void Skip(double t);

  // Φ(t ← t0) = exp(log_scale) · matrix (kept apart so long products do not overflow)
  const Eigen::MatrixXd& phi_rigid() const { return phi_rigid_; }
  double phi_rigid_log_scale() const { return phi_rigid_log_; }
  const Eigen::MatrixXd& phi_compliant() const { return phi_compliant_; }
  double phi_compliant_log_scale() const { return phi_compliant_log_; }
  double t0() const { return t0_; }
  double time() const { return time_; }
  const Eigen::MatrixXd& covariance() const { return cov_; }
  const Eigen::MatrixXd& covariance_dreset() const { return cov_dreset_; }

 private:
  const Model& model_;
  Data& data_;
  const HookOptions& options_;
  Mode mode_;                        // the hook's mode at time() (HoldMode)
  std::vector<HookEvent> pending_;   // events not yet folded into Φ (time order)
  Eigen::MatrixXd phi_rigid_, phi_compliant_, cov_, cov_dreset_;
  double phi_rigid_log_ = 0, phi_compliant_log_ = 0, t0_ = 0, time_ = 0;
};

}  // namespace saltation

#endif  // SALTATION_CHAIN_PROPAGATION_H_
