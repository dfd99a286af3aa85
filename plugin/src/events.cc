#include "saltation/events.h"

#include <algorithm>
#include <cmath>

#include "saltation/errors.h"
#include "saltation/guards.h"

namespace saltation {

const char* EventKindName(EventKind kind) {
  switch (kind) {
    case EventKind::kTouchdown:
      return "touchdown";
    case EventKind::kLiftoff:
      return "liftoff";
    case EventKind::kSlip:
      return "slip";
  }
  return "unknown";
}

double DefaultForceTolerance(const mjModel* m) {
  return 1e-9 * std::max(1e-6, m->stat.meanmass) * std::max(1.0, mju_norm3(m->opt.gravity));
}

std::vector<ContactId> ReleasePulling(const Model& model, Data& data, const State& x, Mode& mode,
                                      double force_tol, int* rank) {
  std::vector<ContactId> released;
  while (true) {
    const ModeDynamics dyn = EvaluateMode(model, data, x, mode);
    if (rank) *rank = dyn.rank;
    if (mode.contacts.empty()) break;
    Eigen::Index worst;
    const double lowest = dyn.normal_force.minCoeff(&worst);
    if (lowest >= -force_tol) break;
    if (!mode.contacts[worst].frictionless && ContactRowCount(dyn.constraints.points[worst]) > 1) {
      mode.contacts[worst].frictionless = true;  // sticking would pull: let it slip first
      continue;
    }
    released.push_back(mode.contacts[worst]);
    mode.contacts.erase(mode.contacts.begin() + worst);
  }
  return released;
}

RigidEvent TouchdownEvent(const Model& model, Data& data, const State& x, const Mode& mode,
                          const ContactId& id, double simultaneous_gap, double force_tol) {
  const HybridState s{x, mode};
  RigidEvent ev;
  ev.kind = EventKind::kTouchdown;
  ev.time = s.x.time;
  ev.bracket_lo = ev.bracket_hi = ev.time;
  ev.mode_before = s.mode;
  ev.x_minus = s.x;

  // the point that fired, and every other point touching at the same instant
  mjData* d = data.main();
  EvaluatePosition(model, d, s.x.qpos.data());
  const std::vector<ContactPoint> points = ListContacts(model, d);
  std::vector<ContactId> ids = s.mode.contacts;
  ids.push_back(id);
  const std::vector<int> match = MatchContacts(ids, points);
  if (match.back() < 0) throw NumericalError("touchdown contact vanished at its event");
  const ContactPoint trigger = points[match.back()];
  ev.contact = trigger.id;
  const Eigen::VectorXd grad_g = TouchdownGuardGradient(model, d, trigger);
  std::vector<ContactId> candidates = s.mode.contacts;
  candidates.push_back(trigger.id);
  std::vector<bool> used(points.size(), false);
  for (int i : match) {
    if (i >= 0) used[i] = true;
  }
  for (size_t i = 0; i < points.size(); i++) {
    if (!used[i] && points[i].gap <= simultaneous_gap) candidates.push_back(points[i].id);
  }

  const Eigen::VectorXd f_minus = ModeVectorField(model, data, s.x, s.mode);
  ev.impact = SolveImpact(model, data, s.x, candidates);
  ev.x_plus = s.x;
  ev.x_plus.qvel = ev.impact.qvel_plus;
  ev.mode_after = ev.impact.sustained;
  ev.released = ReleasePulling(model, data, ev.x_plus, ev.mode_after, force_tol, &ev.rank_after);
  const Eigen::VectorXd f_plus = ModeVectorField(model, data, ev.x_plus, ev.mode_after);
  const std::vector<ContactId> impulse_set = ev.impact.ImpulseSet();
  const ResetJacobian reset = impulse_set.empty()
                                  ? ResetJacobian::Identity(model.nv(), model.na())
                                  : ImpactResetJacobian(model, data, s.x, impulse_set);
  ev.xi = ComputeSaltation(reset, f_minus, f_plus, grad_g);
  return ev;
}

RigidEvent LiftoffEvent(const Model& model, Data& data, const State& x, const Mode& mode, int k,
                        double force_tol) {
  const HybridState s{x, mode};
  RigidEvent ev;
  ev.kind = EventKind::kLiftoff;
  ev.time = s.x.time;
  ev.bracket_lo = ev.bracket_hi = ev.time;
  ev.mode_before = s.mode;
  ev.x_minus = s.x;
  ev.x_plus = s.x;
  ev.contact = s.mode.contacts[k];

  const Eigen::VectorXd f_minus = ModeVectorField(model, data, s.x, s.mode);
  const Eigen::VectorXd grad_g = LiftoffGuardGradient(model, data, s.x, s.mode, k);
  ev.mode_after = s.mode;
  // a sticking contact first tries to slip: it stays when it still presses without friction
  bool slips = false;
  if (!s.mode.contacts[k].frictionless && s.mode.contacts[k].geom1 >= 0) {
    Mode slip = s.mode;
    slip.contacts[k].frictionless = true;
    const ModeDynamics dyn = EvaluateMode(model, data, s.x, slip);
    if (ContactRowCount(dyn.constraints.points[k]) == 1 &&
        EvaluateMode(model, data, s.x, s.mode).constraints.points[k].condim > 1 &&
        dyn.normal_force(k) > force_tol) {
      ev.mode_after = slip;
      ev.kind = EventKind::kSlip;
      slips = true;
    }
  }
  if (!slips) ev.mode_after.contacts.erase(ev.mode_after.contacts.begin() + k);
  ev.released = ReleasePulling(model, data, ev.x_plus, ev.mode_after, force_tol, &ev.rank_after);
  const Eigen::VectorXd f_plus = ModeVectorField(model, data, ev.x_plus, ev.mode_after);
  ev.xi = ComputeSaltation(ResetJacobian::Identity(model.nv(), model.na()), f_minus, f_plus, grad_g);
  return ev;
}

}  // namespace saltation
