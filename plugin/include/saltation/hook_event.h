// What the engine hook is given and what it reports: its options and the records of its event
// stream (hook.h steps MuJoCo and produces them; event_json.h writes them).
#ifndef SALTATION_HOOK_EVENT_H_
#define SALTATION_HOOK_EVENT_H_

#include <Eigen/Dense>
#include <limits>
#include <memory>
#include <string>

#include "saltation/events.h"
#include "saltation/identity_except_block.h"
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
  double grazing_threshold = 0.01;       // grazing measure (transversality_rel) below this: grazing
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
  // false: records go to Hook::on_event and are not kept beyond their step (events() holds the
  // latest step's only), so a long-running stream's memory stays bounded (the engine plugin)
  bool keep_events = true;
  // the per-step rigid-force guard's release pre-filter (release_prefilter.h): a group of contacts'
  // rigid solve is skipped while each is in steady contact far from release by MuJoCo's own normal
  // force; false: solved at every step (the same events, tested; slower)
  bool release_prefilter = true;
  // the bookkeeping (everything after MuJoCo's step: guards, detection, localisation, Ξ, chains,
  // tracking) on a worker thread of the hook's own, fed by a bounded queue of worker_queue steps
  // (hook.h: what waits for it); the results are the synchronous hook's, bit for bit
  bool worker_thread = false;
  int worker_queue = 8;                  // steps the stepping thread may run ahead (>= 1)
  Options model;                         // rigid model options (detection margin, tolerances)
};

struct HookDeferred;  // what Hook::CompleteXi needs of an event's moment (inputs, restitution)

// One record of the event stream.
struct HookEvent {
  EventKind kind = EventKind::kTouchdown;  // event_kind.h: EventKindName gives its name
  double time = 0;
  double bracket_lo = 0, bracket_hi = 0;
  ContactId contact;
  // the contact point (world): the rigid event's for events with Ξ, the closest approach's for a
  // near miss; NaN for the others
  Eigen::Vector3d point = Eigen::Vector3d::Constant(std::numeric_limits<double>::quiet_NaN());
  double restitution = 0;  // used by the rigid model for this event (restitution: measured)
  bool has_xi = false;     // touchdown, liftoff, slip, graze: `rigid` holds Ξ and the reset
  // Ξ on demand and not completed yet (rigid.complete is false; for simultaneous, the two
  // composites and order_spread are missing): call Hook::CompleteXi
  bool xi_pending = false;
  std::shared_ptr<const HookDeferred> deferred;
  RigidEvent rigid;
  bool grazing = false;
  bool proxy = false;      // a release declared by the kinematic proxy (gap > release_gap)
  // a liftoff at the start of a step whose inputs (controls, applied forces, mocap poses) changed
  // from the step before: λ_n < 0 there with the new inputs, > 0 with the old. time = the step's
  // start, exactly; Ξ = I (the guard is the time surface of the switch: rigid.xi.grad_g = 0,
  // dg_dt = −1; docs/theory.md)
  bool input_jump = false;
  int group = -1;          // simultaneous group id, −1 when alone
  int group_size = 0;      // simultaneous: contacts in the group
  double order_spread = 0; // simultaneous: ‖C₁ − C₂‖ / max ‖Cᵢ‖ over the two orderings
  // simultaneous: Ξₙ⋯Ξ₁ per ordering, factored: the identity outside the indices the members' Ξ
  // move (identity_except_block.h; Dense() for the matrix); n = 0 until composed
  IdentityExceptBlock composite_first, composite_reverse;
  double min_gap = 0;                     // near_miss: the guard's smallest value (m)
  double accumulation_time = 0;           // zeno: predicted accumulation time (s)
  double ratio = 0;                       // zeno: interval ratio
  double normal_velocity_minus = 0;       // restitution: approach speed (m/s)
  double normal_velocity_plus = 0;        // restitution: separation speed (m/s)
};

}  // namespace saltation

#endif  // SALTATION_HOOK_EVENT_H_
