// Exact event-driven integrator of the rigid hybrid model (theory.md §5, §8).
//
// Integrates the mode vector field F_A with classical RK4 on a fixed time grid (qpos advanced in
// its own coordinates, quaternions renormalised after each step), evaluates every guard at the
// ends of each step, and when one changes sign from + to − locates the crossing with a
// bracketing root finder (LocateCrossing, root_finding.h) on the RK4 sub-step length, so the event time is the zero of
// the guard along the integrator's own dense path (to ~1e-13 s). The earliest crossing in a step
// is handled first: the reset is applied at the event time, Ξ is evaluated at the event state,
// and integration restarts there towards the next grid point; guards of the other contacts are
// evaluated again after the reset. A contact whose geometry has features (a sphere on a box's
// face, edge or vertex, on a cylinder's side, face or rim, the capsule families, contact_features.h) holds the one it is on as part of the mode; the
// region's boundaries are guards located like the others and reported as kFeature events (or
// kLiftoff when the contact leaves at the boundary), Ξ for the jump of the vector field, no reset.
// Because the grid is fixed and every sub-step is a smooth
// function of the initial state, the flow map is smooth in it and its finite differences are the
// reference the tests hold Ξ to.
#ifndef SALTATION_RIGID_SIMULATOR_H_
#define SALTATION_RIGID_SIMULATOR_H_

#include <Eigen/Dense>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "saltation/contacts.h"
#include "saltation/event_limit.h"
#include "saltation/events.h"
#include "saltation/impact.h"
#include "saltation/mode_dynamics.h"
#include "saltation/root_finding.h"
#include "saltation/mode_flow.h"
#include "saltation/model.h"
#include "saltation/restitution.h"
#include "saltation/saltation_matrix.h"
#include "saltation/tangent.h"

namespace saltation {

struct SimulatorOptions {
  double step = 1e-3;       // RK4 step (s)
  double root_tol = 1e-13;  // event-time tolerance (s)
  // NumericalError when more than this many events fall within 0.1 s of simulated time (Zeno,
  // chattering, events repeating at one instant; counted over the whole run, however it is cut
  // into Advance calls: RigidSimulator's counter, event_limit.h); ≥ 1, ConfigError otherwise
  int max_events = 10000;
  // contact points whose guard is within this of zero at an event (m) join the impact as
  // candidates (points of a box face landing together)
  double simultaneous_gap = 1e-9;
  // a liftoff guard fires only when λ_n goes from above +force_tol to below −force_tol
  // (hysteresis against round-off chattering of a force that is identically zero); < 0 picks
  // 1e-9 × the model's mean body weight
  double force_tol = -1;
  // a contact outside the mode may start a step this far below zero (m) without being an error:
  // round-off, or the drift of constraints held at acceleration level; < 0: 1e-3 × detection margin
  double penetration_tol = -1;
  // sub-samples per step used to find where a contact that has just bounced off comes back
  // within the same step (its guard starts at zero, rises, and falls below zero again)
  int rebound_samples = 16;
  // A start that penetrates (a robot's keyframe with its feet a little in the floor): kProject
  // moves the configuration out along the contact normals onto the contact manifold (the smallest
  // move in the mass metric, Gauss–Newton until every penetrating point touches to contact_tol;
  // the free joints alone when that suffices, so a robot's joint angles are kept; velocities kept)
  // and says how far in start_projection(); kStrict refuses any penetration.
  enum class Start { kProject, kStrict };
  Start start = Start::kProject;
  // kProject refuses a start penetrating deeper than this (m): that is not a start to correct
  double start_projection_limit = 0.03;
  // a crossing is located along the RK4 sub-steps of its own island's mode (islands.h: the mode's
  // contacts coupled to the guard's contact), which move the island's degrees of freedom exactly
  // as the whole mode's do; false integrates the whole mode at every guard sample (the reference
  // the tests hold the island path to, RigidIslands.*)
  bool locate_on_islands = true;
};

class CarriedAnchors;  // point_following.h

// What Initialize did to a penetrating start (kProject).
struct StartProjection {
  struct Contact {
    std::string label;  // ContactLabel
    double depth = 0;   // how far it penetrated (m): how far the projection moved it
  };
  std::vector<Contact> contacts;  // the points that penetrated, deepest first; empty: nothing moved
  double dq_norm = 0;             // ‖Δq‖ of the move (tangent space: m and rad together)
  bool base_only = false;         // only the free joints moved (the joint angles were kept)
  int iterations = 0;             // Gauss–Newton steps, both passes
};

// What the event location cost: each guard sample is one RK4 sub-step (four mode evaluations) of
// the mode restricted to the guard's island (islands.h), so the work follows the island, not the
// whole model (a pile of 200 bodies: a touchdown of one body integrates only the bodies it
// touches). Counted by Advance, never reset.
struct RigidWork {
  long long locate_samples = 0;   // guard evaluations of the crossing searches (RK4 sub-steps)
  long long locate_contacts = 0;  // the contacts of the modes those sub-steps integrated, summed
};

class RigidSimulator {
 public:
  explicit RigidSimulator(const Model& model, const SimulatorOptions& options = {});

