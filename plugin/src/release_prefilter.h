// The release pre-filter of the hook's per-step rigid-force guard (issue 15): which groups of the
// mode's contacts (sharing no kinematic tree) are far from release, so that their rigid solve (the
// rows, J M⁻¹ Jᵀ, λ_n) can be skipped at this step.
//
// A liftoff is λ_n (the rigid normal force) going from > force_tol to < −force_tol. MuJoCo's soft
// normal force f_n is not λ_n: λ = f − (J M⁻¹ Jᵀ)⁻¹ c̈, c̈ the contacts' acceleration under MuJoCo's
// soft motion, which is zero in steady contact (there the two agree) and large in transients
// (measured: f_n 30× the contact's weight share while λ_n < 0 after an impact on bumps). So a
// contact is far from release only in steady contact, decided against its share of the weight of
// the trees it touches (W_tree / the mode's contacts on that tree, the larger of its two sides):
//   - at its last solve λ_n and f_n agreed, |λ − f| ≤ steady × share, or λ_n moved by no more than
//     that since the solve the step before (statically indeterminate contacts, a body lying on
//     several, share the load differently in the two models); and λ ≥ factor × share,
//   - f_n has not moved since: |f_n − f_n(last solve)| ≤ steady × share, and f_n ≥ factor × share,
//   - the mode is the one of the last solve, MuJoCo holds the point among its constraints, and
//     neither geom is a height field (its prisms' normals jump from one to the next: λ_n jumps).
// A group (contacts joined by the trees they touch; every contact one group when equality
// constraints, cross-tree tendon armature or flexes couple trees) is skipped when all of its
// contacts are far. factor = 0.5 and steady = 0.05 are validated, not derived: the hook's events
// are the same with the filter on and off on every model of the suite (prefilter_test), and a
// looser filter changes them. Without gravity there is no scale: nothing is ever far.
//
//   ReleasePrefilter (the model, force_tol, enabled)
//   Decide   (d after mj_step: its contact list and efc_force; the mode's contacts and their points
//            in d's list) => skip[k] for each contact, and force[k] = its last solved λ_n where
//            skipped (> force_tol: "positive before" for the next step's liftoff test); returns the
//            number skipped
//   Solved   (the mode's contacts, skip, λ_n of the solved ones in force) => remembered for the
//            next Decide, with this step's f_n
//   Rename   (from, to) => the remembered mode, when it is `from`, becomes `to` (the same contacts,
//            their anchors moved to their points: FollowHeldPoints)
//
// Reads the model and d; writes only its own state and the outputs. Allocates nothing once the
// mode's size has been seen.
#ifndef SALTATION_RELEASE_PREFILTER_H_
#define SALTATION_RELEASE_PREFILTER_H_

#include <mujoco/mujoco.h>

#include <Eigen/Dense>
#include <vector>

#include "saltation/contacts.h"

namespace saltation {

class ReleasePrefilter {
 public:
  static constexpr double kFactor = 0.5, kSteady = 0.05;

  ReleasePrefilter(const mjModel* m, double force_tol, bool enabled);

  int Decide(const mjModel* m, const mjData* d, const std::vector<ContactId>& contacts,
             const std::vector<ContactPoint>& points, const std::vector<int>& match, std::vector<char>& skip,
             Eigen::VectorXd& force);
  void Solved(const std::vector<ContactId>& contacts, const std::vector<char>& skip, const Eigen::VectorXd& force);
  void Rename(const std::vector<ContactId>& from, const std::vector<ContactId>& to);

 private:
  int RootOf(const mjModel* m, int geom) const { return m->body_rootid[m->geom_bodyid[geom]]; }
  int Find(int b);

  bool enabled_ = false, one_group_ = false;
  double force_tol_ = 0;
  std::vector<double> root_weight_;  // per body: its subtree's weight when it is a tree's root
  std::vector<char> hfield_;         // per geom: a height field
  // per contact of the remembered mode: λ_n and f_n at its last solve, this step's f_n and share
  std::vector<ContactId> mode_;
  std::vector<double> lambda_, lambda_change_, f_solved_, f_, share_;
  std::vector<long> solved_at_;  // the Decide call of each contact's last solve
  long calls_ = 0;
  bool mode_known_ = false;
  std::vector<int> count_, parent_, group_far_;  // scratch per body (root): contacts, union–find, far
};

}  // namespace saltation

#endif  // SALTATION_RELEASE_PREFILTER_H_
