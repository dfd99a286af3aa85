// Impact reset with restitution and its Jacobian DΔ (theory.md §4).
//
// For a set S of contacts taking an impulse, rows J (each contact's normal row, plus its two
// tangent rows for condim ≥ 3, plus MuJoCo's equality rows), and per-row targets τ:
//
//   M (v⁺ − v⁻) = Jᵀ Λ,   J v⁺ = τ,   τ_normal = −e·min(J_n v⁻, 0),  τ_tangent = τ_equality = 0
//   Λ = (J M⁻¹ Jᵀ)⁺ (τ − J v⁻),   q⁺ = q⁻
//
// On a surface moved by a prescribed motion (Options::mocap_motion) every J v above is the relative
// velocity J v + b, b = SurfaceVelocity (mode_dynamics.h), so the targets are J v⁺ + b = −e (J v⁻ + b)
// on normal rows and 0 on tangent rows; normal_velocity_minus/plus are then relative too.
//
// Which contacts take an impulse is a complementarity problem over the candidates: per contact
// Λ_n ≥ 0, J_n v⁺ − τ_n ≥ 0, one of the two zero. A contact that would need a pulling impulse is
// released by the impact itself. SolveImpact solves it by an active-set iteration (the candidate
// sets are small) and reports the sustained contacts after the impact (J_n v⁺ ≈ 0).
#ifndef SALTATION_IMPACT_H_
#define SALTATION_IMPACT_H_

#include <Eigen/Dense>
#include <vector>

#include "saltation/contacts.h"
#include "saltation/islands.h"
#include "saltation/mode_dynamics.h"
#include "saltation/model.h"
#include "saltation/restitution.h"
#include "saltation/tangent.h"

namespace saltation {

struct ImpactResult {
  Eigen::VectorXd qvel_plus;                  // v⁺ (nv)
  std::vector<ContactId> candidates;          // every contact considered
  std::vector<bool> in_impulse_set;           // per candidate: took a normal impulse (S)
  Eigen::VectorXd normal_impulse;             // Λ_n per candidate (≥ 0)
  Eigen::VectorXd normal_velocity_minus;      // J_n v⁻ per candidate
  Eigen::VectorXd normal_velocity_plus;       // J_n v⁺ per candidate
  std::vector<double> restitution;            // e per candidate (the table's, for its pair)
  Mode sustained;                             // candidates with J_n v⁺ ≈ 0 after the impact
  // ½ vᵀ M v of the trees the candidates reach (islands.h: the whole model's for a single robot;
  // the other trees' energy, untouched by the impact, is left out)
  double kinetic_energy_minus = 0;            // ½ v⁻ᵀ M v⁻
  double kinetic_energy_plus = 0;             // ½ v⁺ᵀ M v⁺
  int rank = 0;                               // rank of J_S M⁻¹ J_Sᵀ
  int nrow = 0;                               // rows of J_S
  int iterations = 0;

