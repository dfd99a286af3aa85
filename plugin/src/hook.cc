// The hook's orchestration: attach (the model's copy, the rooms), Reset and Step. The rooms are
// resimulation.h (MuJoCo sub-steps), crossings.h (guards, detection, localisation),
// contact_tracking.h (chatter, Zeno, near misses, measured restitution), chain_propagation.h
// (Φ and covariance) and hook_events.cc (events from crossings, simultaneous groups, Ξ on demand).
#include "saltation/hook.h"

#include <algorithm>
#include <cmath>
#include <type_traits>
#include <utility>

#include "arena_fallback.h"
#include "chain_propagation.h"
#include "contact_tracking.h"
#include "crossings.h"
#include "hook_worker.h"
#include "near_contacts.h"
#include "resimulation.h"
#include "saltation/contact_features.h"
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
  if (options_.worker_thread) {
    plain_model_.reset(mj_copyModel(nullptr, user_model));  // the stepping thread's: the user's gaps
    if (!plain_model_) throw MujocoError("could not copy the model");
  }
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
  if (options_.worker_thread) {
    if (!(options_.worker_queue >= 1)) throw ConfigError("the worker queue must hold at least one step");
    // the worker's own copy of the widened model: the Resimulator writes its timestep during a
    // call and the replay's ArenaFallback its gaps, while the caller's thread reads m
    resim_model_.reset(mj_copyModel(nullptr, m));
    if (!resim_model_) throw MujocoError("could not copy the model");
  }
  resim_ = std::make_unique<Resimulator>(options_.worker_thread ? resim_model_.get() : m);
  crossings_ = std::make_unique<CrossingFinder>(*model_, *data_, *resim_, options_, force_tol_);
  tracker_ = std::make_unique<ContactTracker>(options_, [this](HookEvent ev) { Emit(std::move(ev)); });
  chains_ = std::make_unique<ChainPropagator>(*model_, *data_, options_);
  prev_ = std::make_unique<SavedStep>();
  cur_ = std::make_unique<SavedStep>();
  guards_ = std::make_unique<StepGuards[]>(3);
  if (options_.worker_thread) {
    replayer_ = std::make_unique<StepReplayer>(resim_model_.get(), *arena_);
    StepSlot prototype;  // sized once: the stepping thread's saves allocate nothing
    prototype.before.resize(static_cast<size_t>(mj_stateSize(m, kWorkerStateBefore)));
    prototype.after.resize(static_cast<size_t>(mj_stateSize(m, kWorkerStateAfter)));
    worker_ = std::make_unique<StepWorker>(options_.worker_queue, prototype, [this](StepSlot& slot, std::vector<HookEvent>& records) {
      try {
        replayer_->Replay(slot, *cur_);  // x_k into cur_, then MuJoCo's step from it, checked
        Bookkeep(replayer_->data(), slot.dt);
      } catch (...) {
        records.swap(found_);
        throw;
      }
      records.swap(found_);
    });
  }
}

Hook::~Hook() = default;

void Hook::Reset(const mjData* d) {
  Sync();
  const mjModel* m = m_;
  started_ = true;
  events_.clear();
  found_.clear();
  tracker_->Clear();
  for (int i = 0; i < 3; i++) guards_[i].present = false;
  head_ = 0;
  step_index_ = 0;
  group_counter_ = 0;
  crossings_of_removed_contacts_ = 0;
  Capture(m, d, *prev_);
  for (mjData* w : {data_->main(), data_->aux()}) LoadInputs(m, *prev_, w);  // d's inputs and mocap poses

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
  if (controller) controller(m_, d);  // (with the worker too: m_ is then written by no one)
  if (!started_) Reset(d);
  if (!options_.keep_events) events_.clear();
  if (worker_) {
    StepWorkerThread(d);
    return;
  }
  try {
    Advance(d);
  } catch (...) {
    Deliver(found_);  // what was found before the failure is still reported
    throw;
  }
  Deliver(found_);
}

