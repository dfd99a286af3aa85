// Contact events of the rigid hybrid model at a given state: what happens, the mode after, Ξ.
// Shared by the exact event-driven integrator and the engine hook on MuJoCo's own simulation.
#ifndef SALTATION_EVENTS_H_
#define SALTATION_EVENTS_H_

#include <limits>
#include <vector>

#include "saltation/contact_features.h"
#include "saltation/contacts.h"
#include "saltation/event_kind.h"
#include "saltation/impact.h"
#include "saltation/islands.h"
#include "saltation/mode_dynamics.h"
#include "saltation/model.h"
#include "saltation/restitution.h"
#include "saltation/saltation_matrix.h"
#include "saltation/tangent.h"

namespace saltation {

struct HybridState {
  State x;
  Mode mode;
};

struct RigidEvent {
  // touchdown, liftoff, slip or feature (event_kind.h); stick–slip with Coulomb friction is not modelled
  EventKind kind = EventKind::kTouchdown;
  double time = 0;
  double bracket_lo = 0, bracket_hi = 0;  // times the root was bracketed between at the end
  ContactId contact;                      // the contact whose guard fired
  // where: the contact point at x⁻ (world, midway between the surfaces)
  Eigen::Vector3d point = Eigen::Vector3d::Constant(std::numeric_limits<double>::quiet_NaN());
  Mode mode_before, mode_after;
  State x_minus, x_plus;
  SaltationMatrix xi;
  ImpactResult impact;                    // touchdown only
  // e of the trigger contact's geom pair in the table the event was made with: the value its
  // impact used (touchdown), or the pair's value at the event (liftoff, slip: no impact)
  double restitution = 0;
  std::vector<ContactId> released;        // contacts whose force turned negative after the event
  int rank_after = 0;                     // rank of J M⁻¹ Jᵀ in the mode after
  // false: what happens is known (mode after, x⁺, transversality) but Ξ is not assembled yet:
  // xi holds only f_minus, grad_g (touchdown, kinematic release), the transversality and dt_dx
  // (touchdown, kinematic release); a liftoff's transversality_rel is NaN. CompleteEvent fills in
  // the rest.
  bool complete = true;
  int mode_index = -1;                    // liftoff / slip / feature: the contact's index in mode_before
  // a liftoff declared kinematically (KinematicReleaseEvent): its guard is the touchdown guard's
  // (J_n, 0), already in xi.grad_g when the event is not complete
  bool kinematic_release = false;
  // a feature change (FeatureEvent): the contact's geometric feature before and after
  // (contact_features.h); −1 for every other event
  int feature_before = -1, feature_after = -1;
  // the contact's geometric feature at the event (contact_features.h, FeatureName): the held one,
  // else where the geometry has it at x⁻ (a touchdown on a box's face, a liftoff from its edge);
  // feature_before for a feature change; −1 for a pair without features
  int feature = -1;
  // the trees the event reaches (islands.h): the impact, the release, F⁻, F⁺, ∇g and Ξ are
  // computed on the mode's contacts inside it (Ξ is the identity outside); xi.f_minus and
  // xi.f_plus hold the island's mode dynamics (a touchdown's: evaluated on the island alone,
  // ModeVectorField's island, so their accelerations are 0 on the trees whose dynamics the
  // island's do not read; a release's: the other trees' unconstrained dynamics there).
  // mode_before and mode_after are the whole modes.
  Island island;
};

// Mode vector fields already evaluated, for events made one after another at shared states (a
// simultaneous group's orderings: every first event reads F at the group's state, and an event's
// F⁺ is the next event's F⁻). Get(x, mode, island) returns ModeVectorField(x, mode, island),
// evaluated once per distinct (x's bits, mode's contacts, island's trees) and kept; Keep stores one
// the caller already has from the same evaluation (EvaluateMode at x in mode on the island). Valid while data's inputs (ctrl, applied forces,
// mocap motion) stay those of the group: one memo per group. Finding an entry allocates nothing
// (Get's answer from the memo allocates only the copy it returns).
class FieldMemo {
 public:
  Eigen::VectorXd Get(const Model& model, Data& data, const State& x, const Mode& mode,
                      const Island* island = nullptr);
  void Keep(const State& x, const Mode& mode, const ModeDynamics& dyn, const Island* island = nullptr);
  int evaluations() const { return evaluations_; }  // the ModeVectorField calls Get made
  int hits() const { return hits_; }                 // the calls answered from the memo

