// The hook's orchestration: attach (the model's copy, the rooms), Reset and Step. The rooms are
// resimulation.h (MuJoCo sub-steps), crossings.h (guards, detection, localisation),
// contact_tracking.h (chatter, Zeno, near misses, measured restitution), chain_propagation.h
// (Φ and covariance) and hook_events.cc (events from crossings, simultaneous groups, Ξ on demand).
#include "saltation/hook.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "arena_fallback.h"
#include "chain_propagation.h"
#include "contact_tracking.h"
#include "crossings.h"
#include "near_contacts.h"
#include "resimulation.h"
#include "saltation/errors.h"

namespace saltation {

const char* PropagationName(Propagation p) {
  switch (p) {
    case Propagation::kEvents:
      return "events";
    case Propagation::kRigid:
      return "rigid";
    case Propagation::kCompliant:
      return "compliant";
    case Propagation::kBoth:
      return "both";
  }
  return "?";
}

Propagation ParsePropagation(const std::string& name) {
  if (name == "events") return Propagation::kEvents;
  if (name == "rigid") return Propagation::kRigid;
  if (name == "compliant") return Propagation::kCompliant;
  if (name == "both") return Propagation::kBoth;
  throw ConfigError("propagation must be events, rigid, compliant or both, not '" + name + "'");
}

Hook::Hook(const mjModel* user_model, const HookOptions& options) : options_(options) {
  if (!user_model) throw ConfigError("no model given");
  // the hook steps its own copy of the model: the user's is never edited, and may be deleted
  // before the hook
  stepped_model_.reset(mj_copyModel(nullptr, user_model));
  arena_ = std::make_unique<ArenaFallback>(user_model);
  if (!stepped_model_) throw MujocoError("could not copy the model");
  mjModel* m = stepped_model_.get();
  m_ = m;
  if (options_.covariance && options_.propagation == Propagation::kEvents) options_.propagation = Propagation::kRigid;
  if (options_.covariance && options_.propagation == Propagation::kCompliant) options_.propagation = Propagation::kBoth;
  if (options_.restitution == RestitutionSource::kOverride &&
      !(options_.restitution_override >= 0 && options_.restitution_override <= 1)) {
    throw ConfigError("restitution override must be in [0, 1]");
  }
  if (!(options_.grazing_threshold >= 0)) throw ConfigError("grazing threshold must be non-negative");
  if (!(options_.simultaneous_time >= 0)) throw ConfigError("simultaneous time must be non-negative");

  lazy_ = options_.xi_on_demand && !options_.covariance &&
          (options_.propagation == Propagation::kEvents || options_.propagation == Propagation::kCompliant);
  model_ = std::make_unique<Model>(m, options_.model);
  restitution_ = RestitutionTable(*model_);
  if (options_.restitution == RestitutionSource::kOverride) restitution_.SetAll(options_.restitution_override);
  data_ = std::make_unique<Data>(*model_, DataArena::kSized);
  force_tol_ = DefaultForceTolerance(m);
  if (options_.near_miss_distance < 0) options_.near_miss_distance = 0.1 * model_->detect_margin();
  if (options_.release_gap < 0) options_.release_gap = 1e-3;

  {
    const std::vector<UntrackedPair> untracked = WidenNearContacts(m, model_->detect_margin());
    for (const UntrackedPair& p : untracked) untracked_.push_back(p.label);
    untracked_summary_ = UntrackedSummary(untracked);
  }
  resim_ = std::make_unique<Resimulator>(m);
  crossings_ = std::make_unique<CrossingFinder>(*model_, *data_, *resim_, options_, force_tol_);
  tracker_ = std::make_unique<ContactTracker>(options_, [this](HookEvent ev) { Emit(std::move(ev)); });
  chains_ = std::make_unique<ChainPropagator>(*model_, *data_, options_);
  prev_ = std::make_unique<SavedStep>();
  cur_ = std::make_unique<SavedStep>();
  guards_ = std::make_unique<StepGuards[]>(3);
}

Hook::~Hook() = default;

void Hook::Reset(const mjData* d) {
  const mjModel* m = m_;
  started_ = true;
  events_.clear();
  tracker_->Clear();
  for (int i = 0; i < 3; i++) guards_[i].present = false;
  head_ = 0;
  step_index_ = 0;
  group_counter_ = 0;
  Capture(m, d, *prev_);
  for (mjData* w : {data_->main(), data_->aux()}) mju_copy(w->ctrl, d->ctrl, m->nu);

  // the initial mode: touching, resting contacts whose rigid normal force presses
  const State x = StateFromData(m, d);
  mode_.contacts.clear();
  EvaluatePosition(*model_, data_->main(), x.qpos.data());
  std::vector<ContactPoint> points;
  ListContacts(*model_, data_->main(), points);
  RowMatrix rows;
  for (const ContactPoint& p : points) {
    if (p.gap > model_->options().contact_tol) continue;  // resting contacts in MuJoCo penetrate
    rows.resize(ContactRowCount(p), m->nv);
    ContactRows(*model_, data_->main(), p, rows, data_->work());
    if (std::abs(rows.row(0).dot(x.qvel)) <= std::max(model_->options().min_bounce_speed, 1e-3)) {
      mode_.contacts.push_back(p.id);
    }
  }
  ReleasePulling(*model_, *data_, x, mode_, force_tol_, nullptr);
  chains_->Reset(d->time, mode_);
}

void Hook::Step(mjData* d) {
  const double dt = m_->opt.timestep;
  if (!(dt > 0) || !std::isfinite(dt)) {
    throw ConfigError("the model's timestep must be positive and finite, not " + std::to_string(dt) + " s");
  }
  if (controller) controller(m_, d);
  if (!started_) Reset(d);
  if (!options_.keep_events) events_.clear();
  step_first_ = events_.size();
  try {
    Advance(d);
  } catch (...) {
    Deliver(step_first_);  // what was found before the failure is still reported
    throw;
  }
  Deliver(step_first_);
}

void Hook::Deliver(size_t first) {
  if (first >= events_.size()) return;
  // near misses (at x_{k−1}) are found after the step's crossings (in [t_{k−1}, t_k]), and a
  // simultaneous record (at its first member's time) after its members: sorted here
  std::stable_sort(events_.begin() + static_cast<std::ptrdiff_t>(first), events_.end(),
                   [](const HookEvent& a, const HookEvent& b) { return a.time < b.time; });
  if (!on_event) return;
  const size_t end = events_.size();  // a handler does not add records
  for (size_t i = first; i < end; i++) on_event(events_[i]);
}

void Hook::Advance(mjData* d) {
  const double dt = m_->opt.timestep;
  const double time_before = d->time;
  Capture(m_, d, *cur_);
  const int resets_before = d->warning[mjWARN_BADQPOS].number + d->warning[mjWARN_BADQVEL].number +
                            d->warning[mjWARN_BADQACC].number;
  arena_->Step(m_, d);  // mj_step(m_, d), retaken on the user's gaps when the band fills the arena
  const int resets = d->warning[mjWARN_BADQPOS].number + d->warning[mjWARN_BADQVEL].number +
                     d->warning[mjWARN_BADQACC].number - resets_before;
  if (resets > 0) {
    const char* what = d->warning[mjWARN_BADQACC].number ? "acceleration" : d->warning[mjWARN_BADQVEL].number ? "velocity" : "position";
    throw NumericalError("MuJoCo's simulation became unstable at t = " + std::to_string(time_before) + " s (bad " + what +
                         "): MuJoCo reset the state to the model's initial one");
  }
  if (!(d->time > time_before)) {
    if (!(time_before + dt > time_before)) {
      throw NumericalError("simulation time does not advance at t = " + std::to_string(time_before) + " s: the timestep " +
                           std::to_string(dt) + " s is below the resolution of the time");
    }
    // a timestep the time resolves, and still no advance: MuJoCo itself stopped on a state it
    // had warned about (seen after a reset on a bad acceleration: the state stays huge and mj_step
    // leaves it and the time as they are)
    const char* warned = d->warning[mjWARN_BADQACC].number   ? " (MuJoCo warned of a bad acceleration)"
                         : d->warning[mjWARN_BADQVEL].number ? " (MuJoCo warned of a bad velocity)"
                         : d->warning[mjWARN_BADQPOS].number ? " (MuJoCo warned of a bad position)"
                                                             : "";
    throw NumericalError("MuJoCo's simulation became unstable at t = " + std::to_string(time_before) +
                         " s: mj_step no longer advances the time" + warned);
  }
  step_index_++;
  // the guards of x_k (this step), x_{k−1} and x_{k−2}, rotating through three buffers
  StepGuards& g = guards_[head_];
  StepGuards& g1 = guards_[(head_ + 2) % 3];
  StepGuards& g2 = guards_[(head_ + 1) % 3];
  crossings_->Evaluate(d, *cur_, mode_, &g1, dt, g);
  if (g1.present) {
    const size_t mode_size_before = mode_.contacts.size();
    std::vector<Crossing> crossings = crossings_->Detect(g1, g, mode_, *tracker_, step_index_);
    for (Crossing& c : crossings) crossings_->Localize(c, mode_, *prev_, *cur_, dt);
    if (!crossings.empty()) {
      const std::vector<HookEvent> step_events = Process(crossings, dt);
      for (const HookEvent& ev : step_events) {
        if (ev.has_xi) chains_->AddEvent(ev);
      }
      if (!step_events.empty() || mode_.contacts.size() != mode_size_before) {
        crossings_->Evaluate(d, *cur_, mode_, nullptr, dt, g);  // guards at x_k for the mode as it is now
      }
    }
    if (g2.present) {
      tracker_->NearMisses(g2.inactive, g1.inactive, g1.time, g.inactive);
    }
    if (chains_->active()) {
      chains_->Advance(*prev_, *cur_, dt, *resim_);
    } else {
      chains_->Skip(cur_->time);
    }
  }
  const size_t mode_size = mode_.contacts.size();
  tracker_->MeasureRestitution(*model_, *data_, d, g.points, *cur_, step_index_, mode_, force_tol_);
  if (mode_.contacts.size() != mode_size) crossings_->Evaluate(d, *cur_, mode_, nullptr, dt, g);
  head_ = (head_ + 1) % 3;  // the oldest buffer (x_{k−2}) takes the next step's guards
  std::swap(prev_, cur_);
}

void Hook::Emit(HookEvent ev) {
  events_.push_back(std::move(ev));  // passed to on_event by Deliver, at the end of the step
  // chatter and Zeno records the event implies, emitted from inside (a copy of the fields the
  // tracker reads, not of the matrices: Emit grows events_)
  const HookEvent& stored = events_.back();
  if (ChangesContact(stored.kind)) {
    HookEvent brief;
    brief.kind = stored.kind;
    brief.time = stored.time;
    brief.contact = stored.contact;
    brief.rigid.xi.transversality = stored.rigid.xi.transversality;
    tracker_->OnEvent(brief, step_index_, mode_, 2 * model_->detect_margin());
  }
}

const Eigen::MatrixXd& Hook::phi_rigid() const { return chains_->phi_rigid(); }
double Hook::phi_rigid_log_scale() const { return chains_->phi_rigid_log_scale(); }
const Eigen::MatrixXd& Hook::phi_compliant() const { return chains_->phi_compliant(); }
double Hook::phi_compliant_log_scale() const { return chains_->phi_compliant_log_scale(); }
double Hook::phi_t0() const { return chains_->t0(); }
double Hook::phi_time() const { return chains_->time(); }
const Eigen::MatrixXd& Hook::covariance() const { return chains_->covariance(); }
const Eigen::MatrixXd& Hook::covariance_dreset() const { return chains_->covariance_dreset(); }
long Hook::narrow_steps() const { return arena_->narrow_steps(); }
long Hook::guard_solves_skipped() const { return crossings_->skipped(); }
long Hook::guard_steps() const { return crossings_->evaluated(); }
double Hook::EffectiveRestitution(int geom1, int geom2) const { return tracker_->EffectiveRestitution(geom1, geom2); }

}  // namespace saltation
