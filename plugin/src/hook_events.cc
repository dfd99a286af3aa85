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
  Eigen::VectorXd ctrl, qfrc_applied, xfrc_applied;
  RestitutionTable restitution;  // the table as it was at the event
  // simultaneous groups: the first event's state and mode, and the group in order
  State x;
  Mode mode;
  std::vector<ContactId> group;
};

std::vector<HookEvent> Hook::Process(std::vector<Crossing>& crossings, double dt) {
  std::vector<HookEvent> out;
  std::sort(crossings.begin(), crossings.end(),
            [](const Crossing& a, const Crossing& b) { return a.time() < b.time(); });
  const double tol = 2 * model_->detect_margin();
  // contacts that took part in an impact of this step without being its trigger (they touched at
  // the same instant, within contact_tol): their own crossings are that impact, not new events —
  // after a bounce they are out of the mode again, and re-impacting from the pre-impact state would
  // record the same impact once per point
  Mode joined;
  for (size_t ci = 0; ci < crossings.size(); ci++) {
    Crossing& c = crossings[ci];
    if (!c.valid) continue;
    // Zeno: sustained, not reported
    if (tracker_->Sustained(GeomPair(c.id.geom1, c.id.geom2), c.time())) continue;
    // re-evaluate against the mode as it is now (an earlier event may have changed it)
    const int k = FindInMode(mode_, c.id, tol);
    if (c.type == Crossing::kTouchdown && (k >= 0 || FindInMode(joined, c.id, tol) >= 0)) continue;
    if (c.type != Crossing::kTouchdown) {
      if (k < 0) continue;
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
    for (mjData* w : {data_->main(), data_->aux()}) {
      mju_copy(w->ctrl, c.base->ctrl.data(), m_->nu);
      mju_copy(w->qfrc_applied, c.base->qfrc_applied.data(), m_->nv);
      mju_copy(w->xfrc_applied, c.base->xfrc_applied.data(), 6 * m_->nbody);
    }
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
      } else if (c.type == Crossing::kLiftoff) {
        ev.rigid = LiftoffEvent(*model_, *data_, restitution_, x, mode_, c.k, force_tol_, !lazy_);
      } else {
        ev.rigid = KinematicReleaseEvent(*model_, *data_, restitution_, x, mode_, c.k, force_tol_);
        ev.proxy = true;
      }
    } catch (const NumericalError& e) {
      // a guard touching zero without crossing (Ξ undefined): reported, not fatal
      ev.has_xi = false;
      ev.kind = EventKind::kGraze;
      ev.grazing = true;
      Emit(ev);
      out.push_back(ev);
      continue;
    }
    if (ev.rigid.kind == EventKind::kTouchdown) {
      for (const ContactId& id : ev.rigid.impact.candidates) {
        if (!id.SamePair(ev.rigid.contact) || (id.anchor - ev.rigid.contact.anchor).norm() > 0) joined.contacts.push_back(id);
      }
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
    Emit(ev);
    out.push_back(std::move(ev));
  }
  EmitSimultaneous(out);
  return out;
}