// events_ and found_ move their records when they grow, not copy them
static_assert(std::is_nothrow_move_constructible_v<HookEvent>);

void Hook::Deliver(std::vector<HookEvent>& records) {
  const size_t first = events_.size();
  events_.insert(events_.end(), std::make_move_iterator(records.begin()), std::make_move_iterator(records.end()));
  records.clear();
  if (!on_event) return;
  struct Delivering {
    bool& flag;
    explicit Delivering(bool& f) : flag(f) { flag = true; }
    ~Delivering() { flag = false; }
  } delivering(delivering_);
  const size_t end = events_.size();  // a handler does not add records
  for (size_t i = first; i < end; i++) on_event(events_[i]);
}

void Hook::Advance(mjData* d) {
  Capture(m_, d, *cur_);
  StepMuJoCo(d, false);
  Bookkeep(d, m_->opt.timestep);
}

void Hook::StepWorkerThread(mjData* d) {
  const mjModel* m = plain_model_.get();
  StepSlot& slot = worker_->Acquire();  // waits while worker_queue steps are queued
  mj_getState(m, d, slot.before.data(), kWorkerStateBefore);  // what the worker replays the step from
  try {
    StepMuJoCo(d, true);
  } catch (...) {
    Collect(false);  // what the worker finished is still reported (its own error first)
    throw;
  }
  mj_getState(m, d, slot.after.data(), kWorkerStateAfter);  // what the replay must reach
  slot.dt = m->opt.timestep;
  worker_->Push();
  Collect(false);
}

void Hook::Collect(bool wait) {
  if (wait) worker_->Wait();
  const std::exception_ptr error = worker_->Take(ready_);
  Deliver(ready_);
  if (error) {
    started_ = false;  // the bookkeeping stopped mid-step: the next Step starts afresh
    std::rethrow_exception(error);
  }
}

void Hook::Sync() {
  if (!worker_) return;
  if (delivering_) {
    worker_->Wait();  // inside on_event: the records are delivered once the handler returns
    return;
  }
  Collect(true);
}

void Hook::Settle() const {
  if (worker_) const_cast<Hook*>(this)->Sync();  // a wait: nothing the caller sees is changed but what Sync delivers
}

void Hook::StepMuJoCo(mjData* d, bool plain) {
  const double dt = m_->opt.timestep;
  const double time_before = d->time;
  const int resets_before = d->warning[mjWARN_BADQPOS].number + d->warning[mjWARN_BADQVEL].number +
                            d->warning[mjWARN_BADQACC].number;
  if (plain) {
    mj_step(plain_model_.get(), d);  // the user's physics; the worker replays it widened
  } else {
    arena_->Step(m_, d);  // mj_step(m_, d), retaken on the user's gaps when the band fills the arena
  }
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
}

void Hook::Bookkeep(const mjData* after, double dt) {
  found_.clear();
  // near misses (at x_{k−1}) are found after the step's crossings (in [t_{k−1}, t_k]), and a
  // simultaneous record (at its first member's time) after its members: sorted here
  auto by_time = [this] {
    std::stable_sort(found_.begin(), found_.end(), [](const HookEvent& a, const HookEvent& b) { return a.time < b.time; });
  };
  try {
    Account(after, dt);
  } catch (...) {
    by_time();
    throw;
  }
  by_time();
}

