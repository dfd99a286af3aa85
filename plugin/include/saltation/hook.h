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
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "saltation/events.h"
#include "saltation/mode_dynamics.h"
#include "saltation/model.h"

namespace saltation {

// What the hook propagates alongside the simulation, chosen at attach time.
enum class Propagation {
  kEvents,     // events and their Ξ only (cheapest)
  kRigid,      // + Φ of the rigid hybrid model: per-step Jacobian of the mode flow, Ξ at events
  kCompliant,  // + Φ of MuJoCo's own step: product of mjd_transitionFD Jacobians
  kBoth,       // both, for comparison
};
const char* PropagationName(Propagation p);
Propagation ParsePropagation(const std::string& name);  // "events", "rigid", "compliant", "both"

// Where the rigid model takes restitution from.
enum class RestitutionSource {
  kModel,     // the <custom> fields (config.h)
  kOverride,  // one value for every contact
  kAuto,      // per geom pair, the effective restitution measured on MuJoCo's soft contact
};

struct HookOptions {
  Propagation propagation = Propagation::kEvents;
  bool covariance = false;               // also propagate P (needs the rigid Φ; forces kRigid)
  double process_noise = 0;              // Q = process_noise · dt · I per step, and at events
  double initial_covariance = 0;         // P₀ = initial_covariance · I
  double grazing_threshold = 0.01;       // dimensionless transversality below this: grazing
  double near_miss_distance = -1;        // m; < 0: 10% of the detection margin
  double simultaneous_time = 1e-6;       // s: crossings closer than this form one group
  RestitutionSource restitution = RestitutionSource::kModel;
  double restitution_override = 0;
  double release_gap = -1;               // m: an active contact further apart than this has
                                         // separated in MuJoCo (kinematic release); < 0: 1 mm
  int zeno_min_intervals = 3;            // geometric bounce intervals needed to call Zeno
  double zeno_ratio_tolerance = 0.05;    // spread allowed between successive interval ratios
  int chatter_steps = 3;                 // onset and release of one contact this close: chatter
  double fd_eps = 1e-6;                  // mjd_transitionFD step
  // Ξ on demand: events are detected, localised, classified and change the mode as before, but
  // the costly part of Ξ (DΔ's configuration block, F⁺, a liftoff's ∇g, the two orderings of a
  // simultaneous group) waits for Hook::CompleteXi. Only without rigid propagation or covariance
  // (those fold every Ξ into Φ); ignored otherwise.
  bool xi_on_demand = false;
  Options model;                         // rigid model options (detection margin, tolerances)
};

struct HookDeferred;  // what Hook::CompleteXi needs of an event's moment (inputs, restitution)

// One record of the event stream.
struct HookEvent {
  std::string kind;        // touchdown, liftoff, slip, graze (a grazing touchdown), near_miss,
                           // simultaneous, zeno, chatter, restitution
  double time = 0;
  double bracket_lo = 0, bracket_hi = 0;
  ContactId contact;
  double restitution = 0;  // used by the rigid model for this event (restitution: measured)
  bool has_xi = false;     // touchdown, liftoff, slip, graze: `rigid` holds Ξ and the reset
  // Ξ on demand and not completed yet (rigid.complete is false; for simultaneous, the two
  // composites and order_spread are missing): call Hook::CompleteXi
  bool xi_pending = false;
  std::shared_ptr<const HookDeferred> deferred;
  RigidEvent rigid;
  bool grazing = false;
  bool proxy = false;      // a release declared by the kinematic proxy (gap > release_gap)
  int group = -1;          // simultaneous group id, −1 when alone
  int group_size = 0;      // simultaneous: contacts in the group
  double order_spread = 0; // simultaneous: ‖C₁ − C₂‖ / max ‖Cᵢ‖ over the two orderings
  Eigen::MatrixXd composite_first, composite_reverse;  // simultaneous: Ξₙ⋯Ξ₁ per ordering
  double min_gap = 0;                     // near_miss: the guard's smallest value (m)
  double accumulation_time = 0;           // zeno: predicted accumulation time (s)
  double ratio = 0;                       // zeno: interval ratio
  double normal_velocity_minus = 0;       // restitution: approach speed (m/s)
  double normal_velocity_plus = 0;        // restitution: separation speed (m/s)
};

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
  // on_event as they are found.
  void Step(mjData* d);

  // called for each event as it is found; the handler may call CompleteXi on it (the stored
  // record is the one passed)
  std::function<void(HookEvent&)> on_event;

  const std::vector<HookEvent>& events() const { return events_; }
  // Completes an event's Ξ (HookOptions::xi_on_demand) at the event's own state, modes, inputs
  // and restitution; a no-op for complete events. Works on events() entries and on the copy
  // on_event receives; CompletedEvent(i) completes the stored events()[i].
  void CompleteXi(HookEvent& ev);
  const HookEvent& CompletedEvent(size_t i);
  const Mode& mode() const { return mode_; }
  const Model& rigid_model() const { return *model_; }
  const HookOptions& options() const { return options_; }
  // pairs of geom types for which near-contacts cannot be reported exactly ("ellipsoid/box", …)
  const std::vector<std::string>& untracked_pairs() const { return untracked_; }

