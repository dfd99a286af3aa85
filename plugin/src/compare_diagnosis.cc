// What CompareAtTau's window says about the agreement of the two chains: its events as flags,
// MuJoCo's contact-onset term, a touchdown on the time grid, chains that cannot be compared.
#include <algorithm>
#include <cmath>

#include "compare_internal.h"

namespace saltation::compare_internal {
namespace {

// MuJoCo's impedance at zero penetration of a contact between the pair's geoms: solimp's DMIN
double OnsetImpedance(const mjModel* m, const ContactId& id) {
  if (id.geom1 < 0 || id.geom2 < 0) return 1;
  mjtNum solimp[mjNIMP];
  ContactSolimp(m, id.geom1, id.geom2, solimp);
  return solimp[0];
}

}  // namespace

const HookEvent* DiagnoseWindowEvents(const std::vector<HookEvent>& events, CompareRow& row) {
  const HookEvent* touch = nullptr;
  bool any_event = false;
  for (const HookEvent& ev : events) {
    if (ev.time < row.t0 - 1e-12 || ev.time > row.t1 + 1e-12) continue;
    row.events.push_back(EventKindName(ev.kind));
    if (ev.kind != EventKind::kRestitution && ev.kind != EventKind::kNearMiss) any_event = true;
    if (IsTouchdown(ev) && ev.has_xi && !touch) touch = &ev;
    if (ev.kind == EventKind::kGraze || ev.kind == EventKind::kNearMiss || ev.grazing) {
      AddFlag(row, "grazing: first-order theory does not apply");
    } else if (ev.kind == EventKind::kSimultaneous) {
      AddFlag(row, "simultaneous events: the sensitivity depends on the order (spread " +
                       Fmt("%.3g", ev.order_spread) + ")");
    } else if (ev.kind == EventKind::kZeno) {
      AddFlag(row, "zeno: bounces accumulate at t = " + Fmt("%.4g", ev.accumulation_time) +
                       " s, the rigid model holds the contact from there");
    } else if (ev.kind == EventKind::kChatter) {
      AddFlag(row, "chatter: a contact switches on and off within a few steps");
    }
  }
  if (!any_event) AddFlag(row, "no event in the window: nothing for the two to disagree about at an event");
  return touch;
}

// MuJoCo's contact-onset term: ∂v_n(t1)/∂q_n(t0) along the touchdown's contact normal. The
// compliant chain misses the jump of the contact damping force at the onset (it switches on in
// whole steps; finite differences never cross it), an error of rank one whose row is the onset
// time's sensitivity ∝ ∇gᵀΦ(t_touch ← t0); the difference with that direction of the initial
// perturbation projected out shows how the rest converges.
void MeasureOnsetTerm(const HookEvent& touchdown, const Chains& chains, CompareRow& row) {
  const int nv = chains.m->nv, n = static_cast<int>(row.rigid.rows());
  if (touchdown.rigid.xi.grad_g.size() != n) return;
  const Eigen::MatrixXd D = row.rigid - row.compliant;
  const Eigen::VectorXd grad = touchdown.rigid.xi.grad_g;
  Eigen::VectorXd normal = grad.head(nv);
  if (normal.norm() > 0) {
    normal.normalize();
    row.onset = std::abs(normal.dot(row.compliant.block(nv, 0, nv, nv) * normal)) * row.tau;
    const double d_onset = std::abs(normal.dot(D.block(nv, 0, nv, nv) * normal));
    row.onset_share = row.absolute > 0 ? d_onset / row.absolute : 0;
  }
  const Eigen::MatrixXd P0 = chains.pre.rows() == n ? chains.pre : Eigen::MatrixXd::Identity(n, n);
  Eigen::VectorXd w = P0.transpose() * grad;
  if (w.norm() > 0) {
    w.normalize();
    const Eigen::MatrixXd Q = Eigen::MatrixXd::Identity(n, n) - w * w.transpose();
    row.relative_off_onset = (D * Q).norm() / (row.compliant * Q).norm();
  }
}

// A touchdown on the time grid: the state perturbations of mjd_transitionFD switch the contact on
// and off within one step's Jacobian, which then holds (force jump)/eps — when there is a jump:
// an impedance that starts near 0 (smooth onset) switches on without one.
void FlagTouchdownOnTimeGrid(const HookEvent& touchdown, const Chains& chains, const State& x_start,
                             CompareRow& row) {
  if (OnsetImpedance(chains.m.get(), touchdown.contact) <= 0.01) return;
  const int nv = chains.m->nv;
  const double vn = std::abs(touchdown.rigid.xi.transversality);
  const double jn = touchdown.rigid.xi.grad_g.head(nv).norm();
  const double k = (touchdown.time - x_start.time) / row.timestep;
  const double off_grid = std::abs(k - std::round(k)) * row.timestep;
  if (vn > 0 && off_grid * vn < 10 * chains.fd_eps * jn) {
    AddFlag(row, "touchdown on the time grid (" + Fmt("%.2g", off_grid) +
                     " s from a step): MuJoCo's finite differences can straddle the contact switch");
  }
}

void FlagChainQuality(CompareRow& row) {
  const double rigid_norm = row.rigid.norm();
  if (rigid_norm <= 1e-9 * std::max(1.0, row.compliant.norm())) {
    AddFlag(row, "the rigid sensitivity vanishes (plastic impact into resting contact): the relative difference is 1 "
                 "whatever tau; see absolute_difference");
  } else if (row.relative > 0.5 && row.onset_share > 0.5 && row.onset > 0.05) {
    AddFlag(row, "compliant FD dominated by the contact-onset term (|Phi_c(v_n, q_n)|*tau = " + Fmt("%.3g", row.onset) +
                     ": grows like 1/tau; a smooth-onset --solimp removes it)");
  }
  if (!row.rigid.allFinite() || !row.compliant.allFinite()) AddFlag(row, "a chain is not finite");
}

}  // namespace saltation::compare_internal
