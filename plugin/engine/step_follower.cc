#include "step_follower.h"

#include <cstring>

#include "saltation/errors.h"

namespace saltation {
namespace {

constexpr int kPhysics = mjSTATE_FULLPHYSICS;                 // time, qpos, qvel, act, history…
constexpr int kInputs = mjSTATE_USER | mjSTATE_WARMSTART;     // ctrl, applied forces, mocap, qacc₀

// bit for bit; an empty vector's data() may be null and memcmp must not see it (UBSan halts)
bool Same(const std::vector<mjtNum>& a, const std::vector<mjtNum>& b) {
  return a.size() == b.size() &&
         (a.empty() || std::memcmp(a.data(), b.data(), sizeof(mjtNum) * a.size()) == 0);
}

}  // namespace

// the model the hook steps: m without sensors (they never act on the physics, and the hook's
// re-simulated sub-steps would evaluate them, this plugin's acceleration-stage sensor among them)
ModelPtr WithoutSensors(const mjModel* m) {
  ModelPtr copy(mj_copyModel(nullptr, m));
  if (!copy) throw MujocoError("could not copy the model");
  copy->opt.disableflags |= mjDSBL_SENSOR;
  return copy;
}

// records are passed on as they are found, not kept
HookOptions Streaming(HookOptions options) {
  options.keep_events = false;
  return options;
}

StepFollower::StepFollower(const mjModel* m, const HookOptions& options)
    : hook_(std::make_unique<Hook>(WithoutSensors(m).get(), Streaming(options))) {
  shadow_ = mj_makeData(m);
  if (!shadow_) throw MujocoError("could not allocate the plugin's mjData");
  physics_size_ = mj_stateSize(m, kPhysics);
  inputs_size_ = mj_stateSize(m, kInputs);
  origin_.resize(physics_size_);
  seen_.resize(physics_size_);
  stepped_.resize(physics_size_);
  inputs_.resize(inputs_size_);
  hook_->on_event = [this](HookEvent& ev) {
    if (on_event) on_event(ev);
  };
}

StepFollower::~StepFollower() { mj_deleteData(shadow_); }

void StepFollower::Start(const mjModel* m, const mjData* d) {
  std::vector<mjtNum> all(mj_stateSize(m, mjSTATE_INTEGRATION));
  mj_getState(m, d, all.data(), mjSTATE_INTEGRATION);
  mj_setState(m, shadow_, all.data(), mjSTATE_INTEGRATION);
  hook_->Reset(shadow_);
  origin_ = seen_;
  mj_getState(m, d, inputs_.data(), kInputs);
  started_ = true;
  restart_ = false;
}

void StepFollower::Observe(const mjModel* m, const mjData* d) {
  mj_getState(m, d, seen_.data(), kPhysics);
  if (!started_ || restart_) return Start(m, d);
  if (Same(seen_, origin_)) {  // the origin again: its latest inputs are the ones a step uses
    mj_getState(m, d, inputs_.data(), kInputs);
    return;
  }
  if (!(d->time > origin_[0])) return;  // not after the origin: a perturbation, or an edit

  // a later state: was it the origin's step?
  mj_setState(m, shadow_, inputs_.data(), kInputs);
  try {
    hook_->Step(shadow_);
  } catch (const NumericalError&) {  // MuJoCo reset the state (bad acceleration): so it did the user's
    discontinuities_++;
    return Start(m, d);
  }
  mj_getState(m, shadow_, stepped_.data(), kPhysics);
  if (Same(stepped_, seen_)) {
    steps_++;
    origin_ = seen_;
    mj_getState(m, d, inputs_.data(), kInputs);
  } else {
    discontinuities_++;
    Start(m, d);
  }
}

}  // namespace saltation
