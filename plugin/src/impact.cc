#include "saltation/impact.h"

#include "mujoco_stages.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include "saltation/errors.h"
#include "saltation/islands.h"
#include "island_passes.h"
#include "own_points.h"

namespace saltation {
namespace {

// e of each contact's geom pair in the table
std::vector<double> PairRestitutions(const RestitutionTable& restitution, const std::vector<ContactId>& ids) {
  std::vector<double> e(ids.size());
  for (size_t k = 0; k < ids.size(); k++) e[k] = restitution.Pair(ids[k].geom1, ids[k].geom2);
  return e;
}

// rows of the contacts selected by `in_set` (each contact's rows, in order), then equality rows;
// `restitution_rows` gets e (per contact) for normal rows and 0 for the others; with `columns`
// (increasing dofs, an island's) only those columns of the rows (J is 0 on the others)
struct SelectedRows {
  RowMatrix J;
  Eigen::VectorXd surface;  // b: the rows' velocity of prescribed surfaces (J v + b is relative)
  Eigen::VectorXd restitution_rows;
  std::vector<int> normal_row;  // per candidate, −1 when not selected
};

SelectedRows SelectRows(const Model& model, const mjData* d, const ConstraintSet& all,
                        const std::vector<double>& e, const std::vector<bool>& in_set,
                        const std::vector<int>* columns = nullptr) {
  const int ncand = static_cast<int>(all.points.size());
  const int neq = all.J.rows() - all.ncontact_rows;
  int nrow = neq;
  for (int k = 0; k < ncand; k++) nrow += in_set[k] ? ContactRowCount(all.points[k]) : 0;
  SelectedRows sel;
  sel.J.resize(nrow, columns ? static_cast<int>(columns->size()) : model.nv());
  auto copy = [&](int to, int from, int count) {
    if (columns) {
      sel.J.middleRows(to, count) = all.J.middleRows(from, count)(Eigen::all, *columns);
    } else {
      sel.J.middleRows(to, count) = all.J.middleRows(from, count);
    }
  };
  sel.restitution_rows.setZero(nrow);
  sel.surface.setZero(nrow);
  sel.normal_row.assign(ncand, -1);
  int r = 0;
  for (int k = 0; k < ncand; k++) {
    if (!in_set[k]) continue;
    const int count = ContactRowCount(all.points[k]);
    copy(r, all.normal_row[k], count);
    sel.surface.segment(r, count) = SurfaceVelocity(model, d, all.points[k]);
    sel.restitution_rows(r) = e[k];
    sel.normal_row[k] = r;
    r += count;
  }
  copy(nrow - neq, all.J.rows() - neq, neq);
  return sel;
}

// per-row restitution actually applied: none for rows not approaching, none below the bounce
// threshold
Eigen::VectorXd AppliedRestitution(const Model& model, const Eigen::VectorXd& restitution_rows,
                                   const Eigen::VectorXd& Jv) {
  Eigen::VectorXd e = restitution_rows;
  for (int r = 0; r < e.size(); r++) {
    if (!(-Jv(r) >= model.options().min_bounce_speed) || Jv(r) >= 0) e(r) = 0;
  }
  return e;
}

// v⁺ = v⁻ + M⁻¹Jᵀ Λ with Λ = A⁺(τ − J v⁻), τ = −E·min(J v⁻, 0) on normal rows; d holds M(q), on
// the island's trees when it is not whole (SleepOutside's passes: v⁺ − v⁻ is 0 off the island)
Eigen::VectorXd ApplyImpulse(const Model& model, mjData* d, const Island& island, const SelectedRows& sel,
                             const Eigen::VectorXd& v_minus, Eigen::VectorXd* impulse, int* rank,
                             PsdSolver::Method method = PsdSolver::Method::kPseudoInverse) {
  const int nrow = sel.J.rows();
  if (nrow == 0) {
    if (impulse) impulse->resize(0);
    if (rank) *rank = 0;
    return v_minus;
  }
  RowMatrix JMinv;
  Eigen::MatrixXd A;
  ConstraintMass(model.mj(), d, sel.J, JMinv, A);  // J is 0 off the island, and so is J M⁻¹
  const Eigen::VectorXd Jv = sel.J * v_minus + sel.surface;  // relative
  const Eigen::VectorXd target =
      -AppliedRestitution(model, sel.restitution_rows, Jv).cwiseProduct(Jv.cwiseMin(0.0));
  PsdSolver solver;
  solver.Compute(A, model.options().rank_tol, method);
  Eigen::VectorXd lambda;
  solver.Solve(target - Jv, lambda);
  if (impulse) *impulse = lambda;
  if (rank) *rank = solver.rank();
  Eigen::VectorXd dv = JMinv.transpose() * lambda;
  ZeroOutside(island, dv);  // the other trees' factor is stale in d: none of it is read
  return v_minus + dv;
}

// ∂v⁺/∂q on `dofs` (|dofs|², ResetJacobian's island block: its rows off them are exactly zero), by central differences of the whole impact map with S fixed (ImpactVelocity
// at q ± ε eᵢ, each a factorisation of M and a solve with J M⁻¹ Jᵀ by `method`, the centre's).
void ConfigurationBlockByImpactMaps(const Model& model, Data& data, const RestitutionTable& restitution,
                                    const State& x_minus, const std::vector<ContactId>& impulse_set,
                                    PsdSolver::Method method, const std::vector<int>& dofs, double eps,
                                    Eigen::MatrixXd& dv_dq) {
  const mjModel* m = model.mj();
  Eigen::VectorXd dq = Eigen::VectorXd::Zero(m->nv);
  int c = 0;
  for (int i : dofs) {
    dq.setZero();
    dq(i) = eps;
    Eigen::VectorXd qp = x_minus.qpos, qm = x_minus.qpos;
    mj_integratePos(m, qp.data(), dq.data(), 1.0);
    mj_integratePos(m, qm.data(), dq.data(), -1.0);
    const Eigen::VectorXd column =
        (ImpactVelocity(model, data, restitution, qp, x_minus.qvel, impulse_set, nullptr, method) -
         ImpactVelocity(model, data, restitution, qm, x_minus.qvel, impulse_set, nullptr, method)) /
        (2 * eps);
    dv_dq.col(c++) = column(dofs);
  }
}

}  // namespace

ProbeMemo::ProbeMemo(const Model& model, const Eigen::VectorXd& qpos, std::vector<Island> clusters,
                     const std::vector<ContactId>& contacts, size_t max_bytes)
    : qpos_(qpos), clusters_(std::move(clusters)), max_bytes_(max_bytes) {
  const mjModel* m = model.mj();
  pairs_.resize(clusters_.size());
  for (const ContactId& id : contacts) {
    for (size_t c = 0; c < clusters_.size(); c++) {
      if (!clusters_[c].Contains(m, id)) continue;
      std::vector<ContactId>& pairs = pairs_[c];
      if (std::none_of(pairs.begin(), pairs.end(), [&](const ContactId& p) { return p.SamePair(id); })) {
        pairs.push_back(id);
      }
      break;
    }
  }
  // together: clusters on pairwise disjoint trees, with MuJoCo's passes per tree
  together_ = clusters_.size() > 1 && m->neq == 0 && !HasBodyTransmission(m);
  std::vector<char> seen;
  size_t most = 0;
  for (const Island& island : clusters_) {
    most = std::max(most, island.dofs.size());
    if (island.whole) {
      together_ = false;
      continue;
    }
    if (seen.empty()) seen.assign(island.tree.size(), 0);
    for (size_t t = 0; t < island.tree.size(); t++) {
      if (!island.tree[t]) continue;
      if (seen[t]) together_ = false;
      seen[t] = 1;
    }
  }
  slots_ = static_cast<int>(2 * most);
  entries_.resize(clusters_.size() * slots_);
}

// ProbeMemo's bookkeeping (impact.h)
class ProbeMemoAccess {
 public:
  // the cluster serving the probes of an impact at qpos (data.main()'s time and mocap poses) on
  // `island` with `impulse_set`, or −1
  static int Cluster(ProbeMemo& memo, const mjModel* m, const mjData* centre, const Eigen::VectorXd& qpos,
                     const Island& island, const std::vector<ContactId>& impulse_set) {
    if (memo.qpos_.size() != qpos.size() || memo.qpos_ != qpos) return -1;
    Eigen::VectorXd mocap(7 * m->nmocap);
    mocap.head(3 * m->nmocap) = Eigen::Map<const Eigen::VectorXd>(centre->mocap_pos, 3 * m->nmocap);
    mocap.tail(4 * m->nmocap) = Eigen::Map<const Eigen::VectorXd>(centre->mocap_quat, 4 * m->nmocap);
    if (!memo.centred_) {
      memo.centred_ = true;
      memo.time_ = centre->time;
      memo.mocap_ = mocap;
    } else if (memo.time_ != centre->time || memo.mocap_ != mocap) {
      return -1;
    }
    for (size_t c = 0; c < memo.clusters_.size(); c++) {
      const Island& cluster = memo.clusters_[c];
      bool inside = cluster.whole;
      if (!inside && !island.whole) {
        inside = true;
        for (size_t t = 0; t < island.tree.size(); t++) inside &= !island.tree[t] || cluster.tree[t];
      }
      if (!inside) continue;
      for (const ContactId& id : impulse_set) {
        const std::vector<ContactId>& pairs = memo.pairs_[c];
        if (id.feature >= 0 || std::none_of(pairs.begin(), pairs.end(), [&](const ContactId& p) { return p.SamePair(id); })) {
          return -1;
        }
      }
      return static_cast<int>(c);
    }
    return -1;
  }

