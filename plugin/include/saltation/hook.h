// Engine hook: call hook.Step(d) instead of mj_step(m, d). MuJoCo's own (compliant) simulation
// advances exactly as with mj_step (bitwise), and the hook reports every contact event of the
// rigid hybrid model alongside it: touchdowns and liftoffs with their saltation matrix Ξ, grazes,
// near misses, simultaneous groups, Zeno and chatter; optionally Φ and covariance through them.
//
//   saltation::Hook hook(m);                       // copies m: m is never edited
//   mjData* d = mj_makeData(m);
//   while (d->time < 1) hook.Step(d);              // instead of mj_step(m, d)
//   for (const saltation::HookEvent& ev : hook.events())
//     std::printf("%s at %g s, |Xi| = %g\n", EventKindName(ev.kind), ev.time, ev.rigid.xi.Norm());
//
// Reads: d's state and inputs (ctrl, applied forces, mocap). Writes: d, as mj_step does; nothing
// else of the caller's. Lifetime: the hook steps its own copy of the model, taken at
// construction — the user's mjModel may be deleted before the hook, and edits made to it later
// are not seen by Step (make a new Hook). d must belong to a model of the same sizes.
//
// How it works (theory.md §3–§8, README's tour): the hook's copy of the model has margin and gap
// enlarged together on the geoms for which that is exact (pairs of planes, spheres, capsules and
// boxes), so MuJoCo reports near-contacts with their distance at no extra cost; other pairs are
// listed by untracked_pairs() and still detected, one step later and only once they touch.
// Because mjData's contact list after mj_step describes the state at the START of that step, the
// crossing of a guard inside [t_{k−1}, t_k] is known after step k+1: events are reported one step
// late, each localised inside its step by re-simulating MuJoCo sub-steps from the saved state of
// t_{k−1} (LocateCrossing, root_finding.h). Ξ is the rigid model's at the localised MuJoCo state,
// computed by the same functions the exact integrator uses (events.h).
//
// Worker thread (HookOptions::worker_thread): Step runs the controller, a plain mj_step on a copy of
// the user's model with its own margins and gaps (d is then bitwise what a bare mj_step gives, its
// contact list included) and its checks (their errors are thrown by that Step, as without it),
// saves MuJoCo's state before and after the step into a queue slot (mj_getState, kWorkerState*
// below: no copy of mjData) and returns. A thread of the hook's own replays each queued step from
// its saved state on its own mjData with the hook's widened model, exactly as the synchronous
// Step takes it (ArenaFallback included), checks that it reaches the caller's state bit for bit
// (a NumericalError "diverged" otherwise: e.g. MuJoCo's sleeping, whose state mj_getState does
// not carry) and does the bookkeeping, in step order. So the caller may edit d (state, ctrl,
// applied forces, mocap) between steps as without the worker. Step waits only when worker_queue
// steps are queued. The results are those of the synchronous hook bit for bit, whatever the
// timing (events, Ξ, Φ, the mode). What reads the bookkeeping's results waits for the worker to
// finish every step taken so far: Sync(), events(), CompletedEvent, mode(), phi_*, covariance*,
// restitution(), EffectiveRestitution, guard_*, narrow_steps(); the references they return are
// valid until the next Step. Records
// are passed to on_event on the caller's thread, in time order, at the Step or wait that finds
// them done (Sync in a handler waits without delivering). An error of the worker (MujocoError, …)
// is thrown on the caller's thread by the next Step or wait, after the records made before it are
// delivered; the steps taken after it are dropped and the next Step starts afresh (Reset at its
// state). Reset waits for the worker first; the destructor lets the step in progress finish and
// drops the queued ones.
#ifndef SALTATION_HOOK_H_
#define SALTATION_HOOK_H_

#include <mujoco/mujoco.h>

#include <Eigen/Dense>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "saltation/events.h"
#include "saltation/hook_event.h"
#include "saltation/mode_dynamics.h"
#include "saltation/model.h"
#include "saltation/restitution.h"

namespace saltation {

// what the worker thread's Step saves of d (mj_getState): before the step, everything mj_step
// reads (state, inputs, warmstart); after it, the state it reached, for the replay's check
inline constexpr int kWorkerStateBefore = mjSTATE_INTEGRATION;
inline constexpr int kWorkerStateAfter = mjSTATE_FULLPHYSICS | mjSTATE_WARMSTART;

struct SavedStep;
struct StepGuards;
struct Crossing;
class Resimulator;
class CrossingFinder;
class ContactTracker;
class ChainPropagator;
class ArenaFallback;
class StepWorker;
class StepReplayer;
struct StepSlot;

class Hook {
 public:
  // Attaches to a copy of m taken now (margins and gaps widened where exact): m itself is never
  // edited and may be deleted before the hook; edits made to m after this are not seen.
  explicit Hook(const mjModel* m, const HookOptions& options = {});
  ~Hook();
  Hook(const Hook&) = delete;
  Hook& operator=(const Hook&) = delete;