  // Controls held constant during integration (nu); ConfigError on a size mismatch or NaN.
  void SetControl(const Eigen::VectorXd& ctrl);

  // The restitution the impacts use: the model's <custom> values until set otherwise (e.g. one
  // value for every contact from a command-line option); events record the value they used.
  void SetRestitution(const RestitutionTable& restitution) { restitution_ = restitution; }
  const RestitutionTable& restitution() const { return restitution_; }

  // The hybrid state at x: the mode holds every touching (|gap| ≤ contact_tol), resting
  // (|J_n v + ∂g/∂t| ≤ velocity_tol·max(1, |v|): at rest relative to its surfaces, a prescribed
  // motion's placed at x.time and its velocity included) contact whose normal force is
  // non-negative. A penetrating x is first
  // projected onto the contact manifold (options.start, start_projection()); NumericalError when
  // a contact penetrates by more than contact_tol with kStrict, or deeper than
  // start_projection_limit, or the state is not finite.
  HybridState Initialize(const State& x);
  // what the last Initialize moved (empty when its start did not penetrate)
  const StartProjection& start_projection() const { return start_projection_; }

  // Advances to t_end with event detection, appending the events to `events` in time order as they
  // are found. With max_events > 0 it stops right after that many events of this call (s is then
  // the post-event state). On a NumericalError the events found before it are in `events`, and so
  // is the event the run stops at when it stops after an event (more than options().max_events
  // events, a stiff rocking mode after it: s is then that event's post-event state).
  //
  // The run: options().max_events holds over a run, however it is cut into Advance calls. A call
  // whose s is the hybrid state the last Advance left (returning or throwing) or Initialize
  // returned, unchanged (x bit for bit, the mode SameContacts: a copy of it is it — but a NaN anchor equals nothing, so a
  // mode holding one starts a new run each call), continues that run's count;
  // any other s (a perturbed copy for finite differences, a state from earlier in the run or from
  // elsewhere) starts a new run (event_limit.h).
  void Advance(HybridState& s, double t_end, std::vector<RigidEvent>& events, int max_events = -1);
  // The same, returning this call's events (an error loses them: the form above keeps them).
  std::vector<RigidEvent> Advance(HybridState& s, double t_end, int max_events = -1);

  // Advances to t_end in the current mode, ignoring every guard (flow map of one mode).
  void AdvanceFixedMode(HybridState& s, double t_end);

  const Model& model() const { return model_; }
  Data& data() { return data_; }
  const SimulatorOptions& options() const { return options_; }
  const RigidWork& work() const { return work_; }

 private:
  // the next grid point after t: multiples of the step from t = 0, so results do not depend on
  // how a run is cut into Advance calls
  double NextGridTime(double t, double t_end) const;

