#include "saltation/mode_dynamics.h"

#include <cmath>
#include <cstdio>
#include <limits>
#include <utility>

#include "contact_jdot.h"
#include "contact_lost_error.h"
#include "force_island.h"
#include "island_passes.h"
#include "island_solve.h"
#include "mujoco_stages.h"

#include "saltation/contact_features.h"
#include "saltation/errors.h"
#include "saltation/islands.h"

namespace saltation {
namespace {

// mj_geomDistance (up to 1 m) between geoms g1 and g2 placed as in d, taken on a scratch mjData of
// its own (mj_geomDistance wants a mutable mjData, for its stack; d is not to be touched): the
// error path of ModeConstraints only, so the allocation does not matter
double GeomDistance(const mjModel* m, const mjData* d, int g1, int g2) {
  DataPtr scratch(mj_makeData(m));
  if (!scratch) return std::numeric_limits<double>::infinity();
  mju_copy(scratch->geom_xpos, d->geom_xpos, 3 * m->ngeom);
  mju_copy(scratch->geom_xmat, d->geom_xmat, 9 * m->ngeom);
  double fromto[6];
  return mj_geomDistance(m, scratch.get(), g1, g2, 1.0, fromto);
}

}  // namespace

void ModeConstraints(const Model& model, const mjData* d, const std::vector<ContactId>& contacts,
                     const std::vector<ContactPoint>& points, ConstraintSet& set, Workspace& work) {
  const int nv = model.nv();
  MatchContacts(contacts, points, work.match);
  const std::vector<int>& match = work.match;
  set.points.clear();
  set.normal_row.clear();
  int nrow = 0;
  for (size_t k = 0; k < contacts.size(); k++) {
    if (contacts[k].feature >= 0) {
      // the mode's feature extended beyond its region (contact_features.h), whether or not MuJoCo
      // still reports the pair; its point, if any, lends the first tangent
      const ContactPoint* mj = match[k] >= 0 ? &points[match[k]] : nullptr;
      const Eigen::Vector3d hint = mj ? Eigen::Vector3d(mj->frame.row(1).transpose()) : Eigen::Vector3d::Zero();
      set.points.push_back(FeaturePoint(model, d, contacts[k], mj ? &hint : nullptr));
      set.points.back().mj_index = mj ? mj->mj_index : -1;
    } else if (match[k] < 0) {
      const double distance = GeomDistance(model.mj(), d, contacts[k].geom1, contacts[k].geom2);
      char where[160];
      std::snprintf(where, sizeof(where), " (its geoms %.3g m apart, the margin %.3g m)", distance,
                    model.detect_margin());
      throw ContactLostError("active contact " + ContactLabel(model, contacts[k]) +
                                 " has no contact point within the detection margin" + where,
                             contacts[k], distance < 1.0 ? distance : std::numeric_limits<double>::infinity());
    } else {
      set.points.push_back(points[match[k]]);
    }
    if (contacts[k].frictionless) set.points.back().condim = 1;
    set.normal_row.push_back(nrow);
    nrow += ContactRowCount(set.points.back());
  }
  set.ncontact_rows = nrow;
  EqualityRows(model, d, work.equality);
  set.J.resize(nrow + work.equality.rows(), nv);
  for (size_t k = 0; k < contacts.size(); k++) {
    ContactRows(model, d, set.points[k], set.J.middleRows(set.normal_row[k], ContactRowCount(set.points[k])),
                work);
  }
  set.J.bottomRows(work.equality.rows()) = work.equality;
}

namespace {

// The mode's rows at configuration qpos (geometry only), on data.aux(): kinematics and the mode's
// own geom pairs when there are no equality rows, the whole position stage otherwise. passes:
// the model MuJoCo's passes run with (SleepOutside's, island_passes.h; null: the whole model).
ConstraintSet SetAt(const Model& model, Data& data, const Eigen::VectorXd& qpos,
                    const std::vector<ContactId>& contacts, const mjModel* passes = nullptr) {
  std::vector<ContactPoint> points;
  EvaluatePositionForPairs(model, data.aux(), qpos.data(), contacts, points, false, passes);
  ConstraintSet set;
  ModeConstraints(model, data.aux(), contacts, points, set, data.work());
  return set;
}

RowMatrix RowsAt(const Model& model, Data& data, const Eigen::VectorXd& qpos,
                 const std::vector<ContactId>& contacts, const mjModel* passes = nullptr) {
  return std::move(SetAt(model, data, qpos, contacts, passes).J);
}

// Rows whose J̇ the stencils form frame-free: each three-row contact's rows replaced by its world
// relative-velocity Jacobian J_rel = frameᵀ J (frame orthonormal), which does not depend on the
// tangent basis MuJoCo picked at that configuration. Returns J with those blocks swapped.
RowMatrix FrameFree(const ConstraintSet& set) {
  RowMatrix J = set.J;
  for (size_t k = 0; k < set.points.size(); k++) {
    if (ContactRowCount(set.points[k]) != 3) continue;
    const int r = set.normal_row[k];
    J.middleRows(r, 3) = set.points[k].frame.transpose() * set.J.middleRows(r, 3);
  }
  return J;
}

// Back from the frame-free form: the normal row as it was differentiated (n(s)ᵀJ_rel(s), the
// normal's turning included: `normal` holds those rows' values), the tangent rows projected on the
// centre's tangents.
template <typename Rows>
void ToCentreFrame(const ConstraintSet& centre, const Rows& normal, Rows& rows) {
  for (size_t k = 0; k < centre.points.size(); k++) {
    if (ContactRowCount(centre.points[k]) != 3) continue;
    const int r = centre.normal_row[k];
    const auto world = rows.middleRows(r, 3).eval();
    rows.middleRows(r + 1, 2) = centre.points[k].frame.middleRows(1, 2) * world;
    rows.row(r) = normal.row(r);
  }
}

bool HasThreeRowContact(const ConstraintSet& set) {
  for (const ContactPoint& p : set.points) {
    if (ContactRowCount(p) == 3) return true;
  }
  return false;
}

// Connect equalities (3 rows) and welds (6 rows: 3 translational, 3 rotational) tie two points
// fixed on their bodies; their translational rows are J(p₁) − J(p₂).
bool IsAnchored(const mjModel* m, int eq) { return m->eq_type[eq] == mjEQ_CONNECT || m->eq_type[eq] == mjEQ_WELD; }

bool HasAnchoredEquality(const mjModel* m) {
  for (int i = 0; i < m->neq; i++) {
    if (IsAnchored(m, i)) return true;
  }
  return false;
}

// The world anchor of side `side` (0, 1) of a connect or weld equality and its body
// (mj_instantiateEquality's points: a site, or the body frame's point at eq_data[3·side] for a
// connect, eq_data[3·(1 − side)] for a weld — held by MujocoFacts.JacDotGivesTheWeldBiasExactly)
int EqualityAnchor(const mjModel* m, const mjData* d, int eq, int side, mjtNum pos[3]) {
  const int obj = side == 0 ? m->eq_obj1id[eq] : m->eq_obj2id[eq];
  if (m->eq_objtype[eq] == mjOBJ_SITE) {
    mju_copy3(pos, d->site_xpos + 3 * obj);
    return m->site_bodyid[obj];
  }
  const int local = m->eq_type[eq] == mjEQ_WELD ? 1 - side : side;
  mj_local2Global(const_cast<mjData*>(d), pos, nullptr, m->eq_data + mjNEQDATA * eq + 3 * local, nullptr, obj, 0);
  return obj;
}

// J̇v of the translational rows of connect and weld equalities, exactly: both anchors are points
// fixed on their bodies, so MuJoCo's mj_jacDot is the derivative of their Jacobians (not so for
// contact points, which move on the surfaces, nor for a weld's rotation rows, whose Jacobian
// carries the quaternion error, nor for joint and tendon equalities: they keep the stencil).
// Overwrites those rows of `bias` (equality rows last, in efc order); d at x's position stage;
// the two J̇ in work.jac1, work.jac2.
void ExactAnchorBias(const mjModel* m, mjData* d, const State& x, Eigen::VectorXd& bias, Workspace& work) {
  const int ne = d->ne;
  const int first = static_cast<int>(bias.size()) - ne;
  bool any = false;
  for (int r = 0; r < ne; r++) any = any || IsAnchored(m, d->efc_id[r]);
  if (!any || first < 0) return;
  mju_copy(d->qvel, x.qvel.data(), m->nv);
  mj_comVel(m, d);  // cdof_dot, which mj_jacDot reads
  RowMatrix& jdot1 = work.jac1;
  RowMatrix& jdot2 = work.jac2;
  jdot1.resize(3, m->nv);
  jdot2.resize(3, m->nv);
  for (int r = 0; r < ne;) {
    const int eq = d->efc_id[r];
    if (!IsAnchored(m, eq)) {
      r++;
      continue;
    }
    mjtNum p1[3], p2[3];
    const int b1 = EqualityAnchor(m, d, eq, 0, p1);
    const int b2 = EqualityAnchor(m, d, eq, 1, p2);
    mj_jacDot(m, d, jdot1.data(), nullptr, p1, b1);
    mj_jacDot(m, d, jdot2.data(), nullptr, p2, b2);
    bias.segment(first + r, 3) = (jdot1 - jdot2) * x.qvel;
    r += m->eq_type[eq] == mjEQ_WELD ? 6 : 3;
  }
}

}  // namespace

void ApplyMocapMotion(const Model& model, Data& data, double t) {
  const MocapMotion& motion = model.options().mocap_motion;
  if (!motion) return;
  const mjModel* m = model.mj();
  for (mjData* d : {data.main(), data.aux()}) {
    d->time = t;
    for (int i = 0; i < m->nmocap; i++) {
      const MocapSample s = motion(t, i);
      mju_copy3(d->mocap_pos + 3 * i, s.pos.data());
      mju_copy4(d->mocap_quat + 4 * i, s.quat.data());
    }
  }
}

void ApplyControlLaw(const Model& model, Data& data, const State& x) {
  const ControlLaw& law = model.options().control;
  const mjModel* m = model.mj();
  if (!law || m->nu == 0) return;
  mjData* d = data.main();
  law(x.time, x.qpos.data(), x.qvel.data(), d->ctrl);
  for (int i = 0; i < m->nu; i++) {
    if (!std::isfinite(d->ctrl[i])) {
      throw NumericalError("the control law gave a control that is not finite at t = " + std::to_string(x.time) +
                           " s (actuator " + std::to_string(i) + ")");
    }
  }
  mju_copy(data.aux()->ctrl, d->ctrl, m->nu);
}

Eigen::VectorXd SurfaceVelocity(const Model& model, const mjData* d, const ContactPoint& p) {
  const int rows = ContactRowCount(p);
  Eigen::VectorXd out = Eigen::VectorXd::Zero(rows);
  const MocapMotion& motion = model.options().mocap_motion;
  if (!motion) return out;
  const mjModel* m = model.mj();
  Eigen::Vector3d rel = Eigen::Vector3d::Zero();
  const int geoms[2] = {p.id.geom1, p.id.geom2};
  for (int side = 0; side < 2; side++) {
    if (geoms[side] < 0) continue;
    const int mocap = m->body_mocapid[m->geom_bodyid[geoms[side]]];
    if (mocap < 0) continue;
    const Eigen::Vector3d vel = motion(d->time, mocap).vel;
    rel += side == 1 ? vel : Eigen::Vector3d(-vel);
  }
  out = p.frame.topRows(rows) * rel;
  return out;
}

Eigen::VectorXd ConstraintBias(const Model& model, Data& data, const State& x,
                               const std::vector<ContactId>& contacts, const ConstraintSet* centre,
                               const Island* island) {
  const mjModel* m = model.mj();
  mjData* aux = data.aux();
  const double h = model.options().jdot_step;
  // the stencil's passes on the island's trees alone (model.mj() when there is none)
  const mjModel* passes = island ? SleepOutside(model, aux, *island) : m;
  if (x.qvel.squaredNorm() == 0) return Eigen::VectorXd::Zero(RowsAt(model, data, x.qpos, contacts, passes).rows());
  // a contact with geometric features is differentiated on the centre's feature, extended: the
  // stencil must not look past an edge (contact_features.h)
  std::vector<ContactId> fixed = contacts;
  if (NeedsFeatures(m, contacts)) {
    mju_copy(aux->qpos, x.qpos.data(), m->nq);
    mj_kinematics(passes, aux);
    fixed = WithFeatures(m, aux, contacts);
  }
  ConstraintSet own;
  if (!centre) {
    own = SetAt(model, data, x.qpos, contacts, passes);
    centre = &own;
  }
  Eigen::VectorXd bias = Eigen::VectorXd::Zero(centre->J.rows());

  // the contacts with a closed form (contact_jdot.h) take it: aux at x's kinematics and velocity
  std::vector<int> rest;  // the others, by index in `contacts`
  bool any_closed = false;
  for (size_t k = 0; k < fixed.size() && !any_closed; k++) any_closed = HasContactJdot(m, fixed[k]);
  if (any_closed) {
    mju_copy(aux->qpos, x.qpos.data(), m->nq);
    mju_copy(aux->qvel, x.qvel.data(), m->nv);
    mj_kinematics(passes, aux);
    mj_comPos(passes, aux);
    mj_comVel(passes, aux);
  }
  RowMatrix& jdot = data.work().jac1;
  for (size_t k = 0; k < fixed.size(); k++) {
    const ContactPoint& p = centre->points[k];
    const int rows = ContactRowCount(p);
    jdot.resize(rows, m->nv);
    if (HasContactJdot(m, fixed[k]) && ContactJdot(m, aux, p, x.qvel.data(), jdot)) {
      bias.segment(centre->normal_row[k], rows) = jdot * x.qvel;
    } else {
      rest.push_back(static_cast<int>(k));
    }
  }
  const int nequality = static_cast<int>(centre->J.rows()) - centre->ncontact_rows;
  if (rest.empty() && nequality == 0) return bias;

  // the others by a five-point stencil, error O(h⁴), of
  // f(s) = (J(q ⊕ s v) v, J_rel(q ⊕ s v) v): their rows as MuJoCo frames them and frame-free
  std::vector<ContactId> stencil_contacts;
  ConstraintSet sub;  // the centre's points of those contacts, in the stencil's row layout
  int nrow = 0;
  for (int k : rest) {
    stencil_contacts.push_back(fixed[k]);
    sub.points.push_back(centre->points[k]);
    sub.normal_row.push_back(nrow);
    nrow += ContactRowCount(centre->points[k]);
  }
  bool three = false;  // a three-row contact (tangent rows) at some stencil point
  auto f = [&](double s) {
    Eigen::VectorXd q = x.qpos;
    mj_integratePos(m, q.data(), x.qvel.data(), s);
    const ConstraintSet set = SetAt(model, data, q, stencil_contacts, passes);
    three = three || HasThreeRowContact(set);
    Eigen::MatrixXd y(set.J.rows(), 2);
    y.col(0) = set.J * x.qvel;
    y.col(1) = FrameFree(set) * x.qvel;
    return y;
  };
  const Eigen::MatrixXd both = (f(-2 * h) - 8 * f(-h) + 8 * f(h) - f(2 * h)) / (12 * h);
  Eigen::VectorXd stencil = both.col(0);
  if (three) {
    stencil = both.col(1);
    const Eigen::VectorXd normal = both.col(0);
    ToCentreFrame(sub, normal, stencil);
  }
  for (size_t j = 0; j < rest.size(); j++) {
    const int rows = ContactRowCount(sub.points[j]);
    bias.segment(centre->normal_row[rest[j]], rows) = stencil.segment(sub.normal_row[j], rows);
  }
  bias.tail(nequality) = stencil.tail(nequality);
  if (HasAnchoredEquality(m)) {
    EvaluatePosition(model, aux, x.qpos.data());
    ExactAnchorBias(m, aux, x, bias, data.work());
  }
  return bias;
}

ModeDynamics EvaluateMode(const Model& model, Data& data, const State& x, const Mode& mode,
                          const Island* island, IslandSolver* solver_out) {
  CheckSizes(model.mj(), x);
  if (!IsFinite(x)) throw NumericalError("state is not finite (NaN or Inf)");
  const mjModel* m = model.mj();
  mjData* d = data.main();
  const int nv = m->nv;
  ApplyMocapMotion(model, data, x.time);  // no-op without Options::mocap_motion
  ApplyControlLaw(model, data, x);         // no-op without Options::control

  // MuJoCo's pipeline up to qacc_smooth without the constraint solver, and of the position stage
  // only what it reads: kinematics, M and its factor, the mode's own geom pairs (no broad phase,
  // no other pairs, no constraint projections; the velocity stage reads none of them, and 2.2.2's
  // efc arrays are preallocated), the actuator moments; with an island, on the trees its
  // dynamics read (force_island.h) alone, the others asleep
  StateToData(m, x, d);
  const Island scope = island ? ForceIsland(model, *island) : Island();
  const mjModel* passes = SleepOutside(model, d, scope);  // model.mj() for the whole model
  std::vector<ContactPoint> points;
  EvaluatePositionForPairs(model, d, x.qpos.data(), mode.contacts, points, true, passes);
  mj_transmission(passes, d);
  SmoothStages(passes, d);

  ModeDynamics out;
  out.qacc_smooth = Eigen::Map<const Eigen::VectorXd>(d->qacc_smooth, nv);
  ZeroOutside(scope, out.qacc_smooth);  // the sleeping trees' entries are not evaluated
  out.act_dot = Eigen::Map<const Eigen::VectorXd>(d->act_dot, m->na);
  ModeConstraints(model, d, mode.contacts, points, out.constraints, data.work());
  const RowMatrix& J = out.constraints.J;
  const int nrow = J.rows();
  out.qacc = out.qacc_smooth;
  out.normal_force.setZero(mode.contacts.size());
  out.lambda.setZero(nrow);
  if (nrow == 0) return out;

  // J M⁻¹ (rows of J are right-hand sides; M is symmetric); J M⁻¹ Jᵀ solved block by block over
  // the groups of rows that share no kinematic tree (island_solve.h), each by its pseudo-inverse
  out.JMinv.resize(nrow, nv);
  mj_solveM(passes, d, out.JMinv.data(), J.data(), nrow);
  IslandSolver own;
  IslandSolver& solver = solver_out ? *solver_out : own;
  solver.Compute(m, J, out.JMinv, model.options().rank_tol, PsdSolver::Method::kPseudoInverse);
  const Eigen::VectorXd bias =
      ConstraintBias(model, data, x, mode.contacts, &out.constraints, scope.whole ? nullptr : &scope);
  solver.Solve(-(J * out.qacc_smooth + bias), out.lambda);
  out.rank = solver.rank();
  out.qacc += out.JMinv.transpose() * out.lambda;
  ZeroOutside(scope, out.qacc);  // J M⁻¹ is 0 there (M is block-diagonal over the trees)
  for (size_t k = 0; k < mode.contacts.size(); k++) {
    out.normal_force(k) = out.lambda(out.constraints.normal_row[k]);
  }
  return out;
}

Eigen::VectorXd ModeVectorField(const Model& model, Data& data, const State& x, const Mode& mode,
                                const Island* island) {
  const ModeDynamics dyn = EvaluateMode(model, data, x, mode, island);
  const int nv = model.nv(), na = model.na();
  Eigen::VectorXd f(2 * nv + na);
  f << x.qvel, dyn.qacc, dyn.act_dot;
  return f;
}

namespace {

// One mode evaluation with J̇(v) in closed form (every contact a pair with one, contact_jdot.h, and no
// equality rows) or by a three-point stencil; leaves data.main() at x.
struct Evaluation {
  Eigen::VectorXd qacc, qacc_smooth, act_dot, lambda;
  RowMatrix J, JMinv, Jdot;
  ConstraintSet set;  // the rows' points (their frames: tangent rows in the centre's frame)
  PsdSolver solver;   // of J M⁻¹ Jᵀ
};

// J̇ of every row of `set` in closed form (ContactJdot), when each contact has one and there are no
// equality rows: d at x's position stage and mj_comVel at qvel. false (jdot unspecified) otherwise.
bool ClosedFormJdot(const mjModel* m, const mjData* d, const std::vector<ContactId>& contacts,
                    const ConstraintSet& set, const Eigen::VectorXd& qvel, RowMatrix& jdot) {
  if (set.J.rows() != set.ncontact_rows) return false;
  for (const ContactId& id : contacts) {
    if (!HasContactJdot(m, id)) return false;
  }
  jdot.resize(set.J.rows(), m->nv);
  for (size_t k = 0; k < set.points.size(); k++) {
    const int rows = ContactRowCount(set.points[k]);
    if (!ContactJdot(m, d, set.points[k], qvel.data(), jdot.middleRows(set.normal_row[k], rows))) return false;
  }
  return true;
}

// method: the center picks Cholesky when J M⁻¹ Jᵀ is clearly positive definite, the
// pseudo-inverse otherwise (kAuto), and every difference column is given the same one (a switch
// between the two would show up divided by ε)
Evaluation EvaluateWithJdot(const Model& model, Data& data, const State& x, const Mode& mode,
                            PsdSolver::Method method) {
  const mjModel* m = model.mj();
  mjData* d = data.main();
  const int nv = m->nv;
  StateToData(m, x, d);
  Evaluation e;
  // the position stage for the mode's pairs (no broad phase, no other pairs, no constraint
  // projections: the velocity stage reads none of them; 2.2.2's efc arrays are preallocated),
  // plus the actuator moments
  std::vector<ContactPoint> points;
  EvaluatePositionForPairs(model, d, x.qpos.data(), mode.contacts, points);
  mj_transmission(m, d);
  ConstraintSet& centre = e.set;
  ModeConstraints(model, d, mode.contacts, points, centre, data.work());
  e.J = centre.J;
  SmoothStages(m, d);
  e.qacc_smooth = Eigen::Map<const Eigen::VectorXd>(d->qacc_smooth, nv);
  e.act_dot = Eigen::Map<const Eigen::VectorXd>(d->act_dot, m->na);
  e.qacc = e.qacc_smooth;
  const int nrow = e.J.rows();
  if (nrow == 0) return e;
  Eigen::MatrixXd A;
  ConstraintMass(m, d, e.J, e.JMinv, A);
  const double h = model.options().jdot_step;
  if (x.qvel.squaredNorm() > 0 && ClosedFormJdot(m, d, mode.contacts, centre, x.qvel, e.Jdot)) {
    // every row's J̇ in closed form (contact_jdot.h), d's velocity stage at x: no stencil
  } else if (x.qvel.squaredNorm() > 0) {
    Eigen::VectorXd qp = x.qpos, qm = x.qpos;
    mj_integratePos(m, qp.data(), x.qvel.data(), h);
    mj_integratePos(m, qm.data(), x.qvel.data(), -h);
    // on the centre's features (ConstraintBias); d holds x's kinematics
    const std::vector<ContactId> fixed =
        NeedsFeatures(m, mode.contacts) ? WithFeatures(m, d, mode.contacts) : mode.contacts;
    const ConstraintSet plus = SetAt(model, data, qp, fixed);
    const ConstraintSet minus = SetAt(model, data, qm, fixed);
    e.Jdot = (plus.J - minus.J) / (2 * h);
    if (HasThreeRowContact(centre)) {  // tangent rows in the centre's frame (ConstraintBias)
      const RowMatrix normal = e.Jdot;
      e.Jdot = (FrameFree(plus) - FrameFree(minus)) / (2 * h);
      ToCentreFrame(centre, normal, e.Jdot);
    }
  } else {
    e.Jdot = RowMatrix::Zero(nrow, nv);
  }
  const Eigen::VectorXd rhs = -(e.J * e.qacc_smooth + e.Jdot * x.qvel);
  e.solver.Compute(A, model.options().rank_tol, method);
  e.solver.Solve(rhs, e.lambda);
  e.qacc += e.JMinv.transpose() * e.lambda;
  return e;
}

}  // namespace

Eigen::MatrixXd ModeVectorFieldJacobian(const Model& model, Data& data, const State& x,
                                        const Mode& mode, double eps) {
  CheckSizes(model.mj(), x);
  if (!IsFinite(x)) throw NumericalError("state is not finite (NaN or Inf)");
  const mjModel* m = model.mj();
  const int nv = m->nv, na = m->na, n = 2 * nv + na;
  Eigen::MatrixXd jac = Eigen::MatrixXd::Zero(n, n);
  jac.block(0, nv, nv, nv).setIdentity();  // d(q̇)/dv

  const Evaluation center = EvaluateWithJdot(model, data, x, mode, PsdSolver::Method::kAuto);
  const int nrow = center.J.rows();

  // velocity and activation columns: MuJoCo's velocity and actuation stages at x's configuration
  // (data.main() is evaluated there)
  mjData* d = data.main();
  Eigen::MatrixXd das(nv, nv + na), dact(na, nv + na);
  for (int i = 0; i < nv + na; i++) {
    if (i < nv) {
      d->qvel[i] += eps;
    } else {
      d->act[i - nv] += eps;
    }
    SmoothStages(m, d);
    das.col(i) = (Eigen::Map<const Eigen::VectorXd>(d->qacc_smooth, nv) - center.qacc_smooth) / eps;
    dact.col(i) = (Eigen::Map<const Eigen::VectorXd>(d->act_dot, na) - center.act_dot) / eps;
    if (i < nv) {
      d->qvel[i] = x.qvel(i);
    } else {
      d->act[i - nv] = x.act(i - nv);
    }
  }

  // configuration columns: forward differences of whole evaluations; keep (∂J/∂qᵢ) v, for a
  // three-row contact's tangent rows t_cᵀ(∂J_rel/∂qᵢ) v with the centre's tangents t_c, as the bias
  // differentiates them (ConstraintBias)
  const bool three = HasThreeRowContact(center.set);
  const Eigen::VectorXd Jv = center.J * x.qvel;
  const Eigen::VectorXd Jv_free = three ? Eigen::VectorXd(FrameFree(center.set) * x.qvel) : Jv;
  Eigen::MatrixXd dJv(nrow, nv);
  Eigen::VectorXd e = Eigen::VectorXd::Zero(n);
  for (int i = 0; i < nv; i++) {
    e.setZero();
    e(i) = eps;
    const Evaluation p = EvaluateWithJdot(model, data, Integrate(m, x, e), mode, center.solver.method());
    jac.block(nv, i, nv, 1) = (p.qacc - center.qacc) / eps;
    jac.block(2 * nv, i, na, 1) = (p.act_dot - center.act_dot) / eps;
    if (nrow) {
      Eigen::VectorXd col = (p.J * x.qvel - Jv) / eps;
      if (three) {
        Eigen::VectorXd free = (FrameFree(p.set) * x.qvel - Jv_free) / eps;
        ToCentreFrame(center.set, col, free);
        col = free;
      }
      dJv.col(i) = col;
    }
  }

  Eigen::MatrixXd da = das;
  if (nrow) {
    // λ = −A⁺(J a_s + J̇(v) v):  ∂λ/∂v = −A⁺(J ∂a_s/∂v + J̇(v) + (∂J/∂q)[·] v)
    Eigen::MatrixXd rhs = center.J * das;
    rhs.leftCols(nv) += center.Jdot + dJv;
    da -= center.JMinv.transpose() * center.solver.Solve(rhs);  // the center's factorisation
  }
  jac.block(nv, nv, nv, nv + na) = da;
  jac.block(2 * nv, nv, na, nv + na) = dact;
  return jac;
}

Eigen::MatrixXd ModeVectorFieldJacobianFD(const Model& model, Data& data, const State& x,
                                          const Mode& mode, double eps) {
  const int n = model.ndx();
  Eigen::MatrixXd jac(n, n);
  Eigen::VectorXd e = Eigen::VectorXd::Zero(n);
  for (int i = 0; i < n; i++) {
    e.setZero();
    e(i) = eps;
    const Eigen::VectorXd fp = ModeVectorField(model, data, Integrate(model.mj(), x, e), mode);
    const Eigen::VectorXd fm = ModeVectorField(model, data, Integrate(model.mj(), x, e, -1), mode);
    jac.col(i) = (fp - fm) / (2 * eps);
  }
  return jac;
}

}  // namespace saltation
