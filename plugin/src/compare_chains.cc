// Pass 2 of CompareAtTau: the rigid and the compliant chain over the window, with the rigid
// restitution matched to MuJoCo's; and their difference.
#include <algorithm>
#include <cmath>

#include "compare_internal.h"
#include "saltation/errors.h"

namespace saltation::compare_internal {
namespace {

// steps MuJoCo to the window's start, then the hook over the window; the hook's error message, or
// "" when it covered the window
std::string RunWindow(const State& x_start, const CompareRow& row, Chains& chains, mjData* d) {
  const mjModel* m = chains.m.get();
  Hook& hook = *chains.hook;
  const double dt = m->opt.timestep;
  StateToData(m, x_start, d);
  mj_forward(m, d);
  while (d->time < row.t0 - 0.5 * dt) mj_step(m, d);
  while (hook.phi_time() < row.t1 - 0.5 * dt || hook.phi_time() <= hook.phi_t0()) {
    if (hook.phi_compliant().size() && hook.phi_time() <= row.t_touch) {
      chains.pre = hook.phi_compliant() * std::exp(hook.phi_compliant_log_scale());
    }
    try {
      hook.Step(d);
    } catch (const Error& e) {
      return e.what();
    }
    CheckStable(d, row.tau);
  }
  return "";
}

}  // namespace

Chains PropagateChains(const mjModel* base, const CompareSettings& s, const State& x_start, CompareRow& row) {
  HookOptions options;
  options.restitution = RestitutionSource::kOverride;
  options.restitution_override = std::clamp(row.restitution, 0.0, 1.0);
  options.propagation = Propagation::kBoth;
  Chains chains;
  chains.fd_eps = options.fd_eps;
  for (int attempt = 0;; attempt++) {
    chains.hook.reset();
    chains.m = StiffenedModel(base, s, row.tau);
    chains.hook = std::make_unique<Hook>(chains.m.get(), options);
    DataPtr d(mj_makeData(chains.m.get()));
    const std::string failure = RunWindow(x_start, row, chains, d.get());
    if (failure.empty()) break;
    const double dt = chains.m->opt.timestep;
    if (attempt > 0 || s.window_given || d->time - 4 * dt <= row.t_touch + 5 * dt) {
      throw NumericalError("the engine hook failed at t = " + Fmt("%.6g", d->time) + " s (tau = " +
                           Fmt("%g", row.tau) + " s): " + failure);
    }
    AddFlag(row, "window shortened to end before t = " + Fmt("%.4g", d->time) + " s, where the hook failed: " + failure);
    row.t1 = d->time - 3 * dt;
  }
  const Hook& hook = *chains.hook;
  row.t0 = hook.phi_t0();
  row.t1 = hook.phi_time();
  row.rigid = hook.phi_rigid() * std::exp(hook.phi_rigid_log_scale());
  row.compliant = hook.phi_compliant() * std::exp(hook.phi_compliant_log_scale());
  return chains;
}

void MeasureDifference(CompareRow& row) {
  const Eigen::MatrixXd D = row.rigid - row.compliant;
  row.absolute = D.norm();
  row.relative = row.absolute / row.compliant.norm();
  row.max_discrepancy = D.cwiseAbs().maxCoeff(&row.at_i, &row.at_j);
}

}  // namespace saltation::compare_internal