  const Model& model_;
  SimulatorOptions options_;
  Data data_;
  RestitutionTable restitution_;
  double grid_origin_ = 0;
  double force_tol_ = 0;
  double penetration_tol_ = 0;
  StartProjection start_projection_;
  RigidWork work_;
  // the run's event counter (options_.max_events) and the hybrid state the last Advance left (or
  // Initialize returned): a call starting from it, unchanged, continues the run's count
  EventLimit event_limit_;
  HybridState left_;
  bool has_left_ = false;
  // Advance's work on a run that it has decided continues or begins (the public Advance keeps
  // left_ on every exit)
  void AdvanceRun(HybridState& s, double t_end, std::vector<RigidEvent>& events, int max_events);

  void ProjectStart(State& x);
  // the mode's contacts coupled to contact id (its island; the whole mode when the model does not
  // split, islands.h)
  Mode IslandMode(const Mode& mode, const ContactId& id) const;
  // the gap of contact id (outside `local`) after an RK4 sub-step of length tau from x in `local`:
  // the island's own degrees of freedom are those of the whole mode's sub-step (the other trees
  // follow `local` too, but no guard of this contact reads them); detect_margin (apart) where its
  // pair lists no point for it there; counts work_
  double LocalGap(const State& x, const Mode& local, const ContactId& id, double tau);
  // The point of `start` (the inactive points at x) that the step's end point p continues: of
  // its pair's start points, the one whose anchor, carried over the step h at its rate, lands
  // nearest to p's (point_following.h: MatchContact on the start anchors took a sliding point's end
  // for a neighbour's whose start anchor lay nearer: an edge–edge point of two nearly parallel box
  // edges slides ~1 mm per step). The rates come from the pair's points a sub-step of
  // kAnchorRateProbe·h into the step (one RK4 sub-step of the island, counted in work_);
  // `carried` (begun on the step's start points) keeps them per pair. A pair with one start point:
  // that one.
  int StartOf(const ContactPoint& p, const State& x, const Mode& mode, double h, CarriedAnchors& carried);
  // A plane–cylinder pair's rim listing guard at y (own_points.h: sin(tilt) − the face threshold;
  // NaN for another pair), on data_.aux() (left at y's kinematics)
  double RimListingGuard(const State& y, const ContactId& id);
  // Whether the step x0 → x1's end point p is a cylinder's lowest rim point whose listing began in
  // the step (no start point continues it: the corners carried the face until then)
  bool RimListingBegins(const State& x0, const State& x1, const ContactPoint& p);
  // Such a point's touchdown in the step of length h from s: where its listing begins (located
  // along the island's RK4), or its gap's zero after it if it is apart there: the time and the
  // bracket; false where it is deeper than penetration_tol there or no crossing is found
  // (at_listing: the touchdown is where the listing begins, its guard the one crossed)
  bool LocateRimTouchdown(const HybridState& s, double h, const ContactPoint& p, const CrossingOptions& options,
                          double& when, double& lo, double& hi, bool& at_listing);
  // The gradient (tangent, ndx; zero velocity rows) of RimListingGuard at y, on data_.aux()
  Eigen::VectorXd RimListingGuardGradient(const State& y, const ContactId& id);
};

// A run as the `rigid` command and Python's saltation.rigid make it: to t_end in chunks of at most
// 0.1 s, one event at a time, each event passed to on_event as it is found (so everything found
// is reported before an error stops the run) and on_chunk called after each chunk (progress).
// One implementation for both, so their numbers agree bit for bit (how a run is cut into Advance
// calls moves round-off). On a NumericalError every event found is passed to on_event before it is
// rethrown, the event the run stops at included (the one past options().max_events, which holds over the
// whole run: Advance's count; one after which the mode rocks too stiffly); s is then its post-event state.
void RunRigid(RigidSimulator& sim, HybridState& s, double t_end,
              const std::function<void(const RigidEvent&)>& on_event,
              const std::function<void()>& on_chunk = {});

}  // namespace saltation

#endif  // SALTATION_RIGID_SIMULATOR_H_