  // the rows of impulse_set at the probe of `dof` (sign +1: q ⊕ ε e_dof, −1: q ⊖ ε e_dof) of
  // cluster c, on `columns` (null: all), as SelectRows gives them (no restitution); leaves the
  // probe's M in data.aux()->M and sets *passed when a pass ran on data.aux() (its sleep arrays
  // then another island's). False, nothing read, when a contact let slip has a point with friction
  // (its rows are not kept) or when the probe's pass is not stored and the memo is full (no pass
  // made); NumericalError when a contact has no point there (as ModeConstraints).
  static bool Rows(ProbeMemo& memo, const Model& model, Data& data, int c, int dof, int sign,
                   const std::vector<ContactId>& impulse_set, const std::vector<int>* columns, SelectedRows& at,
                   bool* passed) {
    const mjModel* m = model.mj();
    const std::vector<int>& dofs = memo.clusters_[c].dofs;
    const int k = static_cast<int>(std::lower_bound(dofs.begin(), dofs.end(), dof) - dofs.begin());
    const int slot = 2 * k + (sign > 0 ? 0 : 1);
    ProbeMemo::Entry& e = memo.entries_[c * memo.slots_ + slot];
    *passed = false;
    if (!e.made) {
      if (memo.bytes_ >= memo.max_bytes_) return false;  // full: made as without a memo
      *passed = true;
      Pass(memo, model, data, c, k, sign);
    }
    std::vector<int> match;
    MatchContacts(impulse_set, e.points, match);
    int nrow = static_cast<int>(e.equality.rows());
    for (size_t j = 0; j < impulse_set.size(); j++) {
      if (match[j] < 0) throw NumericalError("impact rows changed under a configuration difference");
      const ContactPoint& p = e.points[match[j]];
      if (impulse_set[j].frictionless && p.condim != 1) return false;
      nrow += ContactRowCount(p);
    }
    memo.hits_++;
    at.J.resize(nrow, columns ? static_cast<int>(columns->size()) : m->nv);
    at.surface.resize(nrow);
    at.restitution_rows.setZero(nrow);
    at.normal_row.assign(impulse_set.size(), -1);
    auto copy = [&](int to, const RowMatrix& from, int row, int count) {
      if (columns) {
        at.J.middleRows(to, count) = from.middleRows(row, count)(Eigen::all, *columns);
      } else {
        at.J.middleRows(to, count) = from.middleRows(row, count);
      }
    };
    int r = 0;
    for (size_t j = 0; j < impulse_set.size(); j++) {
      const int i = match[j], count = ContactRowCount(e.points[i]);
      copy(r, e.rows, e.row_of[i], count);
      at.surface.segment(r, count) = e.surface.segment(e.row_of[i], count);
      at.normal_row[j] = r;
      r += count;
    }
    copy(r, e.equality, 0, static_cast<int>(e.equality.rows()));
    at.surface.tail(e.equality.rows()).setZero();
    mju_copy(data.aux()->M, e.M.data(), m->nC);
    return true;
  }