  // the contacts of S
  std::vector<ContactId> ImpulseSet() const;
};

// Solves the impact complementarity problem at x⁻ over the candidate contacts, each with e of its
// geom pair in `restitution` (mocap bodies placed at x⁻.time, ApplyMocapMotion). Every function
// below runs MuJoCo's passes on the trees its contacts reach alone (IslandOf of them, the others
// asleep: island_passes.h), so an impact among many bodies costs its island; v⁺ = v⁻ off it.
ImpactResult SolveImpact(const Model& model, Data& data, const RestitutionTable& restitution,
                         const State& x_minus, const std::vector<ContactId>& candidates);

// v⁺ for a fixed impulse set at configuration qpos (the impact map with S held fixed), with the
// mocap bodies where data.main() has them (and their velocities at its time). method:
// how J M⁻¹ Jᵀ is solved (the pseudo-inverse unless a caller differentiating the map fixes the
// one its center chose, PsdSolver).
Eigen::VectorXd ImpactVelocity(const Model& model, Data& data, const RestitutionTable& restitution,
                               const Eigen::VectorXd& qpos,
                               const Eigen::VectorXd& qvel_minus,
                               const std::vector<ContactId>& impulse_set, int* rank = nullptr,
                               PsdSolver::Method method = PsdSolver::Method::kPseudoInverse);

// DΔ of an impact: q⁺ = q⁻ gives the identity blocks; the velocity blocks are
//   ∂v⁺/∂v⁻ = I − M⁻¹Jᵀ (J M⁻¹ Jᵀ)⁺ (I + E) J      (closed form, E = restitution of the rows)
//   ∂v⁺/∂q  = the impact map's derivative in the tangent configuration, S fixed, on the dofs of the
//             trees S reaches (islands.h; the other columns are exactly zero), by `method`:
//     kEquations  the impact's equations M Δv = Jᵀ Λ, J v⁺ + b = −E (J v⁻ + b) differentiated at
//                 the centre: central differences of the products Jᵀ Λ − M Δv and J (v⁺ + E v⁻) +
//                 (1 + E) b at fixed vectors (per column two position passes of the impact's pairs
//                 and M, no factorisation, on the island's trees alone: island_passes.h), then one
//                 solve with the centre's M and J M⁻¹ Jᵀ. Valid
//                 when the targets are consistent (v⁺ meets every row, also for a rank-deficient
//                 J M⁻¹ Jᵀ: a body landing flat on several contacts); otherwise kImpactMaps is taken.
//     kImpactMaps central differences of ImpactVelocity (the whole map, a factorisation and a
//                 J M⁻¹ Jᵀ solve by the centre's method per probe): the reference, about 4× dearer.
// (this block is never dropped: it carries how the impact direction turns with the configuration
// and is essential for articulated robots). Writes data.main() and data.aux().
enum class ConfigurationBlockMethod { kEquations, kImpactMaps };

// kEquations' probe passes shared by the impacts of one moment (issue 15: a simultaneous group's
// members in both orderings). Every event of the moment has its configuration qpos (an impact moves
// velocities only), so their ∂v⁺/∂q probe the same configurations q ⊕ ±ε eᵢ, and what a probe
// reads there — the points of the contacts' geom pairs, each point's rows and surface velocity
// (ContactRows, SurfaceVelocity), the equality rows and M — depends on the configuration alone,
// not on the event's velocities, impulse set or mode. The memo makes one pass per probe for every
// pair of a cluster (the contacts given with its island) and answers each event's probe from it:
// its contacts matched to the points (MatchContacts, as ModeConstraints does), their rows gathered.
// Clusters on disjoint trees are probed together (a pass moves the k-th dof of every cluster's
// island: MuJoCo's passes are per tree, so each cluster reads the bits of its own probe) unless the
// model has equality rows or body transmissions (their position stage is the whole model's).
// Served: an impact at qpos, the centre's time and mocap poses (those of the first impact served),
// on trees of one cluster, its contacts on the cluster's pairs, none on a held feature nor let slip
// on a point with friction; any other probe is made as without a memo (counted in unserved()).
// The answers are the bits of ImpactResetJacobian without a memo (tests/simultaneous_test.cc).
// Memory: an entry holds its points' rows nv wide (and M), so a cluster spanning a settled pile
// would store 2·|dofs| × rows × nv doubles: the memo stops storing once it holds max_bytes, and a
// probe whose pass is not stored yet is then made as without a memo (unserved; the same bits).
// Written by ImpactResetJacobian; reads the model.
class ProbeMemo {
 public:
  static constexpr size_t kDefaultMaxBytes = size_t{64} << 20;
  // clusters: the islands of the moment's events (IslandOf), each with the contacts whose geom
  // pairs its impulse sets may hold (a mode's and a group's)
  ProbeMemo(const Model& model, const Eigen::VectorXd& qpos, std::vector<Island> clusters,
            const std::vector<ContactId>& contacts, size_t max_bytes = kDefaultMaxBytes);
  int passes() const { return passes_; }      // position passes made
  int hits() const { return hits_; }          // probes answered from them
  int unserved() const { return unserved_; }  // probes made as without a memo
  size_t bytes() const { return bytes_; }     // what the stored passes hold