  // Starts the bookkeeping at d's state: the mode (resting contacts), Φ = I, P = P₀. Called by
  // the first Step automatically. With the worker thread: Syncs first (and throws what Sync throws).
  void Reset(const mjData* d);

  // With the worker thread: waits until the bookkeeping of every step taken has been done, passes
  // its records to on_event and throws the worker's error if it had one. Without: nothing to do.
  void Sync();

  // One mj_step(m, d), then the bookkeeping. Events found are appended to events() and passed to
  // on_event at the end of the step that found them, in time order (a step's records are sorted,
  // stably, by time; every later step's records are no earlier), so events() and the stream are
  // in non-decreasing time. Members of a simultaneous group carry its id (HookEvent::group). ConfigError for a timestep that is not positive and finite;
  // NumericalError when MuJoCo found a bad position, velocity or acceleration and reset d (the
  // time before the step is named), or when the step leaves d->time where it was (a timestep below
  // its resolution).
  void Step(mjData* d);

  // called for each event at the end of the step that found it, in time order; the handler may
  // call CompleteXi on it (the stored record is the one passed)
  std::function<void(HookEvent&)> on_event;

  // a per-step controller: Step calls it first, with the hook's copy of the model (the user's,
  // with the hook's widened gaps) and d, to set d->ctrl (and
  // any other input) from d's state; MuJoCo holds the inputs over the step and the step's events
  // use them. Empty: d's inputs are whatever the caller left there.
  std::function<void(const mjModel*, mjData*)> controller;

  // (waits for the worker: see above)
  const std::vector<HookEvent>& events() const;
  // Completes an event's Ξ (HookOptions::xi_on_demand) at the event's own state, modes, inputs
  // and restitution; a no-op for complete events. Works on events() entries and on the copy
  // on_event receives; CompletedEvent(i) completes the stored events()[i].
  void CompleteXi(HookEvent& ev);
  const HookEvent& CompletedEvent(size_t i);
  const Mode& mode() const;
  const Model& rigid_model() const { return *model_; }
  const HookOptions& options() const { return options_; }
  // geom pairs MuJoCo may collide (its own filters: contype/conaffinity, parent–child, <exclude>,
  // <pair>) whose near-contacts cannot be reported exactly ("trunk/body:FL_hip#1", …), decided
  // per pair (near_contacts.h); untracked_summary() says it in one line ("" when none)
  const std::vector<std::string>& untracked_pairs() const { return untracked_; }
  const std::string& untracked_summary() const { return untracked_summary_; }
  // steps whose widened detection band would have filled MuJoCo's arena (contacts or constraint
  // rows) where the user's model does not: Step retook them with the user's own gaps, so d is
  // what a bare mj_step gives (arena_fallback.h); near-contacts are not listed in those steps,
  // touchdowns in them are still reported (localised by the rigid model's guard, else at onset)
  long narrow_steps() const;  // (with the worker: waits for it; the worker's replays are the steps)
  // steps whose per-step rigid-force solve the release pre-filter skipped (HookOptions::
  // release_prefilter), and the steps that had a mode to solve for
  long guard_solves_skipped() const;
  long guard_steps() const;
  // liftoff and release crossings not recorded because an earlier event of their step had removed
  // their mode contact (NamedModeContact: a release that let it go with another, ReleasePulling);
  // since the last Reset. The CLI's summary notes them (with the worker: waits for it)
  long crossings_of_removed_contacts() const;

  // Accumulated Φ(t ← t0) over the steps processed so far, as scale · matrix with
  // scale = exp(log_scale) (kept apart so long products do not overflow). Empty when not
  // propagated. t is phi_time(), one step behind the simulation.
  const Eigen::MatrixXd& phi_rigid() const;
  double phi_rigid_log_scale() const;
  const Eigen::MatrixXd& phi_compliant() const;
  double phi_compliant_log_scale() const;
  double phi_t0() const;
  double phi_time() const;
  // covariance through Ξ, and through DΔ alone for contrast (empty unless options.covariance)
  const Eigen::MatrixXd& covariance() const;
  const Eigen::MatrixXd& covariance_dreset() const;

  // the restitution the next impacts use (the model's, the override, or with measured pairs)
  const RestitutionTable& restitution() const;
  // measured effective restitution of a geom pair (−1 when not measured yet)
  double EffectiveRestitution(int geom1, int geom2) const;

