// The viewer's simulation: one loaded model, its mjData and the engine hook that steps it, a
// physics thread that keeps simulated time in step with wall time × the slow-motion factor, and
// what the panels show (event records, Φ comparison samples). No physics or Ξ logic lives here:
// everything comes from saltation::Hook.
//
// Locking: the render thread and the physics thread share everything below through mutex().
// Methods marked "(locked)" expect the caller to hold it; Load, StartThread and StopThread take
// it themselves.
#ifndef SALTATION_VIEWER_SIMULATION_H_
#define SALTATION_VIEWER_SIMULATION_H_

#include <mujoco/mujoco.h>

#include <Eigen/Dense>
#include <algorithm>
#include <atomic>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "recorder.h"
#include "saltation/hook.h"
#include "saltation/saltation.h"

namespace saltation_viewer {

// What the user can change about the hook; changing any of it re-creates the hook and resets.
struct HookSettings {
  saltation::Propagation propagation = saltation::Propagation::kEvents;
  double grazing_threshold = 0.01;
  saltation::RestitutionSource restitution = saltation::RestitutionSource::kModel;
  double restitution_override = 0.5;
  bool solref_override = false;     // set geom_solref[.][0] (time constant) on every geom
  double solref_timeconst = 0.02;   // s
};

// One hook event as the panels and the scene show it.
struct EventRecord {
  std::shared_ptr<const saltation::HookEvent> event;  // a copy: Ξ, DΔ, states
  saltation::EventKind kind = saltation::EventKind::kTouchdown;
  double time = 0;
  std::string contact;              // "geom1/geom2"
  int geom1 = -1, geom2 = -1;
  bool has_xi = false;
  double transversality = NAN;      // ∇gᵀF⁻
  double transversality_rel = NAN;  // the unit-free grazing measure (guards.h): 1 head-on, 0 grazing
  double xi_norm = NAN;             // ‖Ξ‖₂
  double restitution = NAN;
  bool grazing = false;
  std::string flags;
  Eigen::Vector3d pos = Eigen::Vector3d::Zero();  // world point of the event (marker)
};

// Φ comparison at one time (kBoth): ‖Φ_rigid − Φ_compliant‖_F / ‖Φ_compliant‖_F, and log10 ‖Φ‖_F.
struct PhiSample {
  double time = 0;
  double relative_difference = NAN;
  double log10_rigid = NAN;
  double log10_compliant = NAN;
};

class Simulation {
 public:
  Simulation();
  ~Simulation();

  // Loads an MJCF (or .mjb) file; on failure returns the message and keeps the current model.
  // keyframe: a name or index to start from ("": the model's first keyframe when it has one, else
  // qpos0, as the saltation commands; "none": qpos0); a keyframe the model does not have is an
  // error when required, else qpos0. Takes the lock.
  std::string Load(const std::string& path, const std::string& keyframe,
                   bool keyframe_required = true);

  std::unique_lock<std::mutex> Lock() { return std::unique_lock<std::mutex>(mutex_); }

  // the physics thread (interactive mode)
  void StartThread();
  void StopThread();

  // (locked) accessors; m() and d() are null before the first successful load
  mjModel* m() { return m_.get(); }
  mjData* d() { return d_.get(); }
  const mjModel* m() const { return m_.get(); }
  const mjData* d() const { return d_.get(); }
  const saltation::Hook* hook() const { return hook_.get(); }
  bool has_hook() const { return hook_ != nullptr; }
  const std::string& path() const { return path_; }
  int keyframe() const { return keyframe_; }
  const HookSettings& settings() const { return settings_; }
  // the last history() events (older ones are dropped; a recording keeps every event)
  const std::deque<EventRecord>& events() const { return records_; }
  // events dropped from the front of events() since the start (never reset: an index into
  // events() taken before shifts down by the change in dropped())
  long dropped() const { return dropped_; }
  // events reported since the last reset (kept or dropped)
  long total_events() const { return total_events_; }
  size_t history() const { return history_; }
  void SetHistory(size_t n) { history_ = std::max<size_t>(n, 1); }
  const std::deque<PhiSample>& phi_samples() const { return phi_samples_; }
  const saltation::HookEvent* hook_event(int record) const;  // an index into events()
  // measured effective restitution of a geom pair (−1: not measured, or no hook)
  double EffectiveRestitution(int geom1, int geom2) const;
  const std::string& hook_error() const { return hook_error_; }   // hook could not attach
  const std::string& step_error() const { return step_error_; }   // last step threw (paused)
  mjvPerturb& perturb() { return pert_; }
  Recorder& recorder() { return recorder_; }

  // (locked) run control
  bool running() const { return running_; }
  void SetRunning(bool run);
  double speed() const { return speed_; }   // slow-motion factor: sim seconds per wall second
  void SetSpeed(double speed);
  double measured_rtf() const { return measured_rtf_; }

  // (locked) re-creates the hook and mjData, back to the keyframe (or qpos0)
  void Reset();
  void SetKeyframe(int key);             // −1: qpos0; then Reset
  void Apply(const HookSettings& s);     // then Reset
  void RestartPhiWindow();               // Φ = I from now on (Hook::Reset at the current state)

  // (locked) one step of the hook with the perturbation applied; false when it threw
  bool StepOnce();
  // (locked) steps until the simulated time has advanced by dt (at least one step)
  void Advance(double dt);
  // (locked) kinematics after a change made while paused (perturbation, keyframe)
  void ForwardWhilePaused();

 private:
  void Rebuild();        // (locked) hook + data from the current model and settings
  void OnEvent(const saltation::HookEvent& ev);
  void SamplePhi();
  void PhysicsLoop();

  std::mutex mutex_;
  saltation::ModelPtr m_;
  saltation::DataPtr d_;
  std::vector<mjtNum> solref_original_;  // geom_solref as loaded (2·ngeom)
  std::unique_ptr<saltation::Hook> hook_;              // steps its own copy of m_
  std::unique_ptr<saltation::Data> marker_data_;       // workspace to place event markers
  std::string path_;
  int keyframe_ = -1;
  HookSettings settings_;
  std::string hook_error_, step_error_;

  std::deque<EventRecord> records_;  // a ring of the last history_ events
  size_t history_ = 1000;
  long dropped_ = 0, total_events_ = 0;
  std::deque<PhiSample> phi_samples_;
  Recorder recorder_;
  mjvPerturb pert_;

  bool running_ = true;
  double speed_ = 1;
  bool resync_ = true;
  double sync_sim_ = 0;
  double sync_wall_ = 0;
  double measured_rtf_ = 0;
  double rtf_sim_ = 0, rtf_wall_ = -1;

  std::thread thread_;
  std::atomic<bool> exit_{false};
};

// a monotonic wall clock in seconds
double WallSeconds();

}  // namespace saltation_viewer

#endif  // SALTATION_VIEWER_SIMULATION_H_