 private:
  friend class ProbeMemoAccess;  // impact.cc
  struct Entry {                 // one cluster at one probe
    bool made = false;
    std::vector<ContactPoint> points;  // the cluster's pairs' points
    std::vector<int> row_of;           // each point's first row in `rows`
    RowMatrix rows;                    // every point's rows (ContactRows), nv columns
    Eigen::VectorXd surface;           // every point's SurfaceVelocity, as `rows`
    RowMatrix equality;                // EqualityRows
    Eigen::VectorXd M;                 // MuJoCo's sparse M (d->M)
  };
  Eigen::VectorXd qpos_;
  bool centred_ = false;               // time_ and mocap_ taken
  double time_ = 0;
  Eigen::VectorXd mocap_;
  std::vector<Island> clusters_;
  std::vector<std::vector<ContactId>> pairs_;  // per cluster: one contact per geom pair
  bool together_ = false;                      // clusters probed in the same passes
  std::vector<Entry> entries_;                 // (cluster, 2·k + sign) → cluster · slots_ + slot
  int slots_ = 0;
  int passes_ = 0, hits_ = 0, unserved_ = 0;
  size_t bytes_ = 0, max_bytes_ = kDefaultMaxBytes;
};

struct ResetJacobian {
  // The velocity blocks ∂v⁺/∂q and ∂v⁺/∂v⁻. Restricted (Restricted()): only the rows and columns
  // `dofs` are stored (|dofs| × |dofs|, block index a being dof dofs[a]; the rest is 0 and I
  // exactly), so an event among many bodies holds its island's size, not nv²; otherwise nv × nv.
  // Read entries by the model's indices through DvDq/DvDv, whole blocks through DvDqDense/DvDvDense.
  Eigen::MatrixXd dv_dq;
  Eigen::MatrixXd dv_dv;
  int nv = 0;
  int na = 0;
  ConfigurationBlockMethod dv_dq_method = ConfigurationBlockMethod::kEquations;  // the one taken
  // The degrees of freedom DΔ moves, increasing: off them the rows and columns of dv_dq are zero
  // and those of dv_dv the identity's, exactly (an impact's: the dofs of the trees its rows reach,
  // islands.h). Products with DΔ and Ξ (saltation_matrix.h) then cost the island's size, not nv².
  // all_dofs: nothing is known, every dof counts (Identity's: callers fill its blocks in by hand).
  std::vector<int> dofs;
  bool all_dofs = true;

  // the full DΔ (ndx × ndx): [[I, 0, 0], [dv_dq, dv_dv, 0], [0, 0, I]]
  Eigen::MatrixXd Dense() const;
  static ResetJacobian Identity(int nv, int na);
  // DΔ = I stored as nothing: restricted to no dofs (blocks 0 × 0), for events without a reset
  // (releases, slips, feature changes): their Ξ = I + u∇gᵀ then holds O(ndx), not nv²
  static ResetJacobian NoReset(int nv, int na);
  // whether DΔ's restriction to `dofs` stands for all of it (not all_dofs, and fewer than nv)
  bool Restricted() const { return !all_dofs && static_cast<int>(dofs.size()) < nv; }
  // entries by the model's dof indices (0 ≤ r, c < nv), and the nv × nv blocks
  double DvDq(int r, int c) const;
  double DvDv(int r, int c) const;
  Eigen::MatrixXd DvDqDense() const;
  Eigen::MatrixXd DvDvDense() const;
};
// probes (optional, ProbeMemo): kEquations' probe passes shared with the moment's other impacts.
ResetJacobian ImpactResetJacobian(const Model& model, Data& data, const RestitutionTable& restitution,
                                  const State& x_minus, const std::vector<ContactId>& impulse_set,
                                  ConfigurationBlockMethod method = ConfigurationBlockMethod::kEquations,
                                  ProbeMemo* probes = nullptr);

// D_tΔ of an impact on a moving surface: ∂v⁺/∂t at fixed x⁻ (nv), by central differences in time
// (step Options::fd_step) of ImpactVelocity with the mocap bodies moved by Options::mocap_motion;
// zero without a motion. Leaves the mocap bodies at x⁻.time.
Eigen::VectorXd ImpactResetTimeDerivative(const Model& model, Data& data, const RestitutionTable& restitution,
                                          const State& x_minus, const std::vector<ContactId>& impulse_set);

// Finite-difference twin: DΔ (ndx × ndx) by central differences of the whole impact map
// (SolveImpact re-solved at every perturbed state, so S is free to change).
Eigen::MatrixXd ImpactResetJacobianFD(const Model& model, Data& data, const RestitutionTable& restitution,
                                      const State& x_minus,
                                      const std::vector<ContactId>& candidates, double eps = 1e-6);

// Plastic impact projection P = I − M⁻¹Jᵀ(J M⁻¹ Jᵀ)⁺J (nv × nv) for the rows of `contacts` at
// qpos: v⁺ = P v⁻ for e = 0 with every contact in S.
Eigen::MatrixXd PlasticProjection(const Model& model, Data& data, const Eigen::VectorXd& qpos,
                                  const std::vector<ContactId>& contacts);

// Joint-space inertia M (nv × nv) at qpos.
Eigen::MatrixXd MassMatrix(const Model& model, Data& data, const Eigen::VectorXd& qpos);

}  // namespace saltation

#endif  // SALTATION_IMPACT_H_