void Hook::Account(const mjData* d, double dt) {
  step_index_++;
  // the guards of x_k (this step), x_{k−1} and x_{k−2}, rotating through three buffers
  StepGuards& g = guards_[head_];
  StepGuards& g1 = guards_[(head_ + 2) % 3];
  StepGuards& g2 = guards_[(head_ + 1) % 3];
  crossings_->Evaluate(d, *cur_, mode_, &g1, dt, g);
  if (g1.present) {
    const size_t mode_size_before = mode_.contacts.size();
    std::vector<Crossing> crossings = crossings_->Detect(g1, g, mode_, *tracker_, step_index_, dt);
    for (Crossing& c : crossings) crossings_->Localize(c, mode_, *prev_, *cur_, dt);
    if (!crossings.empty()) {
      const std::vector<size_t> step_events = Process(crossings, g, dt);
      if (chains_->folds_events()) {
        for (size_t i : step_events) {
          if (found_[i].has_xi) chains_->AddEvent(found_[i]);
        }
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
  // the held contacts keep matching their own points: each anchor moved to its point at x_k, after
  // the step and its events (FollowHeldPoints, as the reference does; on g.points, MuJoCo's list the
  // guards read, not a second collision). A held point sliding far over its geoms (a box–box
  // edge–edge point) would otherwise come to lie nearer to another listed point of its pair than to
  // its own first anchor, and the mode would hold that one. The guards' and the release
  // pre-filter's copies of the mode are renamed alike (the next step compares them with the mode),
  // when an anchor moved (a resting pile's do not, step after step), and the chains take the mode
  // (chain_propagation.h: their mode flows match contacts by these anchors)
  held_before_ = mode_.contacts;
  if (FollowHeldPoints(*model_, d, g.points, mode_.contacts)) crossings_->Rename(held_before_, mode_.contacts, g);
  if (chains_->active()) chains_->HoldMode(mode_);  // the chains' next step flows on this mode
  head_ = (head_ + 1) % 3;  // the oldest buffer (x_{k−2}) takes the next step's guards
  std::swap(prev_, cur_);
}

void Hook::Emit(HookEvent ev) {
  found_.push_back(std::move(ev));  // passed to on_event by Deliver, at the end of the step
  // chatter and Zeno records the event implies, emitted from inside (a copy of the fields the
  // tracker reads, not of the matrices: Emit grows found_)
  const HookEvent& stored = found_.back();
  if (ChangesContact(stored.kind)) {
    HookEvent brief;
    brief.kind = stored.kind;
    brief.time = stored.time;
    brief.contact = stored.contact;
    brief.rigid.xi.transversality = stored.rigid.xi.transversality;
    // (a Zeno record puts the event's contact into the mode unless that very point is there)
    tracker_->OnEvent(brief, step_index_, mode_);
  }
}

const std::vector<HookEvent>& Hook::events() const {
  Settle();
  return events_;
}
const Mode& Hook::mode() const {
  Settle();
  return mode_;
}
const Eigen::MatrixXd& Hook::phi_rigid() const { return Settle(), chains_->phi_rigid(); }
double Hook::phi_rigid_log_scale() const { return Settle(), chains_->phi_rigid_log_scale(); }
const Eigen::MatrixXd& Hook::phi_compliant() const { return Settle(), chains_->phi_compliant(); }
double Hook::phi_compliant_log_scale() const { return Settle(), chains_->phi_compliant_log_scale(); }
double Hook::phi_t0() const { return Settle(), chains_->t0(); }
double Hook::phi_time() const { return Settle(), chains_->time(); }
const Eigen::MatrixXd& Hook::covariance() const { return Settle(), chains_->covariance(); }
const Eigen::MatrixXd& Hook::covariance_dreset() const { return Settle(), chains_->covariance_dreset(); }
long Hook::narrow_steps() const { return Settle(), arena_->narrow_steps(); }  // the worker's, with it
long Hook::guard_solves_skipped() const { return Settle(), crossings_->skipped(); }
long Hook::guard_steps() const { return Settle(), crossings_->evaluated(); }
long Hook::crossings_of_removed_contacts() const { return Settle(), crossings_of_removed_contacts_; }
const RestitutionTable& Hook::restitution() const { return Settle(), restitution_; }
double Hook::EffectiveRestitution(int geom1, int geom2) const {
  Settle();
  return tracker_->EffectiveRestitution(geom1, geom2);
}

}  // namespace saltation