  static void Unserved(ProbeMemo& memo) { memo.unserved_++; }

 private:
  // the pass of probe (k, sign): the k-th dof of cluster c's island moved (and of every cluster's
  // when they are probed together) on data.aux(), whose time and mocap poses are the centre's
  static void Pass(ProbeMemo& memo, const Model& model, Data& data, int c, int k, int sign) {
    const mjModel* m = model.mj();
    std::vector<int> moved;
    for (int o = 0; o < static_cast<int>(memo.clusters_.size()); o++) {
      if ((o == c || memo.together_) && k < static_cast<int>(memo.clusters_[o].dofs.size())) moved.push_back(o);
    }
    Eigen::VectorXd dq = Eigen::VectorXd::Zero(m->nv), q = memo.qpos_;
    Island island = memo.clusters_[c];
    std::vector<ContactId> pairs;
    for (int o : moved) {
      const Island& cluster = memo.clusters_[o];
      dq(cluster.dofs[k]) = model.options().fd_step;
      pairs.insert(pairs.end(), memo.pairs_[o].begin(), memo.pairs_[o].end());
      if (o == c) continue;
      for (size_t t = 0; t < island.tree.size(); t++) island.tree[t] |= cluster.tree[t];
      island.dofs.insert(island.dofs.end(), cluster.dofs.begin(), cluster.dofs.end());
    }
    std::sort(island.dofs.begin(), island.dofs.end());
    mj_integratePos(m, q.data(), dq.data(), sign > 0 ? 1.0 : -1.0);
    mjData* d = data.aux();
    const mjModel* passes = SleepOutside(model, d, island);
    std::vector<ContactPoint> points;
    EvaluatePositionForPairs(model, d, q.data(), pairs, points, /*inertia=*/false, passes);
    mj_tendon(passes, d);  // M without its factorisation, as ConfigurationBlockByEquations' own probes
    mj_makeM(passes, d);
    memo.passes_++;
    const int slot = 2 * k + (sign > 0 ? 0 : 1);
    for (int o : moved) {
      ProbeMemo::Entry& e = memo.entries_[o * memo.slots_ + slot];
      const std::vector<ContactId>& own = memo.pairs_[o];
      e.points.clear();
      for (const ContactPoint& p : points) {
        if (std::any_of(own.begin(), own.end(), [&](const ContactId& id) { return id.SamePair(p.id); })) {
          e.points.push_back(p);
        }
      }
      e.row_of.resize(e.points.size());
      int nrow = 0;
      for (size_t i = 0; i < e.points.size(); i++) {
        e.row_of[i] = nrow;
        nrow += ContactRowCount(e.points[i]);
      }
      e.rows.resize(nrow, m->nv);
      e.surface.resize(nrow);
      for (size_t i = 0; i < e.points.size(); i++) {
        const int count = ContactRowCount(e.points[i]);
        ContactRows(model, d, e.points[i], e.rows.middleRows(e.row_of[i], count), data.work());
        e.surface.segment(e.row_of[i], count) = SurfaceVelocity(model, d, e.points[i]);
      }
      EqualityRows(model, d, e.equality);
      e.M = Eigen::Map<const Eigen::VectorXd>(d->M, m->nC);
      e.made = true;
      memo.bytes_ += sizeof(double) * (e.rows.size() + e.surface.size() + e.equality.size() + e.M.size()) +
                     sizeof(ContactPoint) * e.points.size() + sizeof(int) * e.row_of.size();
    }
  }
};

namespace {

// ∂v⁺/∂q on `dofs` (|dofs|², as above), from the impact's equations differentiated at the centre, S fixed:
//   M (v⁺ − v⁻) = Jᵀ Λ,   J v⁺ + b = −E (J v⁻ + b)          (E: the centre's applied restitution)
// give, along a configuration direction (D: the derivative of M(q), J(q), b(q) alone),
//   M δv = w + Jᵀ δΛ,  w = D[Jᵀ Λ − M Δv],      J δv = s,  s = −D[J (v⁺ + E v⁻) + (1 + E) b]
//   δv = M⁻¹w + M⁻¹Jᵀ (J M⁻¹ Jᵀ)⁺ (s − J M⁻¹ w)
// with w and s by central differences of products at fixed Λ, Δv = v⁺ − v⁻, v⁺, v⁻: each probe is
// the position pass of the pairs and M on data.aux() (no factorisation, no solve with M or J M⁻¹ Jᵀ), and the centre's
// factorisations serve every column. `sel`, `JMinv` and `solver` are the centre's (data.main() holds
// M's factor there). The same derivative as ConfigurationBlockByImpactMaps when the targets are
// consistent (a dependent row's target the same combination of the others': the structural
// dependencies of a body's several contacts under one restitution); false, with nothing written,
// when they are not, or when a probe's pairs give other rows than the centre's (Λ is then a least-squares impulse, and only the impact maps give its
// derivative).
bool ConfigurationBlockByEquations(const Model& model, Data& data, const State& x_minus,
                                   const std::vector<ContactId>& impulse_set, const SelectedRows& sel,
                                   const RowMatrix& JMinv, const PsdSolver& solver, const Island& island,
                                   ProbeMemo* probes, double eps, Eigen::MatrixXd& dv_dq) {
  const std::vector<int>& dofs = island.dofs;
  const mjModel* m = model.mj();
  const int nv = m->nv;
  const int nrow = static_cast<int>(sel.J.rows());
  const int ncol = static_cast<int>(dofs.size());
  mjData* centre = data.main();
  const Eigen::VectorXd& v_minus = x_minus.qvel;
  const Eigen::VectorXd Jv = sel.J * v_minus + sel.surface;
  const Eigen::VectorXd e = AppliedRestitution(model, sel.restitution_rows, Jv);
  const Eigen::VectorXd target = -e.cwiseProduct(Jv.cwiseMin(0.0));
  Eigen::VectorXd lambda;
  solver.Solve(target - Jv, lambda);
  Eigen::VectorXd dv = JMinv.transpose() * lambda;
  ZeroOutside(island, dv);  // d's factor is the island's (ImpactResetJacobian): nothing else is read
  const Eigen::VectorXd v_plus = v_minus + dv;
  // consistent targets: v⁺ meets every row (the pseudo-inverse's least squares does not)
  const Eigen::VectorXd residual = sel.J * v_plus + sel.surface - target;
  const double scale = std::max({1.0, Jv.cwiseAbs().maxCoeff(), v_plus.norm()});
  if (!(residual.cwiseAbs().maxCoeff() <= 1e-9 * scale)) return false;

  // the probes on data.aux(), with the centre's mocap bodies and time, MuJoCo's passes on the
  // island's trees only (the other trees asleep: island_passes.h): every quantity read below is
  // the island's (J's rows, M's island block times Δv, zero off the island)
  mjData* d = data.aux();
  const mjModel* passes = SleepOutside(model, d, island);
  mju_copy(d->mocap_pos, centre->mocap_pos, 3 * m->nmocap);
  mju_copy(d->mocap_quat, centre->mocap_quat, 4 * m->nmocap);
  d->time = centre->time;
  // the moment's shared probes (ProbeMemo), when they serve this impact
  // (its passes step Options::fd_step: not those of a smaller step, ImpactResetJacobian's for a rim point)
  const int cluster = probes && eps == model.options().fd_step
                          ? ProbeMemoAccess::Cluster(*probes, m, centre, x_minus.qpos, island, impulse_set)
                          : -1;
  const std::vector<double> no_restitution(impulse_set.size(), 0.0);
  const std::vector<bool> every(impulse_set.size(), true);
  std::vector<ContactPoint> points;
  ConstraintSet all;
  Eigen::VectorXd Mdv(nv);
  // the island's columns (none picked for a whole island: every column, as they stand)
  const std::vector<int>* columns = island.whole ? nullptr : &dofs;
  auto island_columns = [&](const RowMatrix& a) { return columns ? RowMatrix(a(Eigen::all, dofs)) : a; };
  const Eigen::VectorXd v_plus_island = columns ? Eigen::VectorXd(v_plus(dofs)) : v_plus;
  const Eigen::VectorXd v_minus_island = columns ? Eigen::VectorXd(v_minus(dofs)) : v_minus;
  // [Jᵀ Λ − M Δv ; J (v⁺ + E v⁻) + (1 + E) b] at qpos, the first block on the island's dofs (J and
  // M Δv are 0 off them): the products cost the island's columns, not nv
  // (the probe of dof `dof` on side `sign`, at qpos: from the memo, or a pass of its own)
  SelectedRows at;
  auto products = [&](const Eigen::VectorXd& qpos, int dof, int sign, Eigen::VectorXd& out) {
    bool passed = false;
    if (cluster >= 0 && ProbeMemoAccess::Rows(*probes, model, data, cluster, dof, sign, impulse_set, columns, at, &passed)) {
      if (passed) passes = SleepOutside(model, d, island);  // the memo's pass left its own island asleep
    } else {
      if (probes) ProbeMemoAccess::Unserved(*probes);
      EvaluatePositionForPairs(model, d, qpos.data(), impulse_set, points, /*inertia=*/false, passes);
      mj_tendon(passes, d);  // M without its factorisation (made again when the pass was the full one)
      mj_makeM(passes, d);
      ModeConstraints(model, d, impulse_set, points, all, data.work());
      at = SelectRows(model, d, all, no_restitution, every, columns);
    }
    if (at.J.rows() != nrow) throw NumericalError("impact rows changed under a configuration difference");
    Mdv.setZero();
    mj_mulM(passes, d, Mdv.data(), dv.data());
    out.resize(ncol + nrow);
    out.head(ncol).noalias() = at.J.transpose() * lambda;
    if (columns) {
      out.head(ncol) -= Mdv(dofs);
    } else {
      out.head(ncol) -= Mdv;
    }
    out.tail(nrow).noalias() = at.J * v_plus_island;
    out.tail(nrow) += e.cwiseProduct(at.J * v_minus_island) +
                      (Eigen::VectorXd::Ones(nrow) + e).cwiseProduct(at.surface);
  };
  RowMatrix W = RowMatrix::Zero(ncol, nv);  // w per column, as rows (mj_solveM's layout): 0 off the island
  Eigen::MatrixXd S(nrow, ncol);
  Eigen::VectorXd dq = Eigen::VectorXd::Zero(nv), plus, minus;
  for (int c = 0; c < ncol; c++) {
    dq.setZero();
    dq(dofs[c]) = eps;
    Eigen::VectorXd qp = x_minus.qpos, qm = x_minus.qpos;
    mj_integratePos(m, qp.data(), dq.data(), 1.0);
    mj_integratePos(m, qm.data(), dq.data(), -1.0);
    try {
      products(qp, dofs[c], 1, plus);
      products(qm, dofs[c], -1, minus);
    } catch (const NumericalError&) {
      return false;  // the impact's rows changed under the difference: the impact maps decide
    }
    const Eigen::VectorXd diff = (plus - minus) / (2 * eps);
    for (int j = 0; j < ncol; j++) W(c, dofs[j]) = diff(j);
    S.col(c) = -diff.tail(nrow);
  }
  RowMatrix MinvW(ncol, nv);
  mj_solveM(m, centre, MinvW.data(), W.data(), ncol);
  // on the island's rows and columns (J, J M⁻¹ and M⁻¹ W are 0 off them)
  const RowMatrix MinvW_island = island_columns(MinvW), JMinv_island = island_columns(JMinv);
  const Eigen::MatrixXd correction =
      solver.Solve(Eigen::MatrixXd(S - island_columns(sel.J) * MinvW_island.transpose()));
  dv_dq = MinvW_island.transpose() + JMinv_island.transpose() * correction;
  return true;
}

// I (n × n) written as a zero fill and a diagonal: Eigen's Identity assigns entry by entry with a
// test per entry (≈14% of a touchdown's Ξ among 50 balls, nv = 300, in perf; the fill is a memset)
void SetIdentity(Eigen::MatrixXd& a, int n) {
  a.setZero(n, n);
  a.diagonal().setOnes();
}

// ½ vᵀ M v of the island's trees (d holds M on them; the whole model's for a whole island)
double KineticEnergy(const mjModel* m, const mjData* d, const Island& island, const Eigen::VectorXd& v) {
  Eigen::VectorXd on = v, Mv = Eigen::VectorXd::Zero(m->nv);
  ZeroOutside(island, on);
  mj_mulM(m, d, Mv.data(), on.data());
  return 0.5 * on.dot(Mv);
}

}  // namespace

std::vector<ContactId> ImpactResult::ImpulseSet() const {
  std::vector<ContactId> set;
  for (size_t k = 0; k < candidates.size(); k++) {
    if (in_impulse_set[k]) set.push_back(candidates[k]);
  }
  return set;
}

ImpactResult SolveImpact(const Model& model, Data& data, const RestitutionTable& restitution,
                         const State& x_minus, const std::vector<ContactId>& candidates) {
  if (!IsFinite(x_minus)) throw NumericalError("impact state is not finite (NaN or Inf)");
  const mjModel* m = model.mj();
  mjData* d = data.main();
  std::vector<ContactId> cand = candidates;
  ApplyMocapMotion(model, data, x_minus.time);
  // the candidates' pairs only, with M and its factor, on the trees they reach (islands.h): the
  // impact moves nothing else
  const Island island = IslandOf(model, cand, cand);
  std::vector<ContactPoint> points;
  EvaluatePositionForPairs(model, d, x_minus.qpos.data(), cand, points, true, SleepOutside(model, d, island));
  ConstraintSet all;
  ModeConstraints(model, d, cand, points, all, data.work());
  const int ncand = static_cast<int>(cand.size());
  const Eigen::VectorXd& v = x_minus.qvel;

  ImpactResult out;
  out.normal_velocity_minus.resize(ncand);
  out.restitution = PairRestitutions(restitution, cand);
  Eigen::VectorXd surface(ncand);  // each candidate's ∂g/∂t (relative normal speed = J_n v + it)
  for (int k = 0; k < ncand; k++) {
    surface(k) = SurfaceVelocity(model, d, all.points[k])(0);
    out.normal_velocity_minus(k) = all.J.row(all.normal_row[k]).dot(v) + surface(k);
  }
  const double vscale = std::max(1.0, v.norm());
  const double vtol = model.options().velocity_tol * vscale;

  // active-set iteration: start from every approaching or resting contact
  std::vector<bool> in_set(ncand);
  for (int k = 0; k < ncand; k++) in_set[k] = out.normal_velocity_minus(k) <= vtol;
  Eigen::VectorXd impulse, v_plus;
  SelectedRows sel;
  const int max_iter = 6 * ncand + 10;
  for (out.iterations = 1;; out.iterations++) {
    if (out.iterations > max_iter) {
      throw NumericalError("impact complementarity problem did not settle in " +
                           std::to_string(max_iter) + " active-set changes");
    }
    sel = SelectRows(model, d, all, out.restitution, in_set);
    v_plus = ApplyImpulse(model, d, island, sel, v, &impulse, &out.rank);
    const double itol = 1e-10 * std::max(1.0, impulse.size() ? impulse.cwiseAbs().maxCoeff() : 0.0);
    // a contact pulling: release the worst
    int worst = -1;
    double worst_value = -itol;
    for (int k = 0; k < ncand; k++) {
      if (in_set[k] && impulse(sel.normal_row[k]) < worst_value) {
        worst_value = impulse(sel.normal_row[k]);
        worst = k;
      }
    }
    if (worst >= 0) {
      if (!cand[worst].frictionless && ContactRowCount(all.points[worst]) > 1) {
        // sticking would pull: let it slip (frictionless) before releasing it
        cand[worst].frictionless = true;
        ModeConstraints(model, d, cand, points, all, data.work());
      } else {
        in_set[worst] = false;
      }
      continue;
    }
    // a contact left out but penetrating after the impact: add the worst
    double worst_gap = -vtol;
    for (int k = 0; k < ncand; k++) {
      if (in_set[k]) continue;
      const double vn = all.J.row(all.normal_row[k]).dot(v_plus) + surface(k);
      const double vn_minus = out.normal_velocity_minus(k);
      const double e = -vn_minus >= model.options().min_bounce_speed ? out.restitution[k] : 0.0;
      const double target = -e * std::min(vn_minus, 0.0);
      if (vn - target < worst_gap) {
        worst_gap = vn - target;
        worst = k;
      }
    }
    if (worst >= 0) {
      in_set[worst] = true;
      continue;
    }
    break;
  }

  // touching contacts left separating slower than the bounce threshold are held too (one more
  // plastic impulse): as long as that needs no pulling impulse, or the impact itself is slower
  // than the threshold (Zeno scale). Otherwise a slowly rocking body (a box on an edge, a biped
  // in double support) releases and re-makes its contacts forever.
  double approach = 0;
  for (int k = 0; k < ncand; k++) approach = std::max(approach, -out.normal_velocity_minus(k));
  const bool zeno_scale = approach < model.options().min_bounce_speed;
  std::vector<bool> held = in_set;
  bool extend = false;
  for (int k = 0; k < ncand; k++) {
    if (held[k]) continue;
    const double vn = all.J.row(all.normal_row[k]).dot(v_plus) + surface(k);
    if (vn > vtol && vn < model.options().min_bounce_speed) held[k] = extend = true;
  }
  if (extend) {
    const SelectedRows wider = SelectRows(model, d, all, out.restitution, held);
    Eigen::VectorXd wider_impulse;
    int wider_rank = 0;
    const Eigen::VectorXd wider_v = ApplyImpulse(model, d, island, wider, v, &wider_impulse, &wider_rank);
    const double itol = 1e-10 * std::max(1.0, wider_impulse.cwiseAbs().maxCoeff());
    bool pulls = false;
    for (int k = 0; k < ncand; k++) pulls |= held[k] && wider_impulse(wider.normal_row[k]) < -itol;
    if (!pulls || zeno_scale) {
      in_set = held;
      sel = wider;
      impulse = wider_impulse;
      v_plus = wider_v;
      out.rank = wider_rank;
    }
  }

  out.candidates = cand;
  out.qvel_plus = v_plus;
  out.nrow = sel.J.rows();
  out.in_impulse_set = in_set;
  out.normal_impulse.setZero(ncand);
  out.normal_velocity_plus.resize(ncand);
  for (int k = 0; k < ncand; k++) {
    if (in_set[k]) out.normal_impulse(k) = std::max(0.0, impulse(sel.normal_row[k]));
    out.normal_velocity_plus(k) = all.J.row(all.normal_row[k]).dot(v_plus) + surface(k);
    if (std::abs(out.normal_velocity_plus(k)) <= vtol) out.sustained.contacts.push_back(cand[k]);
  }
  out.kinetic_energy_minus = KineticEnergy(m, d, island, v);
  out.kinetic_energy_plus = KineticEnergy(m, d, island, v_plus);
  return out;
}

Eigen::VectorXd ImpactVelocity(const Model& model, Data& data, const RestitutionTable& restitution,
                               const Eigen::VectorXd& qpos,
                               const Eigen::VectorXd& qvel_minus,
                               const std::vector<ContactId>& impulse_set, int* rank,
                               PsdSolver::Method method) {
  mjData* d = data.main();
  const Island island = IslandOf(model, impulse_set, impulse_set);
  std::vector<ContactPoint> points;
  EvaluatePositionForPairs(model, d, qpos.data(), impulse_set, points, true, SleepOutside(model, d, island));
  ConstraintSet all;
  ModeConstraints(model, d, impulse_set, points, all, data.work());
  const SelectedRows sel = SelectRows(model, d, all, PairRestitutions(restitution, impulse_set),
                                      std::vector<bool>(impulse_set.size(), true));
  return ApplyImpulse(model, d, island, sel, qvel_minus, nullptr, rank, method);
}

Eigen::MatrixXd ResetJacobian::Dense() const {
  Eigen::MatrixXd D = Eigen::MatrixXd::Identity(2 * nv + na, 2 * nv + na);
  D.block(nv, 0, nv, nv) = DvDqDense();
  D.block(nv, nv, nv, nv) = DvDvDense();
  return D;
}

namespace {
// the position of dof in the increasing `dofs`, or −1
int BlockIndex(const std::vector<int>& dofs, int dof) {
  const auto it = std::lower_bound(dofs.begin(), dofs.end(), dof);
  return it != dofs.end() && *it == dof ? static_cast<int>(it - dofs.begin()) : -1;
}
}  // namespace

double ResetJacobian::DvDq(int r, int c) const {
  if (!Restricted()) return dv_dq(r, c);
  const int a = BlockIndex(dofs, r), b = BlockIndex(dofs, c);
  return a >= 0 && b >= 0 ? dv_dq(a, b) : 0.0;
}

double ResetJacobian::DvDv(int r, int c) const {
  if (!Restricted()) return dv_dv(r, c);
  const int a = BlockIndex(dofs, r), b = BlockIndex(dofs, c);
  return a >= 0 && b >= 0 ? dv_dv(a, b) : (r == c ? 1.0 : 0.0);
}

Eigen::MatrixXd ResetJacobian::DvDqDense() const {
  if (!Restricted()) return dv_dq;
  Eigen::MatrixXd D = Eigen::MatrixXd::Zero(nv, nv);
  D(dofs, dofs) = dv_dq;
  return D;
}

Eigen::MatrixXd ResetJacobian::DvDvDense() const {
  if (!Restricted()) return dv_dv;
  Eigen::MatrixXd D = Eigen::MatrixXd::Identity(nv, nv);
  D(dofs, dofs) = dv_dv;
  return D;
}

ResetJacobian ResetJacobian::Identity(int nv, int na) {
  ResetJacobian r;
  r.nv = nv;
  r.dv_dq = Eigen::MatrixXd::Zero(nv, nv);
  SetIdentity(r.dv_dv, nv);
  r.na = na;
  return r;
}

ResetJacobian ResetJacobian::NoReset(int nv, int na) {
  ResetJacobian r;
  r.nv = nv;
  r.na = na;
  r.dv_dq.resize(0, 0);
  r.dv_dv.resize(0, 0);
  r.all_dofs = false;  // Restricted() with no dofs (nv = 0: the empty blocks are the whole of it)
  return r;
}

ResetJacobian ImpactResetJacobian(const Model& model, Data& data, const RestitutionTable& restitution,
                                  const State& x_minus, const std::vector<ContactId>& impulse_set,
                                  ConfigurationBlockMethod method, ProbeMemo* probes) {
  const mjModel* m = model.mj();
  const int nv = m->nv;
  mjData* d = data.main();
  ResetJacobian out;
  out.nv = nv;
  out.na = m->na;

  // DΔ moves only the dofs of the trees S reaches (islands.h): J and J M⁻¹ are exactly zero off
  // them (M is block-diagonal over the trees), and the configuration of any other tree moves
  // neither S's rows nor M's blocks under them: MuJoCo's passes run on the island's trees alone
  const Island island = IslandOf(model, impulse_set, impulse_set);
  // ∂v⁺/∂v⁻ in closed form: v⁺ is linear in v⁻ for a fixed S (targets use J_n v⁻ < 0)
  ApplyMocapMotion(model, data, x_minus.time);
  std::vector<ContactPoint> points;
  EvaluatePositionForPairs(model, d, x_minus.qpos.data(), impulse_set, points, true, SleepOutside(model, d, island));
  ConstraintSet all;
  ModeConstraints(model, d, impulse_set, points, all, data.work());
  const SelectedRows sel = SelectRows(model, d, all, PairRestitutions(restitution, impulse_set),
                                      std::vector<bool>(impulse_set.size(), true));
  out.dofs = island.dofs;
  out.all_dofs = false;
  const std::vector<int>& dofs = out.dofs;
  const int k = static_cast<int>(dofs.size());
  SetIdentity(out.dv_dv, k);
  const int nrow = sel.J.rows();
  // the center's choice of solver, kept by every difference column below
  PsdSolver solver;
  RowMatrix JMinv;
  if (nrow > 0) {
    Eigen::MatrixXd A;
    ConstraintMass(m, d, sel.J, JMinv, A);
    // rows whose J v⁻ ≥ 0 get no restitution target
    const Eigen::VectorXd Jv = sel.J * x_minus.qvel + sel.surface;  // relative
    const Eigen::VectorXd e = AppliedRestitution(model, sel.restitution_rows, Jv);
    solver.Compute(A, model.options().rank_tol);  // Cholesky when clearly positive definite
    // −M⁻¹Jᵀ A⁺ (I + E) J on the island's rows and columns (the rest is exactly zero)
    const Eigen::MatrixXd rhs = (Eigen::VectorXd::Ones(nrow) + e).asDiagonal() * sel.J(Eigen::all, dofs);
    const Eigen::MatrixXd JMinv_island = JMinv(Eigen::all, dofs);
    out.dv_dv -= JMinv_island.transpose() * solver.Solve(rhs);
  }

  // ∂v⁺/∂q on the island's columns (the others are exactly zero), by differences of step
  // Options::fd_step — below the tilt where S holds a cylinder's lowest rim point on a plane
  // (CylinderRimProbeStep: a tilt δ across the tilt's direction turns that point round the rim by
  // δ/sin(tilt); at the corner → rim-point hand-over sin(tilt) = T = 3.4e-8 ≪ fd_step), whose
  // probes then list the rim point below the listing threshold too (its smooth continuation)
  double eps = model.options().fd_step;
  for (size_t c = 0; c < impulse_set.size() && c < all.points.size(); c++) {
    eps = CylinderRimProbeStep(m, d, impulse_set[c].geom1, impulse_set[c].geom2, all.points[c].pos, eps);
  }
  out.dv_dq.setZero(k, k);
  if (nrow > 0 && !dofs.empty()) {
    std::optional<CylinderRimListedAtAnyTilt> rim_continued;
    if (eps < model.options().fd_step) rim_continued.emplace();
    if (method != ConfigurationBlockMethod::kEquations ||
        !ConfigurationBlockByEquations(model, data, x_minus, impulse_set, sel, JMinv, solver, island, probes, eps,
                                       out.dv_dq)) {
      out.dv_dq_method = ConfigurationBlockMethod::kImpactMaps;
      ConfigurationBlockByImpactMaps(model, data, restitution, x_minus, impulse_set, solver.method(), dofs, eps,
                                     out.dv_dq);
    }
  }
  return out;
}

Eigen::VectorXd ImpactResetTimeDerivative(const Model& model, Data& data, const RestitutionTable& restitution,
                                          const State& x_minus, const std::vector<ContactId>& impulse_set) {
  if (!model.options().mocap_motion || impulse_set.empty()) return Eigen::VectorXd::Zero(model.nv());
  const double h = model.options().fd_step;
  ApplyMocapMotion(model, data, x_minus.time + h);
  const Eigen::VectorXd vp = ImpactVelocity(model, data, restitution, x_minus.qpos, x_minus.qvel, impulse_set);
  ApplyMocapMotion(model, data, x_minus.time - h);
  const Eigen::VectorXd vm = ImpactVelocity(model, data, restitution, x_minus.qpos, x_minus.qvel, impulse_set);
  ApplyMocapMotion(model, data, x_minus.time);
  return (vp - vm) / (2 * h);
}

Eigen::MatrixXd ImpactResetJacobianFD(const Model& model, Data& data, const RestitutionTable& restitution,
                                      const State& x_minus,
                                      const std::vector<ContactId>& candidates, double eps) {
  const mjModel* m = model.mj();
  const int n = model.ndx();
  auto reset = [&](const State& x) {
    State y = x;
    y.qvel = SolveImpact(model, data, restitution, x, candidates).qvel_plus;
    return y;
  };
  const State y0 = reset(x_minus);
  Eigen::MatrixXd D(n, n);
  Eigen::VectorXd e = Eigen::VectorXd::Zero(n);
  for (int i = 0; i < n; i++) {
    e.setZero();
    e(i) = eps;
    const State yp = reset(Integrate(m, x_minus, e));
    const State ym = reset(Integrate(m, x_minus, e, -1));
    D.col(i) = (Difference(m, y0, yp) - Difference(m, y0, ym)) / (2 * eps);
  }
  return D;
}

Eigen::MatrixXd PlasticProjection(const Model& model, Data& data, const Eigen::VectorXd& qpos,
                                  const std::vector<ContactId>& contacts) {
  const mjModel* m = model.mj();
  const int nv = m->nv;
  mjData* d = data.main();
  std::vector<ContactPoint> points;
  EvaluatePositionForPairs(model, d, qpos.data(), contacts, points);
  ConstraintSet set;
  ModeConstraints(model, d, contacts, points, set, data.work());
  const RowMatrix J = set.J.topRows(set.ncontact_rows);
  Eigen::MatrixXd P = Eigen::MatrixXd::Identity(nv, nv);
  if (J.rows() == 0) return P;
  RowMatrix JMinv;
  Eigen::MatrixXd A;
  ConstraintMass(m, d, J, JMinv, A);
  PsdSolver solver;
  solver.Compute(A, model.options().rank_tol, PsdSolver::Method::kPseudoInverse);
  P -= JMinv.transpose() * solver.Solve(Eigen::MatrixXd(J));
  return P;
}

Eigen::MatrixXd MassMatrix(const Model& model, Data& data, const Eigen::VectorXd& qpos) {
  const mjModel* m = model.mj();
  EvaluatePosition(model, data.main(), qpos.data());
  Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> M(m->nv, m->nv);
  mj_fullM(m, data.main(), M.data());  // MuJoCo 4: (m, d, dst), d->qM gone (sparse d->M)
  return M;
}

}  // namespace saltation
