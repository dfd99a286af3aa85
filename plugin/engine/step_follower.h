// Follows MuJoCo's own stepping of an mjData from inside an engine plugin, and runs the hook
// (hook.h) beside it on a private shadow copy — so the plugin and the C++ Hook are one
// implementation and give the same events, bit for bit.
//
// How steps are told from MuJoCo's other evaluations. The plugin is computed at the start of
// every mj_step (and by every mj_forward, and by mjd_transitionFD at perturbed states); the
// follower keeps the last state it accepted (the origin, with the inputs — ctrl, applied forces,
// mocap, warmstart — seen at its latest evaluation) and, at each evaluation:
//   - the origin's state again (mj_forward between steps, the start of the next mj_step): the
//     inputs are refreshed, nothing else;
//   - a state later in time: the shadow, at the origin, is stepped through the hook with the
//     origin's inputs; if the result is bitwise the state seen, that was a step: events are
//     reported and the state becomes the origin; if not (the state was edited, or several steps
//     ran without evaluating the plugin), the follower restarts at the state seen (a
//     discontinuity: no events across it);
//   - a state at the same or an earlier time that is not the origin (a perturbation inside
//     mjd_transitionFD, a user's edit that is then stepped): ignored; an edit is caught by the
//     mismatch above;
//   - after mj_resetData (the plugin's reset callback calls Restart): a restart;
//   - MuJoCo's own reset of a diverging state (the hook's NumericalError): a discontinuity.
// Events of a step are the hook's, reported one step late as the hook reports them (hook.h);
// they concern states already accepted, so a mismatch never produces a wrong event.
//
// Reads: the user's mjData (state and inputs), never writes it. Writes: its own shadow mjData.
#ifndef SALTATION_PLUGIN_ENGINE_STEP_FOLLOWER_H_
#define SALTATION_PLUGIN_ENGINE_STEP_FOLLOWER_H_

#include <mujoco/mujoco.h>

#include <functional>
#include <memory>
#include <vector>

#include "saltation/hook.h"

namespace saltation {

class StepFollower {
 public:
  // m: the model MuJoCo steps (copied by the hook; the follower keeps no pointer to it).
  StepFollower(const mjModel* m, const HookOptions& options);
  ~StepFollower();

  // Called with each event as the hook finds it.
  std::function<void(const HookEvent&)> on_event;

  // Looks at d (a plugin evaluation) and advances the hook when d has taken a step.
  void Observe(const mjModel* m, const mjData* d);
  // The next observation starts afresh (mj_resetData, mj_copyData into the user's data).
  void Restart() { restart_ = true; }

  const Hook& hook() const { return *hook_; }
  long steps() const { return steps_; }                  // steps followed
  long discontinuities() const { return discontinuities_; }  // restarts not asked for by Restart

 private:
  void Start(const mjModel* m, const mjData* d);

  std::unique_ptr<Hook> hook_;
  mjData* shadow_ = nullptr;
  int physics_size_ = 0, inputs_size_ = 0;
  std::vector<mjtNum> origin_, inputs_, seen_, stepped_;
  bool started_ = false, restart_ = false;
  long steps_ = 0, discontinuities_ = 0;
};

}  // namespace saltation

#endif  // SALTATION_PLUGIN_ENGINE_STEP_FOLLOWER_H_
