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

struct SavedStep;
struct StepGuards;
struct Crossing;
class Resimulator;
class CrossingFinder;
class ContactTracker;
class ChainPropagator;
class ArenaFallback;

class Hook {
 public:
  // Attaches to a copy of m taken now (margins and gaps widened where exact): m itself is never
  // edited and may be deleted before the hook; edits made to m after this are not seen.
  explicit Hook(const mjModel* m, const HookOptions& options = {});
  ~Hook();
  Hook(const Hook&) = delete;
  Hook& operator=(const Hook&) = delete;

  // Starts the bookkeeping at d's state: the mode (resting contacts), Φ = I, P = P₀. Called by
  // the first Step automatically.
  void Reset(const mjData* d);

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

  const std::vector<HookEvent>& events() const { return events_; }
  // Completes an event's Ξ (HookOptions::xi_on_demand) at the event's own state, modes, inputs
  // and restitution; a no-op for complete events. Works on events() entries and on the copy
  // on_event receives; CompletedEvent(i) completes the stored events()[i].
  void CompleteXi(HookEvent& ev);
  const HookEvent& CompletedEvent(size_t i);
  const Mode& mode() const { return mode_; }
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
  long narrow_steps() const;
  // steps whose per-step rigid-force solve the release pre-filter skipped (HookOptions::
  // release_prefilter), and the steps that had a mode to solve for
  long guard_solves_skipped() const;
  long guard_steps() const;

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
  const RestitutionTable& restitution() const { return restitution_; }
  // measured effective restitution of a geom pair (−1 when not measured yet)
  double EffectiveRestitution(int geom1, int geom2) const;

 private:
  // the rooms (plugin/src/): re-simulated sub-steps, guards and their crossings, per-pair
  // tracking, the chains; the hook itself orchestrates (hook.cc) and builds events
  // (hook_events.cc)
  std::vector<HookEvent> Process(std::vector<Crossing>& crossings, double dt);
  void EmitSimultaneous(const std::vector<HookEvent>& step_events);
  void ComposeOrderings(const RestitutionTable& restitution, const State& x0, const Mode& mode0,
                        const std::vector<ContactId>& group, HookEvent& sim);
  std::shared_ptr<HookDeferred> Defer(const SavedStep& base) const;
  void Emit(HookEvent ev);
  void Advance(mjData* d);       // Step's work after its checks
  void Deliver(size_t first);    // sorts events_[first..] by time and passes them to on_event

  ModelPtr stepped_model_;  // the copy Step passes to mj_step (widened margins and gaps)
  std::unique_ptr<ArenaFallback> arena_;  // retakes a step that filled the arena, on the user's gaps
  mjModel* m_ = nullptr;    // stepped_model_.get()
  HookOptions options_;
  std::unique_ptr<Model> model_;
  std::unique_ptr<Data> data_;
  RestitutionTable restitution_;  // what the impacts use (kOverride, kAuto write it)
  std::vector<std::string> untracked_;
  std::string untracked_summary_;
  double force_tol_ = 0;
  bool lazy_ = false;      // Ξ on demand in effect
  std::unique_ptr<Resimulator> resim_;
  std::unique_ptr<CrossingFinder> crossings_;
  std::unique_ptr<ContactTracker> tracker_;
  std::unique_ptr<ChainPropagator> chains_;

  bool started_ = false;
  Mode mode_;
  std::unique_ptr<SavedStep> prev_, cur_;
  std::unique_ptr<StepGuards[]> guards_;  // x_k, x_{k−1}, x_{k−2} at head_, head_+2, head_+1 (mod 3)
  int head_ = 0;
  std::vector<HookEvent> events_;
  int group_counter_ = 0;
  size_t step_first_ = 0;  // index in events_ of the current step's first record
  long step_index_ = 0;
};

}  // namespace saltation

#endif  // SALTATION_HOOK_H_