void Hook::EmitSimultaneous(const std::vector<HookEvent>& step_events) {
  // touchdowns of this step within simultaneous_time of each other, plus points that joined an
  // impact because they touched at the same instant
  for (size_t i = 0; i < step_events.size(); i++) {
    const HookEvent& first = step_events[i];
    if (!first.has_xi || first.rigid.kind != EventKind::kTouchdown) continue;
    std::vector<ContactId> group;
    for (const ContactId& id : first.rigid.impact.candidates) {
      if (FindInMode(first.rigid.mode_before, id, 1e-12) < 0) group.push_back(id);
    }
    std::vector<const HookEvent*> members = {&first};
    for (size_t j = i + 1; j < step_events.size(); j++) {
      const HookEvent& other = step_events[j];
      if (other.has_xi && other.rigid.kind == EventKind::kTouchdown &&
          other.time - first.time <= options_.simultaneous_time) {
        group.push_back(other.contact);
        members.push_back(&other);
      }
    }
    if (group.size() < 2) continue;
    HookEvent sim;
    sim.kind = EventKind::kSimultaneous;
    sim.time = first.time;
    sim.contact = first.contact;
    sim.group = group_counter_++;
    // the members' stored records (this step's, not delivered yet) carry the group's id
    for (const HookEvent* member : members) {
      for (HookEvent& stored : found_) {
        if (stored.has_xi && stored.time == member->time && stored.kind == member->kind &&
            stored.contact.geom1 == member->contact.geom1 && stored.contact.geom2 == member->contact.geom2) {
          stored.group = sim.group;
        }
      }
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
    Emit(sim);
    break;
  }
}

namespace {

// C ← Ξ·C where Ξ differs from the identity only in the rows of its event's island (islands.h):
// those rows are multiplied, the others are C's own (a few rows × n² instead of n³)
void ApplyXi(const Eigen::MatrixXd& xi, Eigen::MatrixXd& C) {
  const Eigen::Index n = xi.rows();
  std::vector<Eigen::Index> rows;
  for (Eigen::Index r = 0; r < n; r++) {
    for (Eigen::Index c = 0; c < n; c++) {
      if (xi(r, c) != (r == c ? 1.0 : 0.0)) {
        rows.push_back(r);
        break;
      }
    }
  }
  Eigen::MatrixXd changed(static_cast<Eigen::Index>(rows.size()), C.cols());
  for (size_t k = 0; k < rows.size(); k++) changed.row(static_cast<Eigen::Index>(k)).noalias() = xi.row(rows[k]) * C;
  for (size_t k = 0; k < rows.size(); k++) C.row(rows[k]) = changed.row(static_cast<Eigen::Index>(k));
}

}  // namespace

void Hook::ComposeOrderings(Data& data, const RestitutionTable& restitution, const State& x0, const Mode& mode0, const std::vector<ContactId>& group,
                            HookEvent& sim) {
  // both orderings, each event with its own intermediate mode, at the first event's state.
  // Members whose islands (islands.h; the mode and the whole group as links) differ commute: their
  // Ξ act on disjoint coordinates and neither event reads the other's trees, so each cluster of
  // members sharing an island is composed on its own from (x0, mode0) — in both orders only when
  // it has more than one member — and the clusters' factors multiply into C in any order
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
  auto apply_in_order = [&](const std::vector<ContactId>& order, std::vector<Eigen::MatrixXd*> targets) {
    State x = x0;
    Mode mode = mode0;
    for (const ContactId& id : order) {
      if (FindInMode(mode, id, 1e-12) >= 0) continue;
      const RigidEvent ev = TouchdownEvent(*model_, data, restitution, x, mode, id, -1.0, force_tol_);
      const Eigen::MatrixXd xi = ev.xi.Dense();
      for (Eigen::MatrixXd* C : targets) ApplyXi(xi, *C);
      x = ev.x_plus;
      mode = ev.mode_after;
    }
  };
  auto compose_both = [&]() {
    const int n = TangentDim(m_);
    sim.composite_first = Eigen::MatrixXd::Identity(n, n);
    sim.composite_reverse = Eigen::MatrixXd::Identity(n, n);
    for (const std::vector<ContactId>& cluster : clusters) {
      if (cluster.size() == 1) {
        apply_in_order(cluster, {&sim.composite_first, &sim.composite_reverse});
        continue;
      }
      apply_in_order(cluster, {&sim.composite_first});
      apply_in_order(std::vector<ContactId>(cluster.rbegin(), cluster.rend()), {&sim.composite_reverse});
    }
  };
  try {
    compose_both();
    const double scale = std::max(sim.composite_first.norm(), sim.composite_reverse.norm());
    sim.order_spread = scale > 0 ? (sim.composite_first - sim.composite_reverse).norm() / scale : 0;
  } catch (const NumericalError&) {
    sim.order_spread = std::numeric_limits<double>::infinity();  // an ordering grazes
  }
}

std::shared_ptr<HookDeferred> Hook::Defer(const SavedStep& base) const {
  auto deferred = std::make_shared<HookDeferred>();
  deferred->ctrl = base.ctrl;
  deferred->qfrc_applied = base.qfrc_applied;
  deferred->xfrc_applied = base.xfrc_applied;
  deferred->restitution = restitution_;
  return deferred;
}

void Hook::CompleteXi(HookEvent& ev) {
  if (!ev.xi_pending || !ev.deferred) return;
  const HookDeferred& deferred = *ev.deferred;
  Data& data = XiData();
  for (mjData* w : {data.main(), data.aux()}) {
    mju_copy(w->ctrl, deferred.ctrl.data(), m_->nu);
    mju_copy(w->qfrc_applied, deferred.qfrc_applied.data(), m_->nv);
    mju_copy(w->xfrc_applied, deferred.xfrc_applied.data(), 6 * m_->nbody);
  }
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
