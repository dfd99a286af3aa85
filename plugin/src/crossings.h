// The hook's guards at each step and the crossings among them: what changed sign in a step and
// where, on MuJoCo's own re-simulated sub-steps.
//
//   Evaluate  (MuJoCo's contact list after a step, x_k, the mode, the previous guards)
//             => StepGuards at x_k: every point's gap, the inactive points' gap rates, the mode's
//                rigid normal forces λ_n (J̇v by a difference of the rows over the step); skipped
//                while every mode contact is far from release by MuJoCo's own normal force
//                (release_prefilter.h), the previous step's rows then re-formed at x_{k−1} when
//                the next solve needs them. The difference only ever takes rows of the same
//                geometric feature (contact_features.h: a sphere on a box's face/edge/vertex, on a
//                capsule's cylinder/cap): when a mode contact's feature at x_k is not its feature
//                at x_{k−1}, the previous rows are re-formed at x_{k−1} on x_k's feature, extended
//                beyond its region (FeaturePoint) — a feature change inside a step is no crossing
//   Detect    (guards at x_{k−1} and x_k, the mode, the tracker's hysteresis, the saved x_{k−1})
//             => Crossings: touchdowns (gap + to −), liftoffs (λ_n + to −, beyond force_tol),
//                kinematic releases (a mode contact apart by more than release_gap). A touchdown's
//                point at x_k continues the point of x_{k−1} whose anchor, carried over the step
//                at its rate, lands nearest (point_following.h: where its pair has several points
//                outside the mode, one of them apart; the rates from the pair's points at x_{k−1}'s
//                configuration moved kAnchorRateProbe·dt along its velocity), not the nearest start
//                anchor: a sliding point's end can lie nearer to a neighbour's start anchor
//   Rename    (the mode before and after its anchors followed their points, the guards at x_k)
//             => the guards' copies of the mode (mode_ids, solved_ids) and the release pre-filter's
//                remembered mode renamed alike: the next step knows them as the same contacts
//   Localize  (a crossing, the saved x_{k−1} and x_k) => its time inside the step and the
//             re-simulated MuJoCo state there (LocateCrossing on the exact guard). A touchdown
//             seen at both ends follows its point through the step: the guard at sub-step τ is
//             the point nearest to the anchor moved linearly from the start point's to the end
//             point's (AnchorAt), and the crossing's id is that identity at the located time. Both guards
//             read the inputs of the step re-simulated (LoadInputs, into data's mjData: forces,
//             controls, the mocap poses the touchdown's distance depends on). A liftoff's
//             guard is λ_n of the mode restricted to its contact's island: a liftoff localised
//             again on a mode whose restriction is the one it was localised on (an event of another
//             island earlier in the step changed the mode) keeps its result, which a second search
//             of the same guard would reproduce bit for bit
//             A liftoff the step's inputs do not bracket, whose λ_n is < −force_tol at x_k with
//             the next step's inputs, is an input jump: located at x_k exactly (input_jump)
//
// Reads the model; writes data's workspaces, the Resimulator's data and its own scratch.
#ifndef SALTATION_CROSSINGS_H_
#define SALTATION_CROSSINGS_H_

#include <Eigen/Dense>
#include <vector>

#include "contact_tracking.h"
#include "island_solve.h"
#include "point_following.h"
#include "release_prefilter.h"
#include "resimulation.h"
#include "saltation/contacts.h"
#include "saltation/hook_event.h"
#include "saltation/mode_dynamics.h"
#include "saltation/model.h"

namespace saltation {

// guard values at one step's start state x_k (read from MuJoCo's own contact list); the three
// kept by the hook are reused from step to step, so the per-step path allocates nothing
struct StepGuards {
  bool present = false;
  double time = 0;
  std::vector<ContactPoint> points;    // every point MuJoCo reported
  std::vector<int> match;              // the mode's points among them (−1: lost)
  std::vector<ContactPoint> inactive;  // tracked points outside the mode
  std::vector<double> inactive_rate;   // d gap / dt of each inactive point (from MuJoCo's cvel)
  std::vector<ContactId> mode_ids;     // the mode the next fields refer to
  std::vector<double> mode_gap;        // gap of each mode contact (+inf when MuJoCo lost it)
  std::vector<int> mode_feature;       // the geometric feature of each mode contact at this state
                                       // (FeatureAt; −1 for a pair without features)
  Eigen::VectorXd force;               // rigid λ_n of each mode contact (J̇v by differences); on a
                                       // step the release pre-filter skipped, MuJoCo's f_n (> force_tol)
  RowMatrix J;                         // the rows of the contacts solved (solved_ids; the whole mode's
                                       // with its equality rows when solved_all)
  bool force_valid = false;
  bool rows_valid = false;             // J holds the rows of solved_ids at this state
  bool solved_all = false;
  std::vector<ContactId> solved_ids;
  const SavedStep* at = nullptr;       // the saved state evaluated (the hook's: still x_{k−1} when
                                       // the next step's guards are evaluated)
};

struct Crossing {
  enum Type { kTouchdown, kLiftoff, kRelease } type = kTouchdown;
  ContactId id;
  int k = -1;          // mode index for liftoff / release
  double g0 = 0, g1 = 0;
  // touchdown with both ends read from MuJoCo's contact lists: the guard's rates there seed a
  // cubic Hermite estimate of the crossing that the re-simulated sub-steps then confirm
  bool ends_known = false;
  double rate0 = 0, rate1 = 0;
  // ends_known: the touchdown's point at x_k (id: the point of x_{k−1} it continues; once
  // localised, the identity at the located time, AnchorAt)
  ContactId end;
  double s = 0, lo = 0, hi = 0;
  bool have_x = false;              // x: the re-simulated state at base->time + s
  State x;
  const SavedStep* base = nullptr;  // the sub-step interval starts at this saved state
  bool valid = true;
  // a touchdown of a pair MuJoCo lists only once it touches (untracked: a height field, …): when
  // the rigid model's own guard does not bracket it inside the step, it is taken at the step's end
  // and flagged proxy (onset), never dropped
  bool onset = false;
  bool proxy = false;
  // a liftoff at the step's start x_k: detected (λ_n > force_tol at x_{k−1}), ≥ 0 at x_k with the
  // inputs of the step [x_{k−1}, x_k] (no crossing inside it), < −force_tol at x_k with the next step's
  // inputs (they changed between the steps: MuJoCo's mjData was written in between). base = the
  // saved x_k, s = lo = hi = 0, x = x_k
  bool input_jump = false;
  // the liftoff guard the last Localize searched: the mode restricted to the contact's island and
  // the contact's index there
  bool localized = false;
  Mode guard_mode;
  int guard_k = -1;
  double time() const { return base ? base->time + s : 0; }
};

class CrossingFinder {
 public:
  CrossingFinder(const Model& model, Data& data, Resimulator& resim, const HookOptions& options, double force_tol);
  // steps whose rigid solve the pre-filter skipped, of those evaluated with a mode
  long skipped() const { return skipped_; }
  long evaluated() const { return evaluated_; }