 private:
  struct Entry {
    State x;
    Mode mode;
    std::vector<char> trees;  // the island's (Island::tree); empty: the whole model
    Eigen::VectorXd f;
  };
  const Entry* Find(const State& x, const Mode& mode, const Island* island) const;
  std::vector<Entry> entries_;
  int evaluations_ = 0, hits_ = 0;
};

// Touchdown of contact `id` (not in the mode) at x: the impact over the mode's contacts, the
// trigger and every other point within simultaneous_gap of touching, each with e of its pair in
// `restitution` (read only); the mode after (sustained contacts whose normal force is not
// pulling); DΔ, F⁻, F⁺, ∇g = (J_n, 0) and Ξ. complete = false leaves out DΔ's configuration
// block and F⁺ (most of the cost). `fields` (optional): F⁻ and F⁺ are taken from it, and the
// mode evaluations that give them are kept in it; the result is the same as without (a complete
// event without one keeps its own: F⁺ is its release check's last evaluation). `probes` (optional,
// ProbeMemo, impact.h): DΔ's probe passes shared with the other events of x's moment, the same bits.
// `take_over` (optional): the trigger takes over from contacts of the mode (a cylinder's rim point
// from its held corners, rigid_simulator.cc): `leaving` (contacts of `mode`) leave it at the event —
// no impulse, not in the mode after — while F⁻ is the flow of `mode` with them (mode_before keeps
// them); a non-empty `grad_h` (tangent, ndx, ∂h/∂t = 0) is the guard crossed, in place of the
// trigger's gap, for Ξ and the transversality.
struct TakeOver {
  std::vector<ContactId> leaving;
  Eigen::VectorXd grad_h;
};
RigidEvent TouchdownEvent(const Model& model, Data& data, const RestitutionTable& restitution,
                          const State& x, const Mode& mode,
                          const ContactId& id, double simultaneous_gap, double force_tol,
                          bool complete = true, FieldMemo* fields = nullptr, ProbeMemo* probes = nullptr,
                          const TakeOver* take_over = nullptr);

// The start of a release of contact k of a mode at x (ReleaseEventAt): the event's header and the
// mode split at the event's island.
struct ReleaseStart {
  // kind kLiftoff, the time with a bracket of zero width, x⁻ = x⁺ = x, mode_before, the contact,
  // mode_index k, its pair's e, its island (islands.h)
  RigidEvent ev;
  Mode local;  // the island's part of the mode (RestrictMode)
  Mode rest;   // the rest of the mode
  int k = -1;  // the contact's index in local
};

// One start for every release (LiftoffEvent, KinematicReleaseEvent, the hook's release at an input
// jump): contact k of `mode` at x, its pair's e read from `restitution`. Reads nothing else;
// evaluates nothing.
ReleaseStart ReleaseEventAt(const Model& model, const RestitutionTable& restitution, const State& x, const Mode& mode,
                            int k);

// The island's mode before a release, evaluated (LiftoffEvent, the hook's release at an input jump):
// dyn = EvaluateMode of start.local at x (data.main() left at x's configuration) and F⁻ = (v, a,
// act_dot) from it. Writes start.ev.point (the contact's point there) and start.ev.feature (its held
// feature, else where the geometry has it: FeatureAt).
struct ReleaseBefore {
  ModeDynamics dyn;
  Eigen::VectorXd f_minus;
};
ReleaseBefore EvaluateBeforeRelease(const Model& model, Data& data, const State& x, ReleaseStart& start);

// The mode after the release that `start` begins (ReleaseEventAt) at x, one rule for every release:
// with `before` (start.local's EvaluateMode at x), a sticking contact that still presses when let
// slip becomes frictionless (kind kSlip); otherwise (or with before null: a kinematic release, no
// slip tried) it leaves; then the contacts whose force pulls leave (ReleasePulling). Writes
// start.ev's kind (slip only), released, rank_after and mode_after = MergeModes(start.rest, the
// island's mode after); returns the island's mode after (F⁺'s mode). Evaluates the mode on data
// (data.main() is left at x's configuration).
Mode ReleaseModeAfter(const Model& model, Data& data, const State& x, ReleaseStart& start, const ModeDynamics* before,
                      double force_tol);

// Release of contact k of the mode at x (its normal force reached zero): a sticking contact that
// still presses when let slip becomes frictionless (kind kSlip), otherwise it leaves the mode
// (kLiftoff). DΔ = I, ∇g = ∂λ_n/∂x, Ξ = I + (F⁺ − F⁻)∇gᵀ/(∇gᵀF⁻).
// complete = false leaves out ∇g (2·ndx mode evaluations) and F⁺; the transversality is then the
// guard's directional derivative along F⁻. `restitution` is only recorded (RigidEvent::restitution).
RigidEvent LiftoffEvent(const Model& model, Data& data, const RestitutionTable& restitution,
                        const State& x, const Mode& mode, int k, double force_tol,
                        bool complete = true);

// The geometric feature of contact k of the mode changes at x: its feature guard `guard`
// (FeatureGuards, contact_features.h) reached zero. No reset; the mode after holds the contact on
// guard.to, less the contacts whose force then pulls (ReleasePulling); ∇h = FeatureGuardGradient,
// Ξ = I + (F⁺ − F⁻)∇hᵀ/(∇hᵀF⁻), transversality_rel the kinetic-energy cosine of ∇h and v
// (KineticTransversality). Kind kFeature, or kLiftoff when the switch releases the contact itself (a
// ball too fast to follow an edge's curvature leaves at the edge). Complete on return.
RigidEvent FeatureEvent(const Model& model, Data& data, const RestitutionTable& restitution,
                        const State& x, const Mode& mode, int k, const FeatureGuard& guard, double force_tol);

// Release of contact k of the mode at x declared kinematically: MuJoCo's contact has come apart
// (gap beyond the hook's release_gap) while the rigid force never crossed zero. A liftoff with
// DΔ = I and the touchdown guard's gradient (J_n, 0): Ξ = I + (F⁺ − F⁻)∇gᵀ/(∇gᵀF⁻), its DΔ kept
// factored (ResetJacobian::NoReset: nothing nv²). RigidEvent::kinematic_release is set.
// complete = false leaves out F⁺ (a mode evaluation) and Ξ's assembly: xi holds f_minus, grad_g,
// the transversality (exact), transversality_rel and dt_dx; CompleteEvent fills in the rest, the
// same bits. `restitution` is only recorded (RigidEvent::restitution).
RigidEvent KinematicReleaseEvent(const Model& model, Data& data, const RestitutionTable& restitution,
                                 const State& x, const Mode& mode, int k, double force_tol,
                                 bool complete = true);

// A touchdown's contacts beyond its mode: the trigger and every contact that touched at the same
// instant (the impact's candidates not in mode_before); 0 for other events They are the candidates' last
// entries (TouchdownEvent appends them after the held ones).
int JoiningContacts(const mjModel* m, const RigidEvent& ev);

// Assembles Ξ of an event made with complete = false, at its own x⁻ and modes. A liftoff of a
// contact without a held feature within 2·fd_step of a boundary of its geometric features (the
// engine hook's release of a ball at a box edge, where λ_n jumps) takes the boundary as its guard
// and F⁻ on the feature it leaves, as FeatureEvent does, and records feature_before/after; `restitution`
// (the table the event was made with) and data's inputs (ctrl, applied forces) must be those of
// the event. No-op when the event is complete. `fields` (optional, FieldMemo): F⁺ from it;
// `probes` (optional, ProbeMemo): DΔ's probe passes.
void CompleteEvent(const Model& model, Data& data, const RestitutionTable& restitution, RigidEvent& ev,
                   FieldMemo* fields = nullptr, ProbeMemo* probes = nullptr);

// Removes from the mode every contact whose normal force at x is below −force_tol (a sticking
// one is first let slip), most negative first; returns those removed and reports the rank.
// `fields` (optional): the last evaluation, F at x in the mode returned, is kept in it.
// `island` (optional, holding the mode's contacts): the evaluations on it (EvaluateMode's island:
// the same normal forces, F on the island).
std::vector<ContactId> ReleasePulling(const Model& model, Data& data, const State& x, Mode& mode,
                                      double force_tol, int* rank, FieldMemo* fields = nullptr,
                                      const Island* island = nullptr);

// ReleasePulling on the island of `seed` alone (islands.h: the other islands' normal forces do not
// depend on its contacts), the mode's order kept: the same as ReleasePulling on the whole mode
// when no contact outside the island pulls (a mode the hook keeps: its guards release those).
// Evaluates the island's mode only (the whole mode when the island is every tree).
std::vector<ContactId> ReleasePullingInIsland(const Model& model, Data& data, const State& x, Mode& mode,
                                              const ContactId& seed, double force_tol);

// 1e-9 × the model's mean body weight (N): below this a normal force counts as zero.
double DefaultForceTolerance(const mjModel* m);

}  // namespace saltation

#endif  // SALTATION_EVENTS_H_
