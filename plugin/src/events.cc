#include "saltation/events.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "saltation/errors.h"
#include "saltation/guards.h"
#include "island_passes.h"
#include "own_points.h"
#include "same_bits.h"

namespace saltation {

double DefaultForceTolerance(const mjModel* m) {
  return 1e-9 * std::max(1e-6, m->stat.meanmass) * std::max(1.0, mju_norm3(m->opt.gravity));
}

namespace {

// F⁻ or F⁺ of an event on its island: from the memo when there is one
Eigen::VectorXd Field(const Model& model, Data& data, const State& x, const Mode& mode, FieldMemo* fields,
                      const Island* island) {
  return fields ? fields->Get(model, data, x, mode, island) : ModeVectorField(model, data, x, mode, island);
}

// the trees an evaluation ran on: empty for the whole model (a reference: Find compares it
// without a copy)
const std::vector<char>& TreesOf(const Island* island) {
  static const std::vector<char> kWhole;
  return island && !island->whole ? island->tree : kWhole;
}

}  // namespace

const FieldMemo::Entry* FieldMemo::Find(const State& x, const Mode& mode, const Island* island) const {
  const std::vector<char>& trees = TreesOf(island);
  for (const Entry& e : entries_) {
    if (e.trees != trees || !SameBits(e.x.time, x.time) || !SameBits(e.x.qpos, x.qpos) ||
        !SameBits(e.x.qvel, x.qvel) || !SameBits(e.x.act, x.act)) {
      continue;
    }
    if (SameContacts(e.mode.contacts, mode.contacts)) return &e;
  }
  return nullptr;
}

Eigen::VectorXd FieldMemo::Get(const Model& model, Data& data, const State& x, const Mode& mode,
                               const Island* island) {
  if (const Entry* e = Find(x, mode, island)) {
    hits_++;
    return e->f;
  }
  evaluations_++;
  entries_.push_back({x, mode, TreesOf(island), ModeVectorField(model, data, x, mode, island)});
  return entries_.back().f;
}

void FieldMemo::Keep(const State& x, const Mode& mode, const ModeDynamics& dyn, const Island* island) {
  if (Find(x, mode, island)) return;
  Eigen::VectorXd f(x.qvel.size() + dyn.qacc.size() + dyn.act_dot.size());
  f << x.qvel, dyn.qacc, dyn.act_dot;  // ModeVectorField's layout
  entries_.push_back({x, mode, TreesOf(island), std::move(f)});
}

std::vector<ContactId> ReleasePulling(const Model& model, Data& data, const State& x, Mode& mode,
                                      double force_tol, int* rank, FieldMemo* fields, const Island* island) {
  std::vector<ContactId> released;
  while (true) {
    const ModeDynamics dyn = EvaluateMode(model, data, x, mode, island);
    if (rank) *rank = dyn.rank;
    if (mode.contacts.empty()) {
      if (fields) fields->Keep(x, mode, dyn, island);
      break;
    }
    Eigen::Index worst;
    const double lowest = dyn.normal_force.minCoeff(&worst);
    if (lowest >= -force_tol) {
      if (fields) fields->Keep(x, mode, dyn, island);
      break;
    }
    if (!mode.contacts[worst].frictionless && ContactRowCount(dyn.constraints.points[worst]) > 1) {
      mode.contacts[worst].frictionless = true;  // sticking would pull: let it slip first
      continue;
    }
    released.push_back(mode.contacts[worst]);
    mode.contacts.erase(mode.contacts.begin() + worst);
  }
  return released;
}

std::vector<ContactId> ReleasePullingInIsland(const Model& model, Data& data, const State& x, Mode& mode,
                                              const ContactId& seed, double force_tol) {
  const Island island = IslandOf(model, mode.contacts, {seed});
  if (island.whole) return ReleasePulling(model, data, x, mode, force_tol, nullptr);
  Mode inside = RestrictMode(model.mj(), mode, island);
  std::vector<ContactId> released = ReleasePulling(model, data, x, inside, force_tol, nullptr);
  // the mode's contacts outside the island, and the island's survivors (their frictionless flags
  // from the release), in the mode's order
  Mode merged;
  size_t j = 0;
  for (const ContactId& id : mode.contacts) {
    if (!island.Contains(model.mj(), id)) {
      merged.contacts.push_back(id);
    } else if (j < inside.contacts.size() && inside.contacts[j].SamePair(id) && inside.contacts[j].anchor == id.anchor) {
      merged.contacts.push_back(inside.contacts[j++]);
    }
  }
  mode = std::move(merged);
  return released;
}

namespace {

// an event of `kind` at x in `mode`: time, a bracket of zero width and the state before it
RigidEvent EventAt(EventKind kind, const State& x, const Mode& mode) {
  RigidEvent ev;
  ev.kind = kind;
  ev.time = x.time;
  ev.bracket_lo = ev.bracket_hi = ev.time;
  ev.mode_before = mode;
  ev.x_minus = x;
  return ev;
}

// A release where a contact without a held feature crosses a boundary of its geometric features
// (contact_features.h; the engine hook's modes hold none): λ_n jumps there (a ball too fast for an
// edge: m G on the face, m(G − v²/r) < 0 on the edge), so the located liftoff sits on the boundary
// and ∂λ_n/∂x by differences would straddle the jump. True when x is within the difference stencil
// (2·fd_step) of a boundary of the feature of `id` at x: then grad is the boundary's guard gradient
// oriented to fall along the motion and before/after the features on either side. Uses data.aux().
bool AtFeatureBoundary(const Model& model, Data& data, const State& x, const ContactId& id,
                       Eigen::VectorXd* grad, int* before, int* after) {
  const mjModel* m = model.mj();
  if (id.feature >= 0 || !HasFeatures(m, id)) return false;
  mjData* d = data.aux();
  mju_copy(d->qpos, x.qpos.data(), m->nq);
  mj_kinematics(m, d);
  ContactId at = id;
  at.feature = FeatureAt(m, d, id);
  if (at.feature < 0) return false;
  const FeatureGuardSet guards = FeatureGuards(m, d, at);
  for (int j = 0; j < guards.count; j++) {
    if (std::abs(guards.guard[j].value) > 2 * model.options().fd_step) continue;
    const Eigen::VectorXd g = FeatureGuardGradient(model, d, at, guards.guard[j]);
    const double rate = g.head(model.nv()).dot(x.qvel);
    if (rate == 0) continue;
    *grad = rate < 0 ? g : Eigen::VectorXd(-g);  // leaving `at`, or just past the boundary from guard.to
    *before = rate < 0 ? at.feature : guards.guard[j].to;
    *after = rate < 0 ? guards.guard[j].to : at.feature;
    return true;
  }
  return false;
}

}  // namespace

RigidEvent TouchdownEvent(const Model& model, Data& data, const RestitutionTable& restitution,
                          const State& x, const Mode& mode,
                          const ContactId& id, double simultaneous_gap, double force_tol,
                          bool complete, FieldMemo* fields, ProbeMemo* probes, const TakeOver* take_over) {
  // a complete event reads F⁺ from its release check's last evaluation
  FieldMemo own;
  if (!fields && complete) fields = &own;
  RigidEvent ev = EventAt(EventKind::kTouchdown, x, mode);
  // the event reaches the trigger's trees and the trees the mode couples to them: the rest of the
  // mode is carried over unchanged
  ev.island = IslandOf(model, mode.contacts, {id});
  Mode rest;
  const HybridState s{x, RestrictMode(model.mj(), mode, ev.island, &rest)};

  // the point that fired, and every other point of the island touching at the same instant (the
  // mocap bodies where their prescribed motion has them at the event): MuJoCo's position stage
  // on the island's trees alone, its collision of the pairs with an island body (island_passes.h)
  ApplyMocapMotion(model, data, x.time);
  mjData* d = data.main();
  EvaluatePosition(model, d, s.x.qpos.data(), SleepOutside(model, d, ev.island));
  std::vector<ContactPoint> points;
  ListContacts(model, d, points);
  std::vector<ContactId> ids = s.mode.contacts;
  ids.push_back(id);
  std::vector<int> match;
  MatchContacts(ids, points, match);
  if (match.back() < 0) throw NumericalError("touchdown contact vanished at its event");
  const ContactPoint trigger = points[match.back()];
  ev.contact = trigger.id;
  ev.feature = FeatureAt(model.mj(), d, trigger.id);
  ev.point = trigger.pos;
  ev.restitution = restitution.Pair(trigger.id.geom1, trigger.id.geom2);
  const bool own_guard = take_over && take_over->grad_h.size() > 0;  // the guard crossed is not the trigger's gap
  const Eigen::VectorXd grad_g = own_guard ? take_over->grad_h : TouchdownGuardGradient(model, d, trigger, data.work());
  const double dg_dt = own_guard ? 0.0 : SurfaceVelocity(model, d, trigger)(0);  // 0 unless the surface moves
  const double rel = KineticTransversality(model, d, grad_g, s.x.qvel, dg_dt, &ev.island, true);  // d at x, on the island
  std::vector<ContactId> candidates;
  for (const ContactId& c : s.mode.contacts) {
    const bool leaves = take_over && std::any_of(take_over->leaving.begin(), take_over->leaving.end(), [&](const ContactId& l) {
                          return l.SamePair(c) && l.anchor == c.anchor && l.feature == c.feature;
                        });
    if (!leaves) candidates.push_back(c);
  }
  candidates.push_back(trigger.id);
  std::vector<bool> used(points.size(), false);
  for (int i : match) {
    if (i >= 0) used[i] = true;
  }
  for (size_t i = 0; i < points.size(); i++) {
    if (!used[i] && points[i].gap <= simultaneous_gap && ev.island.Contains(model.mj(), points[i].id)) {
      candidates.push_back(points[i].id);
    }
  }

  const Eigen::VectorXd f_minus = Field(model, data, s.x, s.mode, fields, &ev.island);
  ev.impact = SolveImpact(model, data, restitution, s.x, candidates);
  ev.x_plus = s.x;
  ev.x_plus.qvel = ev.impact.qvel_plus;
  Mode after = ev.impact.sustained;
  ev.released = ReleasePulling(model, data, ev.x_plus, after, force_tol, &ev.rank_after, fields, &ev.island);
  ev.mode_after = MergeModes(rest, after);
  ev.xi = ComputeTransversality(f_minus, grad_g, dg_dt);
  ev.xi.transversality_rel = rel;
  ev.complete = false;
  if (complete) CompleteEvent(model, data, restitution, ev, fields, probes);
  return ev;
}

int JoiningContacts(const mjModel* m, const RigidEvent& ev) {
  if (ev.kind != EventKind::kTouchdown) return 0;
  // counted, not subtracted: a take-over's leaving contacts (a cylinder's corners) are in mode_before
  // but not among the candidates
  const std::vector<ContactId> before = RestrictMode(m, ev.mode_before, ev.island).contacts;
  int joining = 0;
  for (const ContactId& c : ev.impact.candidates) {
    const bool held = std::any_of(before.begin(), before.end(), [&](const ContactId& b) {
      return b.SamePair(c) && b.anchor == c.anchor && b.feature == c.feature;
    });
    if (!held) joining++;
  }
  return joining;
}

void CompleteEvent(const Model& model, Data& data, const RestitutionTable& restitution, RigidEvent& ev,
                   FieldMemo* fields, ProbeMemo* probes) {
  if (ev.complete) return;
  ApplyMocapMotion(model, data, ev.x_minus.time);
  const mjModel* m = model.mj();
  // a touchdown's F⁻ and F⁺ on its island (TouchdownEvent); a release's on the whole model, as its F⁻
  const Island* on = ev.kind == EventKind::kTouchdown ? &ev.island : nullptr;
  const Eigen::VectorXd f_plus = Field(model, data, ev.x_plus, RestrictMode(m, ev.mode_after, ev.island), fields, on);
  if (ev.kinematic_release) {
    // DΔ = I, ∇g = (J_n, 0) measured at the event (KinematicReleaseEvent)
    const double rel = ev.xi.transversality_rel;
    ev.xi = ComputeSaltation(ResetJacobian::NoReset(model.nv(), model.na()), ev.xi.f_minus, f_plus, ev.xi.grad_g);
    ev.xi.transversality_rel = rel;
  } else if (ev.kind == EventKind::kTouchdown) {
    const std::vector<ContactId> impulse_set = ev.impact.ImpulseSet();
    ResetJacobian reset = impulse_set.empty()
                              ? ResetJacobian::NoReset(model.nv(), model.na())
                              : ImpactResetJacobian(model, data, restitution, ev.x_minus, impulse_set,
                                                    ConfigurationBlockMethod::kEquations, probes);
    const double rel = ev.xi.transversality_rel;  // measured at the event (TouchdownEvent)
    Eigen::VectorXd dreset_dt;
    if (model.options().mocap_motion && !impulse_set.empty()) {
      dreset_dt = Eigen::VectorXd::Zero(model.ndx());
      dreset_dt.segment(model.nv(), model.nv()) =
          ImpactResetTimeDerivative(model, data, restitution, ev.x_minus, impulse_set);
    }
    ev.xi = ComputeSaltation(std::move(reset), ev.xi.f_minus, f_plus, ev.xi.grad_g, ev.xi.dg_dt, dreset_dt);
    ev.xi.transversality_rel = rel;
  } else {
    const Mode before = RestrictMode(m, ev.mode_before, ev.island);
    const int k = IndexInIsland(m, ev.mode_before, ev.mode_index, ev.island);
    Eigen::VectorXd grad_h;
    if (AtFeatureBoundary(model, data, ev.x_minus, before.contacts[k], &grad_h, &ev.feature_before, &ev.feature_after)) {
      // the release is the feature change (FeatureEvent's Ξ): F⁻ on the feature it leaves
      Mode held = before;
      held.contacts[k].feature = ev.feature_before;
      ev.feature = ev.feature_before;
      const Eigen::VectorXd f_minus = ModeVectorField(model, data, ev.x_minus, held);  // data.main() at x⁻
      ev.xi = ComputeSaltation(ResetJacobian::NoReset(model.nv(), model.na()), f_minus, f_plus, grad_h);
      ev.xi.transversality_rel = KineticTransversality(model, data.main(), grad_h, ev.x_minus.qvel, 0, &ev.island);
      ev.complete = true;
      return;
    }
    const Eigen::VectorXd grad_g = LiftoffGuardGradient(model, data, ev.x_minus, before, k);
    ev.xi = ComputeSaltation(ResetJacobian::NoReset(model.nv(), model.na()), ev.xi.f_minus, f_plus, grad_g);
    ev.xi.transversality_rel = CancellationRatio(grad_g, ev.xi.f_minus, model.nv());
  }
  ev.complete = true;
}

ReleaseStart ReleaseEventAt(const Model& model, const RestitutionTable& restitution, const State& x, const Mode& mode,
                            int k) {
  ReleaseStart start;
  RigidEvent& ev = start.ev;
  ev = EventAt(EventKind::kLiftoff, x, mode);
  ev.x_plus = x;
  ev.contact = mode.contacts[k];
  ev.mode_index = k;
  ev.restitution = restitution.Pair(ev.contact.geom1, ev.contact.geom2);
  ev.island = IslandOf(model, mode.contacts, {ev.contact});
  start.local = RestrictMode(model.mj(), mode, ev.island, &start.rest);
  start.k = IndexInIsland(model.mj(), mode, k, ev.island);
  return start;
}

ReleaseBefore EvaluateBeforeRelease(const Model& model, Data& data, const State& x, ReleaseStart& start) {
  ReleaseBefore before;
  before.dyn = EvaluateMode(model, data, x, start.local);  // data.main() at x's configuration
  RigidEvent& ev = start.ev;
  ev.point = before.dyn.constraints.points[start.k].pos;
  ev.feature = ev.contact.feature >= 0 ? ev.contact.feature : FeatureAt(model.mj(), data.main(), ev.contact);
  before.f_minus.resize(model.ndx());
  before.f_minus << x.qvel, before.dyn.qacc, before.dyn.act_dot;
  return before;
}

Mode ReleaseModeAfter(const Model& model, Data& data, const State& x, ReleaseStart& start, const ModeDynamics* before,
                      double force_tol) {
  const Mode& local = start.local;
  const int k = start.k;
  RigidEvent& ev = start.ev;
  Mode after = local;
  // a sticking contact first tries to slip: it stays when it still presses without friction
  bool slips = false;
  if (before && !local.contacts[k].frictionless && local.contacts[k].geom1 >= 0) {
    Mode slip = local;
    slip.contacts[k].frictionless = true;
    const ModeDynamics dyn = EvaluateMode(model, data, x, slip);
    if (ContactRowCount(dyn.constraints.points[k]) == 1 &&
        before->constraints.points[k].condim > 1 &&  // the mode's own evaluation at x
        dyn.normal_force(k) > force_tol) {
      after = std::move(slip);
      ev.kind = EventKind::kSlip;
      slips = true;
    }
  }
  if (!slips) after.contacts.erase(after.contacts.begin() + k);
  ev.released = ReleasePulling(model, data, x, after, force_tol, &ev.rank_after);
  ev.mode_after = MergeModes(start.rest, after);
  return after;
}

RigidEvent LiftoffEvent(const Model& model, Data& data, const RestitutionTable& restitution,
                        const State& x, const Mode& mode, int k, double force_tol, bool complete) {
  ReleaseStart start = ReleaseEventAt(model, restitution, x, mode, k);
  const ReleaseBefore before = EvaluateBeforeRelease(model, data, x, start);
  ReleaseModeAfter(model, data, x, start, &before.dyn, force_tol);
  RigidEvent ev = std::move(start.ev);
  ev.complete = false;
  if (complete) {
    ev.xi.f_minus = before.f_minus;
    CompleteEvent(model, data, restitution, ev);
    return ev;
  }
  // the transversality alone: the guard's derivative along F⁻ (central, two mode evaluations)
  const Eigen::VectorXd& f_minus = before.f_minus;
  const double h = model.options().fd_step / std::max(1.0, f_minus.norm());
  const double rate = (LiftoffGuard(model, data, Integrate(model.mj(), x, f_minus * h), start.local, start.k) -
                       LiftoffGuard(model, data, Integrate(model.mj(), x, f_minus * h, -1), start.local, start.k)) /
                      (2 * h);
  if (rate == 0 || !std::isfinite(rate)) {
    throw NumericalError("saltation matrix undefined: transversality ∇gᵀF⁻ is zero or not finite "
                         "(a grazing contact)");
  }
  ev.xi.f_minus = f_minus;
  ev.xi.transversality = rate;
  ev.xi.transversality_rel = std::numeric_limits<double>::quiet_NaN();
  return ev;
}

RigidEvent FeatureEvent(const Model& model, Data& data, const RestitutionTable& restitution,
                        const State& x, const Mode& mode, int k, const FeatureGuard& guard, double force_tol) {
  RigidEvent ev = EventAt(EventKind::kFeature, x, mode);
  ev.x_plus = x;
  ev.contact = mode.contacts[k];
  ev.mode_index = k;
  ev.feature_before = ev.contact.feature;
  ev.feature_after = guard.to;
  ev.feature = ev.feature_before;
  ev.restitution = restitution.Pair(ev.contact.geom1, ev.contact.geom2);
  ev.island = IslandOf(model, mode.contacts, {ev.contact});
  Mode rest;
  const HybridState s{x, RestrictMode(model.mj(), mode, ev.island, &rest)};
  k = IndexInIsland(model.mj(), mode, k, ev.island);  // from here on: the index in s.mode

  const ModeDynamics before = EvaluateMode(model, data, s.x, s.mode);  // data.main() at x's configuration
  ev.point = before.constraints.points[k].pos;
  Eigen::VectorXd f_minus(model.ndx());
  f_minus << s.x.qvel, before.qacc, before.act_dot;
  const Eigen::VectorXd grad_h = FeatureGuardGradient(model, data.main(), s.mode.contacts[k], guard);
  const double rel = KineticTransversality(model, data.main(), grad_h, s.x.qvel, 0, &ev.island);
  Mode after = s.mode;
  after.contacts[k].feature = guard.to;
  // onto a feature another contact of its pair holds (a capsule's two ends handing over to the one
  // interior point as the lines pass the threshold, own_points.h; a box's corner reaching the other's
  // rim onto the edge–edge point its edge across the rim already holds, box_box_features.h): the
  // same contact twice, so this one leaves the mode here and the other carries the point. Only
  // capsule–capsule and box–box pairs: there a feature code names one point of the pair (the
  // interior point is unique, a vertex–face or edge–edge is one); a sphere–box code need not
  const bool one_point_per_feature = OwnCapsuleCapsulePoints(model.mj(), ev.contact.geom1, ev.contact.geom2) ||
                                     OwnBoxBoxPoints(model.mj(), ev.contact.geom1, ev.contact.geom2);
  for (size_t c = 0; one_point_per_feature && c < after.contacts.size(); c++) {
    if (static_cast<int>(c) != k && after.contacts[c].SamePair(ev.contact) && after.contacts[c].feature == guard.to) {
      after.contacts.erase(after.contacts.begin() + k);
      ev.kind = EventKind::kLiftoff;
      break;
    }
  }
  // a box–box hand-over may turn the normal (an edge–edge point reaching the end of its edge: the
  // vertex there over a face next to the other edge, whose normal is not the edges' common one):
  // where the new feature's point moves along its normal (|J_n v + ∂g/∂t| > velocity_tol) it cannot be held
  // at acceleration level (its gap would drift at that rate). It leaves here: approaching, its
  // point touches down at once as an inactive one (an impact); receding, it opens
  if (ev.kind == EventKind::kFeature && OwnBoxBoxPoints(model.mj(), ev.contact.geom1, ev.contact.geom2)) {
    const ContactPoint next = FeaturePoint(model, data.main(), after.contacts[k]);
    RowMatrix rows(ContactRowCount(next), model.nv());
    ContactRows(model, data.main(), next, rows, data.work());
    // its gap's rate J_n v + ∂g/∂t (the surface's part 0 without a prescribed motion; data.main() at x's time)
    if (std::abs(rows.row(0).dot(s.x.qvel) + SurfaceVelocity(model, data.main(), next)(0)) > model.options().velocity_tol) {
      after.contacts.erase(after.contacts.begin() + k);
      ev.kind = EventKind::kLiftoff;
    }
  }
  ev.released = ReleasePulling(model, data, ev.x_plus, after, force_tol, &ev.rank_after);
  for (size_t i = 0; i < ev.released.size(); i++) {
    if (ev.released[i].SamePair(ev.contact) && ev.released[i].anchor == ev.contact.anchor) {
      ev.kind = EventKind::kLiftoff;  // the new feature would pull at once: it leaves here
      ev.released.erase(ev.released.begin() + i);
      break;
    }
  }
  const Eigen::VectorXd f_plus = ModeVectorField(model, data, ev.x_plus, after);
  ev.mode_after = MergeModes(rest, after);
  ev.xi = ComputeSaltation(ResetJacobian::NoReset(model.nv(), model.na()), f_minus, f_plus, grad_h);
  ev.xi.transversality_rel = rel;
  return ev;
}

RigidEvent KinematicReleaseEvent(const Model& model, Data& data, const RestitutionTable& restitution,
                                 const State& x, const Mode& mode, int k, double force_tol, bool complete) {
  ReleaseStart start = ReleaseEventAt(model, restitution, x, mode, k);
  const Eigen::VectorXd f_minus = ModeVectorField(model, data, x, start.local);
  EvaluatePosition(model, data.main(), x.qpos.data());
  std::vector<ContactPoint> points;
  ListContacts(model, data.main(), points);
  std::vector<int> match;
  MatchContacts(start.local.contacts, points, match);
  const int i = match[start.k];
  if (i < 0) throw NumericalError("released contact has no point");
  const Eigen::VectorXd grad_g = TouchdownGuardGradient(model, data.main(), points[i], data.work());
  const double rel = KineticTransversality(model, data.main(), grad_g, x.qvel, 0, &start.ev.island);
  start.ev.point = points[i].pos;
  ReleaseModeAfter(model, data, x, start, nullptr, force_tol);  // it leaves: no slip tried
  RigidEvent ev = std::move(start.ev);
  ev.kinematic_release = true;
  ev.xi = ComputeTransversality(f_minus, grad_g);
  ev.xi.transversality_rel = rel;
  ev.complete = false;
  if (complete) CompleteEvent(model, data, restitution, ev);  // F⁺ in `after`, mode_after's island part
  return ev;
}

}  // namespace saltation