  void Evaluate(const mjData* d, const SavedStep& cur, const Mode& mode, const StepGuards* previous, double dt,
                StepGuards& out);
  // before.at: the saved x_{k−1} (the anchors' rates are re-simulated from it); dt: the step
  std::vector<Crossing> Detect(const StepGuards& before, const StepGuards& after, const Mode& mode,
                               const ContactTracker& tracker, long step, double dt);
  void Localize(Crossing& c, const Mode& mode, const SavedStep& prev, const SavedStep& cur, double dt);
  // from, to: the same contacts in the same order, their anchors moved (FollowHeldPoints)
  void Rename(const std::vector<ContactId>& from, const std::vector<ContactId>& to, StepGuards& g);

 private:
  // scratch of the per-step rigid-force evaluation
  struct Scratch {
    ConstraintSet set, previous_set;  // the solved contacts' rows; the previous step's re-formed
    Eigen::VectorXd rhs, lambda, mocap_pos, mocap_quat;
    std::vector<char> skip;  // per mode contact: its group's solve skipped (the pre-filter)
    IslandSolver solver;  // J M⁻¹ Jᵀ block by block
    std::vector<ContactId> lost;          // mode contacts MuJoCo's list lacks (FillLostPoints)
    std::vector<ContactPoint> collided;   // their pairs' points from the narrow phase
    std::vector<ContactId> held;          // the solved contacts with x_k's features held
    std::vector<ContactPoint> hint_points;
  };

  // Mode contacts missing from MuJoCo's list (a step retaken on the user's gaps lists only the
  // touching points, not the band's): their pairs' points from the narrow phase at d's
  // kinematics (CollidePairs, the widened band), appended to g.points and matched.
  void FillLostPoints(const mjData* d, const Mode& mode, StepGuards& g);

  // the previous guards' rows of `ids` at their state x_{k−1} (when that step did not form them);
  // `points` (x_{k−1}'s) lend the contacts without a feature held their point and those with one
  // (ids[k].feature ≥ 0: FeaturePoint at x_{k−1}) their first tangent
  const RowMatrix* PreviousRows(const StepGuards& previous, const std::vector<ContactId>& ids,
                                const std::vector<ContactPoint>& points);
  // the anchors' rates of `pair`'s points outside the mode at x_{k−1} (before.inactive): its
  // points at before.at's configuration moved kAnchorRateProbe·dt along its velocity (kinematics
  // and the pair's narrow phase only, with the step's mocap poses), into carried_
  void CarryPair(const StepGuards& before, const ContactId& pair, double dt);
  // the solved contacts whose feature at x_k (g.mode_feature) differs from x_{k−1}'s, held on
  // x_k's feature in scratch_.held, with x_{k−1}'s points in scratch_.hint_points lending them x_k's
  // first tangent; false when no feature changed
  bool HoldChangedFeatures(const StepGuards& previous, const StepGuards& g, const Mode& mode);

  const Model& model_;
  Data& data_;
  Resimulator& resim_;
  const HookOptions& options_;
  double force_tol_;
  Scratch scratch_;
  ReleasePrefilter prefilter_;
  long skipped_ = 0, evaluated_ = 0;
  std::vector<ContactPoint> guard_points_;  // the localisation's guard evaluations
  std::vector<ContactId> guard_ids_;
  RowMatrix guard_rows_;  // the guard's slope row
  std::vector<int> guard_match_;
  CarriedAnchors carried_;  // Detect's: the start points' anchors carried over the step
  Eigen::VectorXd probe_qpos_;  // CarryPair's configuration
};

}  // namespace saltation

#endif  // SALTATION_CROSSINGS_H_