 private:
  // the rooms (plugin/src/): re-simulated sub-steps, guards and their crossings, per-pair
  // tracking, the chains; the hook itself orchestrates (hook.cc) and builds events
  // (hook_events.cc)
  // the step's crossings made into records, emitted into found_ (no other copy): their positions there
  // (detected: the guards at x_k Detect read the crossings from)
  std::vector<size_t> Process(std::vector<Crossing>& crossings, const StepGuards& detected, double dt);
  // the index in mode_ of the contact a liftoff's or release's crossing names: the mode contact,
  // as the mode is now, matched (MatchContacts) to the point the crossing's contact held at x_k
  // (detected.match); a contact MuJoCo lost at x_k, by its very id. −1 when the mode holds that
  // point no more (an earlier event of the step removed its contact): the crossing then makes no
  // record and is counted (crossings_of_removed_contacts()). No distance: another held point of the
  // pair, however near, is another contact
  int NamedModeContact(const Crossing& c, const StepGuards& detected) const;
  void EmitSimultaneous(const std::vector<size_t>& step_events);
  // whether a touchdown crossing's point, at its state x (the step's inputs loaded), is a contact
  // of the mode or of `joined` (this step's impacts' candidates, triggers included): the pair's
  // points at x matched to the mode's as the mode is matched (MatchContacts), to `joined`'s each
  // to its nearest, and the crossing's own nearest point among them — not a distance between anchors
  bool AlreadyInMode(const Crossing& c, const Mode& joined, const State& x);
  void ComposeOrderings(Data& data, const RestitutionTable& restitution, const State& x0, const Mode& mode0,
                        const std::vector<ContactId>& group, HookEvent& sim);
  std::shared_ptr<HookDeferred> Defer(const SavedStep& base) const;
  void Emit(HookEvent ev);
  void Advance(mjData* d);          // the synchronous Step: Capture, StepMuJoCo, Bookkeep
  void StepWorkerThread(mjData* d);  // the worker's Step: state saved, plain mj_step and its checks, state saved, queued
  // the controller's inputs held: arena_->Step on the widened model (synchronous), or mj_step on
  // the user's own copy (worker thread), and the checks of both
  void StepMuJoCo(mjData* d, bool plain);
  // the bookkeeping of one step, from cur_ (x_k) and MuJoCo's data after the step: its records
  // into found_, sorted by time (also when it throws); on the worker thread with worker_thread
  void Bookkeep(const mjData* after, double dt);
  void Account(const mjData* after, double dt);  // Bookkeep's work
  void Deliver(std::vector<HookEvent>& records);  // appends them to events_ and passes them to on_event
  void Collect(bool wait);           // the worker's finished records delivered, its error thrown
  void Settle() const;               // Sync from the const accessors
  Data& XiData();                    // CompleteXi's workspace (the caller's own with the worker)

  ModelPtr stepped_model_;  // the copy Step passes to mj_step (widened margins and gaps)
  std::unique_ptr<ArenaFallback> arena_;  // retakes a step that filled the arena, on the user's gaps (the worker's, with it)
  ModelPtr plain_model_;    // with the worker: the stepping thread's copy of the user's model (its own margins and gaps)
  mjModel* m_ = nullptr;    // stepped_model_.get()
  HookOptions options_;
  std::unique_ptr<Model> model_;
  std::unique_ptr<Data> data_;
  RestitutionTable restitution_;  // what the impacts use (kOverride, kAuto write it)
  std::vector<std::string> untracked_;
  std::string untracked_summary_;
  double force_tol_ = 0;
  bool lazy_ = false;      // Ξ on demand in effect
  ModelPtr resim_model_;  // with the worker: the worker's own copy (the Resimulator writes its timestep, ArenaFallback its gaps)
  std::unique_ptr<Resimulator> resim_;
  std::unique_ptr<CrossingFinder> crossings_;
  std::unique_ptr<ContactTracker> tracker_;
  std::unique_ptr<ChainPropagator> chains_;

  bool started_ = false;
  Mode mode_;
  std::vector<ContactId> held_before_;  // Account's scratch: the mode's contacts before their anchors followed
  std::vector<ContactPoint> named_points_;  // AlreadyInMode's scratch: the crossing's pair's points at its state
  std::unique_ptr<SavedStep> prev_, cur_;
  std::unique_ptr<StepGuards[]> guards_;  // x_k, x_{k−1}, x_{k−2} at head_, head_+2, head_+1 (mod 3)
  int head_ = 0;
  std::vector<HookEvent> events_;  // delivered records (the caller's)
  std::vector<HookEvent> found_;   // the step being kept's records (the bookkeeping's)
  std::vector<HookEvent> ready_;   // the worker's finished records, being delivered
  int group_counter_ = 0;
  long crossings_of_removed_contacts_ = 0;  // (crossings_of_removed_contacts())
  long step_index_ = 0;
  bool delivering_ = false;        // on_event is running
  std::unique_ptr<Data> xi_data_;  // CompleteXi's, with the worker (made on first use)
  std::unique_ptr<StepReplayer> replayer_;  // with the worker: its replay of the caller's steps
  std::unique_ptr<StepWorker> worker_;  // last: stopped before the state its job uses goes
};

}  // namespace saltation

#endif  // SALTATION_HOOK_H_
