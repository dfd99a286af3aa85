#include <algorithm>
#include <cmath>
#include <limits>

#include "chain_propagation.h"
#include "contact_tracking.h"
#include "crossings.h"
#include "resimulation.h"
#include "saltation/errors.h"
#include "saltation/hook.h"
#include "saltation/islands.h"

// The hook's events: crossings made into records (touchdown, liftoff, slip, graze, kinematic
// release), simultaneous groups and their orderings, and Ξ on demand.
//
//   Process          (localised crossings of one step) => records emitted, the mode updated
//   EmitSimultaneous (the step's records)              => a simultaneous record per group
//   Defer / CompleteXi (an event's moment)             => its Ξ completed later, at that moment

namespace saltation {

// an event's moment as CompleteXi needs it
struct HookDeferred {
  StepInputs inputs;  // the event's step's controls, applied forces and mocap poses
  RestitutionTable restitution;  // the table as it was at the event
  // simultaneous groups: the first event's state and mode, and the group in order
  State x;
  Mode mode;
  std::vector<ContactId> group;
};

namespace {

// Whether point `point` of `points` (a configuration's points) is the nearest point (MatchContact)
// of an id of `ids` — each id matched to its own nearest point, so a list may name one point twice
// (the step's impacts' candidates, re-identified from impact to impact; the mode is matched each
// point once: ModeContactAt). No distance decides it: two points of a pair closer than any
// tolerance (a small box's corners) stay two points.
bool NearestPointOfAny(const std::vector<ContactId>& ids, const std::vector<ContactPoint>& points, int point) {
  return std::any_of(ids.begin(), ids.end(), [&](const ContactId& other) {
    return other.SamePair(points[point].id) && MatchContact(other, points) == point;
  });
}

// The point `id` names at x: its pair's points evaluated on data.aux() at x's configuration (the
// step's inputs loaded: the mocap poses), written to `points`, and the one nearest id's anchor
// (MatchContact); −1 when the pair has none there. The hook's one reading of "the point a crossing
// or an ordering's member names" (AlreadyInMode, ComposeOrderings).
int NamedPointAt(const Model& model, Data& data, const ContactId& id, const State& x, std::vector<ContactPoint>& points) {
  EvaluatePositionForPairs(model, data.aux(), x.qpos.data(), {id}, points, false);
  return MatchContact(id, points);
}

// A release at an input jump (crossings.h, Crossing::input_jump; docs/theory.md, "A release at an
// input jump"): contact k of the mode at x_k (data's inputs: the new ones) leaves the mode — or,
// sticking and still pressing when let slip, becomes frictionless (kSlip), as every release decides
// (ReleaseModeAfter) — with the contacts that then pull. The inputs switch at the step's start t_k whatever the
// state, so the guard is the time surface g = t_k − t (∇g = 0, ∂g/∂t = −1) and there is no
// reset: Ξ = I. F⁻ (the mode before) and F⁺ (the mode after), on the event's island, are recorded.
// LiftoffEvent is not used: its guard's rate ∇λ_nᵀF⁻ may well be zero here (a ball on a plane:
// λ_n = m g − F is constant along the flow) and would make a graze of it.
RigidEvent InputJumpReleaseEvent(const Model& model, Data& data, const RestitutionTable& restitution, const State& x,
                                 const Mode& mode, int k, double force_tol) {
  ReleaseStart start = ReleaseEventAt(model, restitution, x, mode, k);
  const ReleaseBefore before = EvaluateBeforeRelease(model, data, x, start);
  const Mode after = ReleaseModeAfter(model, data, x, start, &before.dyn, force_tol);
  const Eigen::VectorXd f_plus = ModeVectorField(model, data, x, after);
  RigidEvent ev = std::move(start.ev);
  ev.xi = ComputeSaltation(ResetJacobian::NoReset(model.nv(), model.na()), before.f_minus, f_plus,
                           Eigen::VectorXd::Zero(model.ndx()), -1.0);
  ev.xi.transversality_rel = 1;  // a time guard is crossed head-on: never grazing
  ev.complete = true;
  return ev;
}

}  // namespace

bool Hook::AlreadyInMode(const Crossing& c, const Mode& joined, const State& x) {
  const auto same_pair = [&](const ContactId& id) { return id.SamePair(c.id); };
  if (std::none_of(mode_.contacts.begin(), mode_.contacts.end(), same_pair) &&
      std::none_of(joined.contacts.begin(), joined.contacts.end(), same_pair)) {
    return false;
  }
  // the point the crossing names at its state, held by the mode (each point once, as the mode is
  // matched everywhere) or by a contact that joined an impact of this step
  const int own = NamedPointAt(*model_, *data_, c.id, x, named_points_);
  if (own < 0) return false;
  return ModeContactAt(mode_, named_points_, own) >= 0 || NearestPointOfAny(joined.contacts, named_points_, own);
}

int Hook::NamedModeContact(const Crossing& c, const StepGuards& detected) const {
  // the point the crossing's contact held at x_k, where Detect read it (the mode then was
  // detected.mode_ids, c.k its index there)
  const int point = c.k >= 0 && c.k < static_cast<int>(detected.match.size()) ? detected.match[c.k] : -1;
  if (point >= 0) return ModeContactAt(mode_, detected.points, point);
  // no point at x_k (MuJoCo's list and the narrow phase lost it: a release): the contact itself,
  // while the mode still holds that very id
  for (size_t k = 0; k < mode_.contacts.size(); k++) {
    const ContactId& id = mode_.contacts[k];
    if (id.SamePair(c.id) && id.anchor == c.id.anchor && id.feature == c.id.feature) return static_cast<int>(k);
  }
  return -1;
}

std::vector<size_t> Hook::Process(std::vector<Crossing>& crossings, const StepGuards& detected, double dt) {
  std::vector<size_t> out;  // where this step's records of crossings sit in found_
  std::sort(crossings.begin(), crossings.end(),
            [](const Crossing& a, const Crossing& b) { return a.time() < b.time(); });
  // contacts that took part in an impact of this step, its trigger included (the others touched at
  // the same instant, within contact_tol): their own crossings are that impact, not new events —
  // after a bounce they are out of the mode again, and re-impacting from the pre-impact state would
  // record the same impact once per point. The trigger's too: two points at the step's end may
  // follow one start point (crossings.h), and both crossings then name the trigger's point
  Mode joined;
  for (size_t ci = 0; ci < crossings.size(); ci++) {
    Crossing& c = crossings[ci];
    if (!c.valid) continue;
    // Zeno: sustained, not reported
    if (tracker_->Sustained(GeomPair(c.id.geom1, c.id.geom2), c.time())) continue;
    // a liftoff's or release's contact in the mode as it is now (an earlier event of the step may
    // have moved its index or removed it): the one holding its point (NamedModeContact); none, and
    // the crossing is not recorded — its contact has left the mode already — but counted
    if (c.type != Crossing::kTouchdown) {
      const int k = NamedModeContact(c, detected);
      if (k < 0) {
        crossings_of_removed_contacts_++;
        continue;
      }
      if (c.type == Crossing::kLiftoff && k != c.k) {
        c.k = k;
        crossings_->Localize(c, mode_, *prev_, *cur_, dt);
        if (!c.valid) continue;
      }
      c.k = k;
    }
    State x;
    if (c.type == Crossing::kRelease) {
      x = cur_->state();
    } else if (c.have_x) {
      x = c.x;  // re-simulated by the localisation's last evaluation
      x.time = c.time();
    } else {
      resim_->Step(*c.base, c.s);
      x = resim_->StateNow();
      x.time = c.time();
    }
    for (mjData* w : {data_->main(), data_->aux()}) LoadInputs(m_, *c.base, w);
    // a touchdown whose point is in the mode now, or took part in an impact of this step: not a
    // new event
    if (c.type == Crossing::kTouchdown && AlreadyInMode(c, joined, x)) continue;
    if (options_.restitution == RestitutionSource::kAuto) {
      const double e = tracker_->EffectiveRestitution(c.id.geom1, c.id.geom2);
      if (e >= 0) restitution_.SetPair(c.id.geom1, c.id.geom2, e);
    }

    HookEvent ev;
    std::shared_ptr<HookDeferred> deferred = lazy_ ? Defer(*c.base) : nullptr;
    ev.time = x.time;
    ev.bracket_lo = c.base->time + c.lo;
    ev.bracket_hi = c.base->time + c.hi;
    ev.contact = c.id;
    ev.has_xi = true;
    ev.proxy = c.proxy;  // a touchdown taken at onset (crossings.h)
    try {
      if (c.type == Crossing::kTouchdown) {
        ev.rigid = TouchdownEvent(*model_, *data_, restitution_, x, mode_, c.id, model_->options().contact_tol, force_tol_, !lazy_);
      } else if (c.type == Crossing::kLiftoff && c.input_jump) {
        ev.rigid = InputJumpReleaseEvent(*model_, *data_, restitution_, x, mode_, c.k, force_tol_);
        ev.input_jump = true;
      } else if (c.type == Crossing::kLiftoff) {
        ev.rigid = LiftoffEvent(*model_, *data_, restitution_, x, mode_, c.k, force_tol_, !lazy_);
      } else {
        ev.rigid = KinematicReleaseEvent(*model_, *data_, restitution_, x, mode_, c.k, force_tol_, !lazy_);
        ev.proxy = true;
      }
    } catch (const NumericalError& e) {
      // a guard touching zero without crossing (Ξ undefined): reported, not fatal
      ev.has_xi = false;
      ev.kind = EventKind::kGraze;
      ev.grazing = true;
      out.push_back(found_.size());
      Emit(std::move(ev));
      continue;
    }
    if (ev.rigid.kind == EventKind::kTouchdown) {
      // the trigger and the points that touched with it (the candidates past the mode's own)
      const std::vector<ContactId>& candidates = ev.rigid.impact.candidates;
      joined.contacts.insert(joined.contacts.end(), candidates.end() - JoiningContacts(m_, ev.rigid), candidates.end());
    }
    ev.contact = ev.rigid.contact;
    ev.point = ev.rigid.point;
    ev.xi_pending = !ev.rigid.complete;
    if (ev.xi_pending) ev.deferred = deferred;
    ev.rigid.bracket_lo = ev.bracket_lo;
    ev.rigid.bracket_hi = ev.bracket_hi;
    ev.restitution = ev.rigid.restitution;
    ev.kind = ev.rigid.kind;
    ev.grazing = ev.rigid.xi.transversality_rel < options_.grazing_threshold;
    if (ev.grazing && ev.rigid.kind == EventKind::kTouchdown) ev.kind = EventKind::kGraze;
    mode_ = ev.rigid.mode_after;
    out.push_back(found_.size());
    Emit(std::move(ev));
  }
  EmitSimultaneous(out);
  return out;
}

void Hook::EmitSimultaneous(const std::vector<size_t>& step_events) {
  // every group of the step: a touchdown with the points that joined its impact because they
  // touched at the same instant, and the later touchdowns within simultaneous_time of it that no
  // earlier group took (found_ is not grown before a group's record is emitted: the references
  // into it hold until then, and are taken again for the next group)
  std::vector<char> grouped(step_events.size(), 0);
  for (size_t i = 0; i < step_events.size(); i++) {
    if (grouped[i]) continue;
    const HookEvent& first = found_[step_events[i]];
    if (!first.has_xi || first.rigid.kind != EventKind::kTouchdown) continue;
    const std::vector<ContactId>& candidates = first.rigid.impact.candidates;
    std::vector<ContactId> group(candidates.end() - JoiningContacts(m_, first.rigid), candidates.end());
    std::vector<size_t> members = {i};
    for (size_t j = i + 1; j < step_events.size(); j++) {
      const HookEvent& other = found_[step_events[j]];
      if (!grouped[j] && other.has_xi && other.rigid.kind == EventKind::kTouchdown &&
          other.time - first.time <= options_.simultaneous_time) {
        group.push_back(other.contact);
        members.push_back(j);
      }
    }
    if (group.size() < 2) continue;
    HookEvent sim;
    sim.kind = EventKind::kSimultaneous;
    sim.time = first.time;
    sim.contact = first.contact;
    sim.group = group_counter_++;
    // the members' records (this step's, not delivered yet) carry the group's id
    for (size_t member : members) {
      grouped[member] = 1;
      found_[step_events[member]].group = sim.group;
    }
    sim.group_size = static_cast<int>(group.size());
    if (first.deferred) {
      auto deferred = std::make_shared<HookDeferred>(*first.deferred);
      deferred->x = first.rigid.x_minus;
      deferred->mode = first.rigid.mode_before;
      deferred->group = group;
      sim.deferred = deferred;
      sim.xi_pending = true;
      sim.order_spread = std::numeric_limits<double>::quiet_NaN();
    } else {
      ComposeOrderings(*data_, restitution_, first.rigid.x_minus, first.rigid.mode_before, group, sim);
    }
    Emit(std::move(sim));  // grows found_: `first` is not read after this
  }
}

namespace {

// The tangent indices where Ξ of `ev` may differ from the identity: the q and v rows of its
// island's dofs (DΔ − I and ∇g live there, islands.h), every index for a whole-model island, and
// any index where the correction u is non-zero (F⁺ − DΔF⁻ off the island: a control law that
// reads the whole state). Marked in `in` (ndx).
void MarkSupport(const mjModel* m, const RigidEvent& ev, std::vector<char>& in) {
  const int nv = m->nv, n = static_cast<int>(in.size());
  if (ev.island.whole) {
    std::fill(in.begin(), in.end(), 1);
    return;
  }
  for (int dof : ev.island.dofs) in[dof] = in[nv + dof] = 1;
  for (int i = 0; i < n; i++) in[i] |= ev.xi.correction(i) != 0 || ev.xi.grad_g(i) != 0;
}

}  // namespace

void Hook::ComposeOrderings(Data& data, const RestitutionTable& restitution, const State& x0, const Mode& mode0, const std::vector<ContactId>& group,
                            HookEvent& sim) {
  // both orderings, each event with its own intermediate mode, at the first event's state.
  // Members whose islands (islands.h; the mode and the whole group as links) differ commute: their
  // Ξ act on disjoint coordinates and neither event reads the other's trees, so each cluster of
  // members sharing an island is composed on its own from (x0, mode0) — in both orders only when
  // it has more than one member. Shared work: the events read F⁻ and F⁺ from one FieldMemo (F at
  // (x0, mode0's island) for every first event, an event's F⁺ as its successor's F⁻), and each
  // cluster's composite is formed on the indices its events' Ξ move (Ξ kept factored: a k×k
  // product per event, not n×n), the clusters' blocks then placed into the composites, which stay
  // factored (the identity outside the clusters' indices: HookEvent::composite_first).
  std::vector<ContactId> links = mode0.contacts;
  links.insert(links.end(), group.begin(), group.end());
  std::vector<Island> islands;
  std::vector<std::vector<ContactId>> clusters;
  for (const ContactId& id : group) {
    const Island island = IslandOf(*model_, links, {id});
    size_t c = 0;
    while (c < islands.size() && !(islands[c].whole == island.whole && islands[c].tree == island.tree)) c++;
    if (c == islands.size()) {
      islands.push_back(island);
      clusters.emplace_back();
    }
    clusters[c].push_back(id);
  }
  FieldMemo fields;
  // DΔ's probe passes: every event here is at x0's configuration, each cluster's pairs probed once
  // per probe for all its events in both orders, the clusters (disjoint trees) in the same passes.
  // Only clusters of several members: a lone member's probes serve no other event, and the memo's
  // storage and gathering cost it more than they save (level_balls4: 122 -> 131 us CPU with them)
  std::vector<Island> shared;
  for (size_t c = 0; c < clusters.size(); c++) {
    if (clusters[c].size() > 1) shared.push_back(islands[c]);
  }
  ProbeMemo probes(*model_, x0.qpos, shared, links);
  // a member whose point the mode of the ordering holds already (mode0's, or an earlier member's
  // event's: a group naming one point twice) is not a new event: "in the mode" as the hook decides
  // it everywhere (AlreadyInMode: the point the member names at x's configuration, held by the mode
  // each point once, ModeContactAt) — no distance decides it
  std::vector<ContactPoint> points;
  auto holds = [&](const Mode& mode, const ContactId& id, const State& x) {
    if (std::none_of(mode.contacts.begin(), mode.contacts.end(), [&](const ContactId& held) { return held.SamePair(id); })) {
      return false;
    }
    const int own = NamedPointAt(*model_, data, id, x, points);
    return own >= 0 && ModeContactAt(mode, points, own) >= 0;
  };
  // the events of one ordering of a cluster, in order
  auto events_in_order = [&](const std::vector<ContactId>& order) {
    ProbeMemo* memo = order.size() > 1 ? &probes : nullptr;
    std::vector<RigidEvent> events;
    State x = x0;
    Mode mode = mode0;
    for (const ContactId& id : order) {
      if (holds(mode, id, x)) continue;
      events.push_back(TouchdownEvent(*model_, data, restitution, x, mode, id, -1.0, force_tol_, true, &fields, memo));
      x = events.back().x_plus;
      mode = events.back().mode_after;
    }
    return events;
  };
  auto compose_both = [&]() {
    const int n = TangentDim(m_);
    // per cluster: its events in each order (a single member's serve both), and the indices
    // they move
    std::vector<std::vector<RigidEvent>> events(2 * clusters.size());
    std::vector<std::vector<const RigidEvent*>> first(clusters.size()), reverse(clusters.size());
    std::vector<std::vector<int>> support(clusters.size());
    std::vector<int> owner(n, -1);  // the cluster whose support holds each index
    bool disjoint = true;
    for (size_t c = 0; c < clusters.size(); c++) {
      events[2 * c] = events_in_order(clusters[c]);
      if (clusters[c].size() > 1) events[2 * c + 1] = events_in_order(std::vector<ContactId>(clusters[c].rbegin(), clusters[c].rend()));
      for (const RigidEvent& ev : events[2 * c]) first[c].push_back(&ev);
      for (const RigidEvent& ev : events[clusters[c].size() > 1 ? 2 * c + 1 : 2 * c]) reverse[c].push_back(&ev);
      std::vector<char> in(n, 0);
      for (const RigidEvent* ev : first[c]) MarkSupport(m_, *ev, in);
      for (const RigidEvent* ev : reverse[c]) MarkSupport(m_, *ev, in);
      for (int i = 0; i < n; i++) {
        if (!in[i]) continue;
        support[c].push_back(i);
        if (owner[i] >= 0) disjoint = false;
        owner[i] = static_cast<int>(c);
      }
    }
    if (!disjoint) {
      // supports that overlap (a Ξ reaching beyond its island): one block over their union, the
      // clusters' factors applied cluster after cluster
      std::vector<int> all;
      for (int i = 0; i < n; i++) {
        if (owner[i] >= 0) all.push_back(i);
      }
      for (size_t c = 1; c < clusters.size(); c++) {
        first[0].insert(first[0].end(), first[c].begin(), first[c].end());
        reverse[0].insert(reverse[0].end(), reverse[c].begin(), reverse[c].end());
      }
      first.resize(1);
      reverse.resize(1);
      support.assign(1, all);
    }
    // the composites factored (identity_except_block.h): the identity outside the union U of the
    // supports, each cluster's product placed on its own indices of U's block (zero between
    // clusters, as the identity is there)
    IdentityExceptBlock composite_first, composite_reverse;
    composite_first.n = composite_reverse.n = n;
    std::vector<int> position(n, -1);  // where each index of U sits in the block
    for (int i = 0; i < n; i++) {
      if (owner[i] < 0) continue;
      position[i] = static_cast<int>(composite_first.support.size());
      composite_first.support.push_back(i);
    }
    composite_reverse.support = composite_first.support;
    const int u = static_cast<int>(composite_first.support.size());
    composite_first.block.setZero(u, u);
    composite_reverse.block.setZero(u, u);
    for (size_t c = 0; c < support.size(); c++) {
      const std::vector<int>& S = support[c];
      const int k = static_cast<int>(S.size());
      auto product = [&](const std::vector<const RigidEvent*>& order) {
        Eigen::MatrixXd block = Eigen::MatrixXd::Identity(k, k);
        for (const RigidEvent* ev : order) block = ev->xi.Block(S) * block;
        return block;
      };
      std::vector<int> at(k);
      for (int a = 0; a < k; a++) at[a] = position[S[a]];
      composite_first.block(at, at) = product(first[c]);
      composite_reverse.block(at, at) = first[c] == reverse[c] ? composite_first.block(at, at).eval() : product(reverse[c]);
    }
    sim.composite_first = std::move(composite_first);
    sim.composite_reverse = std::move(composite_reverse);
  };
  try {
    compose_both();
    const double scale = std::max(sim.composite_first.FrobeniusNorm(), sim.composite_reverse.FrobeniusNorm());
    sim.order_spread = scale > 0 ? FrobeniusDistance(sim.composite_first, sim.composite_reverse) / scale : 0;
  } catch (const NumericalError&) {
    sim.order_spread = std::numeric_limits<double>::infinity();  // an ordering grazes
  }
}

std::shared_ptr<HookDeferred> Hook::Defer(const SavedStep& base) const {
  auto deferred = std::make_shared<HookDeferred>();
  deferred->inputs = base;  // the inputs part of the saved step
  deferred->restitution = restitution_;
  return deferred;
}

void Hook::CompleteXi(HookEvent& ev) {
  if (!ev.xi_pending || !ev.deferred) return;
  const HookDeferred& deferred = *ev.deferred;
  Data& data = XiData();
  for (mjData* w : {data.main(), data.aux()}) LoadInputs(m_, deferred.inputs, w);
  // with the restitution in force at the event (auto: measured values change over the run)
  try {
    if (ev.kind == EventKind::kSimultaneous) {
      ComposeOrderings(data, deferred.restitution, deferred.x, deferred.mode, deferred.group, ev);
    } else {
      CompleteEvent(*model_, data, deferred.restitution, ev.rigid);
      ev.grazing = ev.rigid.xi.transversality_rel < options_.grazing_threshold;
    }
  } catch (const NumericalError&) {
    ev.has_xi = false;  // Ξ undefined at this event (it grazes)
    ev.grazing = true;
  }
  ev.xi_pending = false;
  ev.deferred.reset();
}

Data& Hook::XiData() {
  if (!worker_) return *data_;
  // the worker's data_ is in use on its thread: the caller completes Ξ in a workspace of its own
  // (the same functions on the same inputs: the same bits)
  if (!xi_data_) xi_data_ = std::make_unique<Data>(*model_, DataArena::kSized);
  return *xi_data_;
}

const HookEvent& Hook::CompletedEvent(size_t i) {
  Sync();
  if (i >= events_.size()) throw ConfigError("no event " + std::to_string(i));
  CompleteXi(events_[i]);
  return events_[i];
}

}  // namespace saltation