  // Accumulated Φ(t ← t0) over the steps processed so far, as scale · matrix with
  // scale = exp(log_scale) (kept apart so long products do not overflow). Empty when not
  // propagated. t is phi_time(), one step behind the simulation.
  const Eigen::MatrixXd& phi_rigid() const { return phi_rigid_; }
  double phi_rigid_log_scale() const { return phi_rigid_log_; }
  const Eigen::MatrixXd& phi_compliant() const { return phi_compliant_; }
  double phi_compliant_log_scale() const { return phi_compliant_log_; }
  double phi_t0() const { return phi_t0_; }
  double phi_time() const { return phi_time_; }
  // covariance through Ξ, and through DΔ alone for contrast (empty unless options.covariance)
  const Eigen::MatrixXd& covariance() const { return cov_; }
  const Eigen::MatrixXd& covariance_dreset() const { return cov_dreset_; }

  // measured effective restitution of a geom pair (−1 when not measured yet)
  double EffectiveRestitution(int geom1, int geom2) const;

 private:
  struct Saved;           // a MuJoCo state with everything mj_step reads
  struct Guards;          // guard values at one step
  struct Tracking;        // per-contact history (Zeno, chatter, effective restitution)
  struct Crossing;
  struct Scratch;         // buffers of the per-step rigid-force evaluation

  void Capture(const mjData* d, Saved& s) const;
  // MuJoCo's step of length h from a saved state into out (step false: only load the state)
  void Resimulate(const Saved& from, double h, mjData* out, bool step = true) const;
  // Euler sub-steps from one saved state: the forward pass once, then the integrator per length
  // (only when the forward pass does not read the timestep)
  bool ForwardIgnoresTimestep() const;
  void PrepareSubsteps(const Saved& from) const;
  void Substep(const Saved& from, double h) const;
  State StateOf(const mjData* d) const;
  void Evaluate(const mjData* d, const Guards* previous, double dt, Guards& out);
  std::vector<Crossing> Detect(const Guards& before, const Guards& after);
  void Localize(Crossing& c, double dt);
  std::vector<HookEvent> Process(std::vector<Crossing>& crossings, double dt);
  RigidEvent ProxyRelease(const State& x, int k);
  void EmitSimultaneous(const std::vector<HookEvent>& step_events);
  void ComposeOrderings(const State& x0, const Mode& mode0, const std::vector<ContactId>& group,
                        HookEvent& sim);
  std::shared_ptr<HookDeferred> Defer(const Saved& base) const;
  void NearMisses(const Guards& g2, const Guards& g1, const Guards& g0);
  void Emit(HookEvent ev);
  void UpdateTracking(std::string kind, double time, ContactId contact, double transversality);
  void Propagate(double dt);
  void MeasureRestitution(const mjData* d, const std::vector<ContactPoint>& points);
  Eigen::MatrixXd CompliantStepJacobian(const Saved& from, double dt);

  ModelPtr stepped_model_;  // the copy Step passes to mj_step (widened margins and gaps)
  mjModel* m_ = nullptr;    // stepped_model_.get()
  HookOptions options_;
  std::unique_ptr<Model> model_;
  std::unique_ptr<Data> data_;
  ModelPtr sub_model_;     // copy of m for re-simulated sub-steps
  DataPtr sub_data_;       // scratch for re-simulation and mjd_transitionFD
  mutable Eigen::VectorXd substep_qpos_;  // qpos after PrepareSubsteps' forward pass
  std::vector<std::string> untracked_;
  double force_tol_ = 0;
  bool lazy_ = false;      // Ξ on demand in effect

  bool started_ = false;
  Mode mode_;
  Mode prop_mode_;                      // the mode at phi_time()
  std::vector<HookEvent> pending_;      // events not yet folded into Φ (time order)
  std::unique_ptr<Saved> prev_, cur_;
  std::unique_ptr<Guards[]> guards_;    // x_k, x_{k−1}, x_{k−2} at head_, head_+2, head_+1 (mod 3)
  int head_ = 0;
  std::unique_ptr<Scratch> scratch_;
  std::vector<ContactPoint> guard_points_;  // the localisation's guard evaluations
  std::vector<ContactId> guard_ids_;
  RowMatrix guard_rows_, guard_jac1_, guard_jac2_;  // the guard's slope row and its scratch
  int measuring_ = 0;                   // pairs whose effective restitution is being measured
  std::vector<HookEvent> events_;
  std::map<std::string, std::unique_ptr<Tracking>> tracking_;
  std::map<std::pair<int, int>, double> effective_restitution_;
  int group_counter_ = 0;
  long step_index_ = 0;

  Eigen::MatrixXd phi_rigid_, phi_compliant_, cov_, cov_dreset_;
  double phi_rigid_log_ = 0, phi_compliant_log_ = 0, phi_t0_ = 0, phi_time_ = 0;
};

}  // namespace saltation

#endif  // SALTATION_HOOK_H_
