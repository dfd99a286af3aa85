#include "saltation/rigid_simulator.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "saltation/contact_features.h"
#include "saltation/errors.h"
#include "saltation/events.h"
#include "saltation/guards.h"
#include "saltation/islands.h"
#include "saltation/mode_flow.h"
#include "saltation/psd_solver.h"
#include "saltation/root_finding.h"
#include "capsule_rocking.h"
#include "held_span.h"
#include "saltation/event_limit.h"
#include "lost_contact.h"
#include "own_points.h"
#include "point_following.h"
#include "same_bits.h"

namespace saltation {
namespace {

// guards at one state: the points outside the mode, and the mode's normal forces
struct GuardSnapshot {
  std::vector<ContactPoint> inactive;
  std::vector<double> inactive_rate;  // d gap / dt = J_n v + ∂g/∂t of each inactive point
  // each inactive point touching (|gap| ≤ contact_tol) at rest (|d gap / dt| ≤ velocity_tol) whose gap
  // the mode's rows hold at zero (HeldSpan, held_span.h): no event while it stays so (at a step's
  // start: the at-rest branch; new at a step's end: not "appeared penetrating")
  std::vector<bool> held_by_mode;
  Eigen::VectorXd normal_force;
  std::vector<FeatureGuardSet> features;  // the feature guards of each contact of the mode
  // the mode's contacts with each anchor moved to its point at the state (FollowHeldPoints on the
  // snapshot's own listing): what FollowHeld gives there, without colliding the pairs again
  std::vector<ContactId> followed;
};

GuardSnapshot Snapshot(const Model& model, Data& data, const State& x, const Mode& mode) {
  GuardSnapshot snap;
  IslandSolver solver;  // the mode's factorisation of J M⁻¹ Jᵀ, for HeldSpan
  const ModeDynamics dyn = EvaluateMode(model, data, x, mode, nullptr, &solver);  // data.main() at x: M factored
  snap.normal_force = dyn.normal_force;
  for (const ContactId& id : mode.contacts) snap.features.push_back(FeatureGuards(model.mj(), data.main(), id));
  mj_collision(model.mj(), data.main());  // every pair: EvaluateMode ran the mode's own only
  std::vector<ContactPoint> points;
  ListContacts(model, data.main(), points);
  snap.followed = mode.contacts;
  // (every pair's points: MatchContacts matches within a contact's own pair)
  FollowHeldPoints(model, data.main(), points, snap.followed);
  std::vector<int> match;
  MatchContacts(mode.contacts, points, match);
  std::vector<bool> used(points.size(), false);
  for (int i : match) {
    if (i >= 0) used[i] = true;
  }
  const Options& opt = model.options();
  HeldSpan span(model, data.main(), dyn, solver);
  RowMatrix rows;
  for (size_t i = 0; i < points.size(); i++) {
    if (used[i]) continue;
    const ContactPoint& p = points[i];
    snap.inactive.push_back(p);
    rows.resize(ContactRowCount(p), model.nv());
    ContactRows(model, data.main(), p, rows, data.work());
    // (∂g/∂t: 0 without a prescribed motion)
    const double rate = rows.row(0).dot(x.qvel) + (opt.mocap_motion ? SurfaceVelocity(model, data.main(), p)(0) : 0.0);
    snap.inactive_rate.push_back(rate);
    const bool resting = std::abs(p.gap) <= opt.contact_tol && std::abs(rate) <= opt.velocity_tol;
    snap.held_by_mode.push_back(resting && span.Holds(p, rows.row(0)));
  }
  return snap;
}

// gap of the point `id` (outside the mode) at x; false when its pair lists no point for it there
bool GapIfListed(const Model& model, Data& data, const State& x, const Mode& mode, const ContactId& id,
                 double& gap) {
  std::vector<ContactId> ids = mode.contacts;
  ids.push_back(id);
  // the kinematics and the geom pairs of the mode and of id alone (no broad phase over the model)
  std::vector<ContactPoint> points;
  EvaluatePositionForPairs(model, data.aux(), x.qpos.data(), ids, points, false);
  std::vector<int> match;
  MatchContacts(ids, points, match);
  const int i = match.back();
  if (i < 0) return false;
  gap = points[i].gap;
  return true;
}

// what to change when a contact was first seen already penetrating: the settings that exist
std::string MissedAdvice(const Model& model) {
  char buf[300];
  std::snprintf(buf, sizeof(buf),
                " (a smaller integrator step sees it coming: the rigid command's --step, SimulatorOptions::step;"
                " or a wider detection margin: Options::detect_margin, now %.3g m)",
                model.detect_margin());
  return buf;
}

// the mode's contacts with geometric features hold the one they have at x (contact_features.h)
void HoldFeatures(const Model& model, Data& data, HybridState& s) {
  const mjModel* m = model.mj();
  if (!NeedsFeatures(m, s.mode.contacts)) return;
  mju_copy(data.aux()->qpos, s.x.qpos.data(), m->nq);
  mj_kinematics(m, data.aux());
  s.mode.contacts = WithFeatures(m, data.aux(), s.mode.contacts);
}

// the held contacts keep matching their own points: each anchor moved to its point at s.x
// (FollowHeldPoints, on the points of the mode's own geom pairs)
void FollowHeld(const Model& model, Data& data, HybridState& s) {
  if (s.mode.contacts.empty()) return;
  std::vector<ContactPoint> points;
  EvaluatePositionForPairs(model, data.aux(), s.x.qpos.data(), s.mode.contacts, points, false);
  FollowHeldPoints(model, data.aux(), points, s.mode.contacts);
}

// whether a and b are the same hybrid state: x bit for bit, the same contacts (SameContacts; the run's identity, Advance)
bool SameHybridState(const HybridState& a, const HybridState& b) {
  return SameBits(a.x.time, b.x.time) && SameBits(a.x.qpos, b.x.qpos) && SameBits(a.x.qvel, b.x.qvel) &&
         SameBits(a.x.act, b.x.act) && SameContacts(a.mode.contacts, b.mode.contacts);
}

}  // namespace

RigidSimulator::RigidSimulator(const Model& model, const SimulatorOptions& options)
    : model_(model), options_(options), data_(model), restitution_(model), event_limit_(options.max_events) {
  const mjModel* m = model.mj();
  force_tol_ = options.force_tol >= 0 ? options.force_tol : DefaultForceTolerance(m);
  penetration_tol_ = options.penetration_tol >= 0 ? options.penetration_tol : 1e-3 * model.detect_margin();
  if (!(options.step > 0) || !std::isfinite(options.step)) {
    throw ConfigError("integrator step must be a positive number");
  }
  if (!(options.root_tol > 0)) throw ConfigError("root tolerance must be positive");
}

void RigidSimulator::SetControl(const Eigen::VectorXd& ctrl) {
  const mjModel* m = model_.mj();
  if (ctrl.size() != m->nu) {
    throw ConfigError("control has " + std::to_string(ctrl.size()) + " entries, the model has " +
                      std::to_string(m->nu) + " actuators");
  }
  if (!ctrl.allFinite()) throw ConfigError("control is not finite");
  for (mjData* d : {data_.main(), data_.aux()}) mju_copy(d->ctrl, ctrl.data(), m->nu);
}

HybridState RigidSimulator::Initialize(const State& x) {
  CheckSizes(model_.mj(), x);
  if (!IsFinite(x)) throw NumericalError("initial state is not finite (NaN or Inf)");
  const Options& opt = model_.options();
  HybridState s;
  s.x = Normalized(model_.mj(), x);
  start_projection_ = StartProjection();
  event_limit_.Restart();  // a new run
  has_left_ = false;
  ApplyMocapMotion(model_, data_, s.x.time);  // the prescribed surfaces where they are at the start
  ProjectStart(s.x);
  EvaluatePosition(model_, data_.main(), s.x.qpos.data());
  std::vector<ContactPoint> points;
  ListContacts(model_, data_.main(), points);
  const double vtol = opt.velocity_tol * std::max(1.0, s.x.qvel.norm());
  RowMatrix rows;
  for (const ContactPoint& p : points) {
    if (p.gap < -opt.contact_tol) {  // kStrict (ProjectStart leaves none otherwise)
      throw NumericalError("initial state penetrates contact " + ContactLabel(model_, p.id) + " by " +
                           std::to_string(-p.gap) + " m (the rigid model needs a non-penetrating start: " +
                           "the start option 'project' moves it out along the contact normals)");
    }
    if (p.gap > opt.contact_tol) continue;
    rows.resize(ContactRowCount(p), model_.nv());
    ContactRows(model_, data_.main(), p, rows, data_.work());
    // the velocity relative to the surfaces, a prescribed motion's included (J v + SurfaceVelocity)
    const Eigen::VectorXd relative = rows * s.x.qvel + SurfaceVelocity(model_, data_.main(), p);
    if (std::abs(relative(0)) > vtol) continue;
    ContactId id = p.id;
    // a touching contact that slides cannot start sticking: it slips (frictionless)
    if (relative.size() > 1 && relative.tail(relative.size() - 1).norm() > vtol) id.frictionless = true;
    s.mode.contacts.push_back(id);
  }
  ReleasePulling(model_, data_, s.x, s.mode, force_tol_, nullptr);
  HoldFeatures(model_, data_, s);
  left_ = s;
  has_left_ = true;
  return s;
}

void RigidSimulator::ProjectStart(State& x) {
  if (options_.start == SimulatorOptions::Start::kStrict) return;
  const mjModel* m = model_.mj();
  mjData* d = data_.main();
  const double tol = model_.options().contact_tol;
  std::vector<ContactPoint> points;
  EvaluatePosition(model_, d, x.qpos.data());
  ListContacts(model_, d, points);
  std::vector<ContactId> held;  // the points brought to touching (gap 0), matched by identity
  for (const ContactPoint& p : points) {
    if (p.gap < -tol) {
      held.push_back(p.id);
      start_projection_.contacts.push_back({ContactLabel(model_, p.id), -p.gap});
    }
  }
  if (held.empty()) return;  // nothing penetrates: the start is kept bit for bit
  std::sort(start_projection_.contacts.begin(), start_projection_.contacts.end(),
            [](const StartProjection::Contact& a, const StartProjection::Contact& b) { return a.depth > b.depth; });
  const StartProjection::Contact& worst = start_projection_.contacts.front();
  if (worst.depth > options_.start_projection_limit) {
    char msg[300];
    std::snprintf(msg, sizeof(msg),
                  " by %.6g m, deeper than the start projection's limit of %.6g m (the option "
                  "start_projection_limit; the start option 'strict' refuses any penetration)",
                  worst.depth, options_.start_projection_limit);
    throw NumericalError("initial state penetrates contact " + worst.label + msg);
  }
  // Gauss–Newton on J_n Δq = −gap over the held points, the smallest move in the mass metric,
  // Δq = W M⁻¹Jᵀ (J W M⁻¹ Jᵀ)⁺ (−gap), first with W selecting the free joints' degrees of freedom
  // alone (a robot's keyframe keeps its joint angles: the base rises out of the floor), then, if
  // that cannot reach every point, with all of them
  std::vector<bool> base(model_.nv(), false);
  bool has_base = false;
  for (int j = 0; j < m->njnt; j++) {
    if (m->jnt_type[j] != mjJNT_FREE) continue;
    for (int k = 0; k < 6; k++) base[m->jnt_dofadr[j] + k] = true;
    has_base = true;
  }
  const State x0 = x;
  RowMatrix rows;
  std::vector<int> match;
  for (int pass = has_base ? 0 : 1; pass < 2; pass++) {
    x = x0;
    bool converged = false;
    for (int iteration = 0; iteration < 30 && !converged; iteration++) {
      EvaluatePosition(model_, d, x.qpos.data());
      ListContacts(model_, d, points);
      // the held points, and any other point the move has pushed into penetration
      MatchContacts(held, points, match);
      std::vector<bool> used(points.size(), false);
      for (int i : match) {
        if (i >= 0) used[i] = true;
      }
      std::vector<const ContactPoint*> active;
      for (int i : match) {
        if (i >= 0) active.push_back(&points[i]);
      }
      for (size_t i = 0; i < points.size(); i++) {
        if (!used[i] && points[i].gap < -tol) {
          active.push_back(&points[i]);
          held.push_back(points[i].id);
        }
      }
      converged = true;
      for (const ContactPoint* p : active) converged = converged && std::abs(p->gap) <= tol;
      if (converged) break;
      const int k = static_cast<int>(active.size());
      RowMatrix J(k, model_.nv());
      Eigen::VectorXd target(k);
      for (int i = 0; i < k; i++) {
        rows.resize(ContactRowCount(*active[i]), model_.nv());
        ContactRows(model_, d, *active[i], rows, data_.work());
        J.row(i) = rows.row(0);
        target(i) = -active[i]->gap;
      }
      RowMatrix MinvJt(k, model_.nv());  // rows: M⁻¹ J_iᵀ, or on the base pass M_bb⁻¹ J_bᵀ
      if (pass == 0) {
        // the base's own block M_bb of the mass matrix (the other joints held), not the base rows
        // of M⁻¹ (which let the base swing as if the limbs were free: G1 moved |dq| 1.06 for a
        // 0.41 mm penetration)
        std::vector<int> dofs;
        for (int v = 0; v < model_.nv(); v++) {
          if (base[v]) dofs.push_back(v);
        }
        const int nb = static_cast<int>(dofs.size());
        RowMatrix M(model_.nv(), model_.nv());
        mj_fullM(m, d, M.data());
        Eigen::MatrixXd Mbb(nb, nb), Jb(k, nb);
        for (int a = 0; a < nb; a++) {
          Jb.col(a) = J.col(dofs[a]);
          for (int b = 0; b < nb; b++) Mbb(a, b) = M(dofs[a], dofs[b]);
        }
        const Eigen::MatrixXd MbbInvJbt = Mbb.ldlt().solve(Jb.transpose());  // nb × k
        MinvJt.setZero();
        for (int a = 0; a < nb; a++) MinvJt.col(dofs[a]) = MbbInvJbt.row(a).transpose();
      } else {
        mj_solveM(m, d, MinvJt.data(), J.data(), k);
      }
      const Eigen::MatrixXd A = J * MinvJt.transpose();
      Eigen::VectorXd lambda;
      SolvePsd(A, target, 1e-12, lambda);
      Eigen::VectorXd dq = MinvJt.transpose() * lambda;
      mj_integratePos(m, x.qpos.data(), dq.data(), 1);
      x = Normalized(m, x);
      start_projection_.iterations++;
    }
    if (converged) {
      Eigen::VectorXd dq(model_.nv());
      mj_differentiatePos(m, dq.data(), 1, x0.qpos.data(), x.qpos.data());
      start_projection_.dq_norm = dq.norm();
      start_projection_.base_only = pass == 0;
      return;
    }
  }
  throw NumericalError("initial state penetrates contact " + worst.label + " by " + std::to_string(worst.depth) +
                       " m and projecting it onto the contact manifold did not converge (the start option "
                       "'strict' refuses it instead)");
}

Mode RigidSimulator::IslandMode(const Mode& mode, const ContactId& id) const {
  if (!options_.locate_on_islands) return mode;
  return RestrictMode(model_.mj(), mode, IslandOf(model_, mode.contacts, {id}));
}

double RigidSimulator::LocalGap(const State& x, const Mode& local, const ContactId& id, double tau) {
  work_.locate_samples++;
  work_.locate_contacts += static_cast<long long>(local.contacts.size());
  // a candidate its pair no longer lists at the sample is apart there, as the engine hook's guard
  // reads it (crossings.cc): a box's vertex is listed over a face only while it is its box's support
  // towards it, so a candidate corner can leave the list inside the band (BoxPile(16) stopped at
  // 0.872 s, "left the detection margin while its event was being located"); were it still
  // penetrating, the step's end finds it
  const State at = Rk4Step(model_, data_, x, local, tau);
  double gap = 0;
  if (!GapIfListed(model_, data_, at, local, id, gap)) return model_.detect_margin();
  return gap;
}

int RigidSimulator::StartOf(const ContactPoint& p, const State& x, const Mode& mode, double h,
                            CarriedAnchors& carried) {
  if (carried.NeedsRates(p.id)) {
    // the pair's points a small sub-step in: each start point's nearest there gives its anchor's rate
    const double delta = kAnchorRateProbe * h;
    const Mode local = IslandMode(mode, p.id);
    work_.locate_samples++;
    work_.locate_contacts += static_cast<long long>(local.contacts.size());
    const State y = Rk4Step(model_, data_, x, local, delta);
    std::vector<ContactId> ids = local.contacts;
    ids.push_back(p.id);
    std::vector<ContactPoint> points;
    EvaluatePositionForPairs(model_, data_.aux(), y.qpos.data(), ids, points, false);
    carried.Carry(p.id, points, delta, h);
  }
  return carried.StartOf(p.id);
}

double RigidSimulator::RimListingGuard(const State& y, const ContactId& id) {
  const mjModel* m = model_.mj();
  ApplyMocapMotion(model_, data_, y.time);  // a plane on a prescribed motion (no-op without one)
  mju_copy(data_.aux()->qpos, y.qpos.data(), m->nq);
  mj_kinematics(m, data_.aux());
  return CylinderRimListingGuard(m, data_.aux(), id.geom1, id.geom2);
}

bool RigidSimulator::RimListingBegins(const State& x0, const State& x1, const ContactPoint& p) {
  const mjModel* m = model_.mj();
  if (!OwnPlaneCylinderPoints(m, p.id.geom1, p.id.geom2)) return false;
  const double g0 = RimListingGuard(x0, p.id);
  if (!(g0 < 0) || !(RimListingGuard(x1, p.id) >= 0)) return false;
  return IsCylinderRimPoint(m, data_.aux(), p.id.geom1, p.id.geom2, p.pos);  // aux at x1
}

Eigen::VectorXd RigidSimulator::RimListingGuardGradient(const State& y, const ContactId& id) {
  // h = |n × a| − T, n the plane's normal, a the cylinder's axis: dh = −(n·a)/|n × a| d(n·a),
  // d(n·a) = (dθ_cylinder − dθ_plane)·(a × n), dθ = jacr·dv (world frame, mj_jacGeom)
  const mjModel* m = model_.mj();
  ApplyMocapMotion(model_, data_, y.time);
  mjData* d = data_.aux();
  mju_copy(d->qpos, y.qpos.data(), m->nq);
  mj_kinematics(m, d);
  mj_comPos(m, d);
  const Eigen::Vector3d n = Eigen::Map<const Eigen::Matrix<double, 3, 3, Eigen::RowMajor>>(d->geom_xmat + 9 * id.geom1).col(2);
  const Eigen::Vector3d a = Eigen::Map<const Eigen::Matrix<double, 3, 3, Eigen::RowMajor>>(d->geom_xmat + 9 * id.geom2).col(2);
  Eigen::Matrix<double, 3, Eigen::Dynamic, Eigen::RowMajor> jr1(3, m->nv), jr2(3, m->nv);
  mj_jacGeom(m, d, nullptr, jr1.data(), id.geom1);
  mj_jacGeom(m, d, nullptr, jr2.data(), id.geom2);
  const double sin_tilt = n.cross(a).norm(), cos_tilt = n.dot(a);
  Eigen::VectorXd grad = Eigen::VectorXd::Zero(model_.ndx());
  grad.head(m->nv) = -(cos_tilt / sin_tilt) * ((jr2 - jr1).transpose() * a.cross(n));
  return grad;
}

bool RigidSimulator::LocateRimTouchdown(const HybridState& s, double h, const ContactPoint& p,
                                        const CrossingOptions& options, double& when, double& lo, double& hi,
                                        bool& at_listing) {
  const Mode local = IslandMode(s.mode, p.id);
  // where the listing begins: its guard from − to + along the island's RK4 (its negative crosses)
  auto listing = [&](double tau) {
    work_.locate_samples++;
    work_.locate_contacts += static_cast<long long>(local.contacts.size());
    return GuardSample{-RimListingGuard(Rk4Step(model_, data_, s.x, local, tau), p.id)};
  };
  const double g0 = -RimListingGuard(s.x, p.id), g1 = listing(h).value;
  const CrossingResult listed = LocateCrossing(listing, 0, g0, h, g1, options);
  if (listed.kind != CrossingKind::kCrossing) return false;
  // from the bracket's far side on it is listed: apart there, its gap's zero after it is the
  // touchdown; touching or in (by the model's error there, r·sin(tilt)·(1 − cos ψ) below the
  // corner that carried it, ψ its angle round the rim from it) it touches down right there
  const double at = listed.hi, gap = LocalGap(s.x, local, p.id, at);
  if (gap > 0) {
    auto phi = [&](double tau) { return GuardSample{LocalGap(s.x, local, p.id, tau)}; };
    const CrossingResult r = LocateCrossing(phi, at, gap, h, p.gap, options);
    if (r.kind != CrossingKind::kCrossing) return false;
    when = r.time, lo = r.lo, hi = r.hi;
    at_listing = false;
    return true;
  }
  if (gap < -penetration_tol_) return false;
  when = at, lo = listed.lo, hi = listed.hi;
  at_listing = true;
  return true;
}

double RigidSimulator::NextGridTime(double t, double t_end) const {
  const double h = options_.step;
  double next = grid_origin_ + (std::floor((t - grid_origin_) / h) + 1) * h;
  if (next <= t) next += h;
  return std::min(next, t_end);
}

void RigidSimulator::AdvanceFixedMode(HybridState& s, double t_end) {

  while (s.x.time < t_end) {
    const double t_next = NextGridTime(s.x.time, t_end);
    s.x = Rk4Step(model_, data_, s.x, s.mode, t_next - s.x.time);
    s.x.time = t_next;
    if (!IsFinite(s.x)) throw NumericalError("state became non-finite at t = " + std::to_string(t_next));
  }
}

std::vector<RigidEvent> RigidSimulator::Advance(HybridState& s, double t_end, int max_events) {
  std::vector<RigidEvent> events;
  Advance(s, t_end, events, max_events);
  return events;
}

void RigidSimulator::Advance(HybridState& s, double t_end, std::vector<RigidEvent>& events, int max_events) {
  if (!(has_left_ && SameHybridState(s, left_))) event_limit_.Restart();  // not the run's state: a new run
  try {
    AdvanceRun(s, t_end, events, max_events);
  } catch (...) {
    left_ = s;  // where the run stopped: a call continuing from there continues its count
    has_left_ = true;
    throw;
  }
  left_ = s;
  has_left_ = true;
}

void RigidSimulator::AdvanceRun(HybridState& s, double t_end, std::vector<RigidEvent>& events, int max_events) {
  int found = 0;  // this call's events

  // touchdown: the gap from + to −; liftoff: λ_n to below −force_tol (a start inside the band
  // brackets the shifted guard λ_n + force_tol, below)
  const GuardRule touchdown_rule{0.0}, liftoff_rule{force_tol_};
  CrossingOptions crossing_options;
  crossing_options.time_tol = options_.root_tol;
  crossing_options.max_iterations = 200;
  GuardSnapshot start = Snapshot(model_, data_, s.x, s.mode);
  while (s.x.time < t_end) {
    const double t_next = NextGridTime(s.x.time, t_end);
    const double h = t_next - s.x.time;
    // a step that takes an active contact out of its band fails naming why (lost_contact.h)
    auto explained = [&](auto evaluate) {
      try {
        return evaluate();
      } catch (const ContactLostError& e) {
        throw NumericalError(LostContactMessage(model_, data_, s, h, e));
      }
    };
    State x1 = explained([&] { return Rk4Step(model_, data_, s.x, s.mode, h); });
    x1.time = t_next;
    if (!IsFinite(x1)) throw NumericalError("state became non-finite at t = " + std::to_string(t_next));
    GuardSnapshot end = explained([&] { return Snapshot(model_, data_, x1, s.mode); });

    // the earliest crossing of any guard from + to − within the step
    double best = h + 1, best_lo = 0, best_hi = 0;
    int best_liftoff = -1;
    ContactId best_touchdown;
    bool touchdown = false;
    bool rim_takes_over = false;  // the touchdown is a cylinder's rim point taking over from its corners
    bool rim_at_listing = false;  // ... where its listing begins (the guard crossed: the listing's)
    // a point that appears penetrating at the step's end is an error unless another event comes
    // first in the step and the point does not penetrate yet at that event: past a held feature's
    // boundary (the mode still on the feature extended) the pair's point of the next feature cuts
    // in (a capsule's end circling a box edge past where its cylinder meets the edge), and the
    // feature event is located before it
    std::vector<ContactId> appeared;  // every such point of the step, in the end list's order
    auto appeared_message = [&](const ContactId& id) {
      return "contact " + ContactLabel(model_, id) + " appeared penetrating at t = " + std::to_string(t_next) +
             MissedAdvice(model_);
    };
    // each start point's anchor carried over the step at its rate (StartOf), computed per pair
    // when first needed
    CarriedAnchors carried;
    carried.Begin(start.inactive);
    for (size_t j = 0; j < end.inactive.size(); j++) {
      const ContactPoint& p = end.inactive[j];
      if (!touchdown_rule.Negative(p.gap)) {
        // apart at both ends, approaching at the start and receding at the end: the path may dip
        // through the surface and out again within the step (a fast pass over an edge or a
        // curved surface); the dip search finds the earlier crossing, if any
        if (!(end.inactive_rate[j] > 0)) continue;
        const int i = StartOf(p, s.x, s.mode, h, carried);
        const double tol = model_.options().contact_tol;
        if (i < 0 || !(start.inactive[i].gap > tol) || !(start.inactive_rate[i] < 0)) continue;
        const ContactId id = start.inactive[i].id;
        const Mode local = IslandMode(s.mode, id);
        auto gap = [&](double tau) { return LocalGap(s.x, local, AnchorAt(id, p.id, tau, h), tau); };
        // a dip counts once it goes clearly below zero (deeper than contact_tol): a tangent pass
        // is a graze of the rigid model, not an impact
        auto below_tol = [&](double tau) { return GuardSample{gap(tau) + tol}; };
        CrossingOptions dip = crossing_options;
        dip.slope_a = start.inactive_rate[i];
        dip.slope_b = end.inactive_rate[j];
        const CrossingResult deep = LocateCrossing(below_tol, 0, start.inactive[i].gap + tol, h, p.gap + tol, dip);
        if (deep.kind != CrossingKind::kCrossing) continue;
        // the gap's own zero lies before the deep point: bracket it there
        auto exact = [&](double tau) { return GuardSample{gap(tau)}; };
        const CrossingResult r =
            LocateCrossing(exact, 0, start.inactive[i].gap, deep.hi, gap(deep.hi), crossing_options);
        if (r.kind == CrossingKind::kCrossing && r.time < best) {
          best = r.time, best_lo = r.lo, best_hi = r.hi;
          best_touchdown = AnchorAt(id, p.id, r.time, h);
          touchdown = true;
          rim_takes_over = false;
          best_liftoff = -1;
        }
        continue;
      }
      if (RimListingBegins(s.x, x1, p)) {
        // a cylinder's lowest rim point, listed from a tilt threshold on (own_points.h), new in the
        // step: it is not the continuation of a start point (a corner) but takes over from them
        // where its listing begins, located; it touches down there, or at its gap's zero after it
        double when = 0, lo = 0, hi = 0;
        bool at_listing = false;
        if (!LocateRimTouchdown(s, h, p, crossing_options, when, lo, hi, at_listing)) {
          appeared.push_back(p.id);
        } else if (when < best) {
          best = when, best_lo = lo, best_hi = hi;
          best_touchdown = p.id;
          touchdown = true;
          rim_takes_over = true;
          rim_at_listing = at_listing;
          best_liftoff = -1;
        }
        continue;
      }
      const int i = StartOf(p, s.x, s.mode, h, carried);
      // a point new at the step's end that touches to round-off (|gap| ≤ contact_tol), at rest, its
      // gap held by the mode's rows (Snapshot's held_by_mode: a box's edge crossing the other's rim
      // as the held crossing of its neighbouring edge reaches the rim's end, both faces flat: born at
      // the held corner, gap −5e-18): no crossing was missed; the next step takes it from its start
      if (i < 0 && end.held_by_mode[j]) continue;
      if (i < 0) {
        appeared.push_back(p.id);
        continue;
      }
      const ContactId id = start.inactive[i].id;
      const Mode local = IslandMode(s.mode, id);
      auto phi = [&](double tau) { return LocalGap(s.x, local, AnchorAt(id, p.id, tau, h), tau); };
      // the guard at the step's end is the end point's own (AnchorAt at τ = h), taken along the
      // island's RK4: it is not penetrating only where that and the whole mode's step differ in
      // sign (an end gap within round-off of zero) — no crossing to locate here
      if (phi(h) >= 0) {
        appeared.push_back(p.id);
        continue;
      }
      // where the guard starts decides the bracket: apart (the usual case); touching and
      // approaching (the event fell on a grid point: it is right here); touching and bouncing
      // away (it comes back within this step: bracket from the first sub-sample where it is
      // apart); touching and at rest relative to the surface (a contact just released: the
      // guard is shifted by contact_tol, so round-off drift around zero does not chatter)
      const double tol = model_.options().contact_tol;
      const double slow = model_.options().min_bounce_speed;
      double a = 0, fa = start.inactive[i].gap, fb = p.gap, shift = 0;
      // touching (|gap| ≤ contact_tol), at rest (|d gap / dt| ≤ velocity_tol, the surface's
      // prescribed motion included), its gap held at zero by the mode's rows (Snapshot, HeldSpan: a
      // box's fourth corner on a face held by three, issue 14; on a prescribed surface the rates
      // agree too): it crosses zero with ∇gᵀF⁻ at round-off — no event of the rigid model (the flows
      // with and without it coincide). It takes the at-rest branch below: it counts only once it
      // sinks contact_tol below where it started
      const bool resting = start.held_by_mode[i];
      if (fa <= 0 || resting) {
        // a start below zero is round-off or the drift of a constraint held at acceleration level
        // (a contact released after a long stance, a perturbed start): tolerated up to
        // penetration_tol; anything deeper was missed
        if (fa < -penetration_tol_) {
          char msg[200];
          std::snprintf(msg, sizeof(msg), " penetrates by %.3g m at t = %.9g without a detectable crossing", -fa,
                        s.x.time);
          throw NumericalError("contact " + ContactLabel(model_, p.id) + msg + MissedAdvice(model_));
        }
        const double vn = start.inactive_rate[i];  // J_n v + ∂g/∂t at the step's start
        if (vn < -slow) {
          if (0 < best) {
            best = 0, best_lo = 0, best_hi = 0;
            best_touchdown = id;
            touchdown = true;
            rim_takes_over = false;
            best_liftoff = -1;
          }
          continue;
        } else if (vn > slow) {
          for (int k = 1; fa <= 0 && k < options_.rebound_samples; k++) {
            a = h * k / options_.rebound_samples;
            fa = phi(a);
          }
          if (fa <= 0) {
            char msg[200];
            std::snprintf(msg, sizeof(msg), " bounced off and back within step/%d at t = %.9g: Zeno or chattering "
                          "(lower the step)", options_.rebound_samples, s.x.time);
            throw NumericalError("contact " + ContactLabel(model_, p.id) + msg);
          }
        } else {
          // touching and at rest relative to the surface: the guard is taken relative to where
          // it starts, so drift and round-off around zero do not chatter
          shift = tol - fa;
          if (fb + shift >= 0) continue;
          fa += shift;
          fb += shift;
        }
      }
      auto shifted = [&](double tau) { return GuardSample{phi(tau) + shift}; };
      const CrossingResult r = LocateCrossing(shifted, a, fa, h, fb, crossing_options);
      if (r.kind == CrossingKind::kCrossing && r.time < best) {
        // LocalGap reads an unlisted sample as apart (detect_margin): a bracket closing on where
        // the point's listing begins, the point already deep beyond it, is no located crossing
        if (phi(r.hi) < -penetration_tol_) {
          appeared.push_back(p.id);
          continue;
        }
        best = r.time, best_lo = r.lo, best_hi = r.hi;
        best_touchdown = AnchorAt(id, p.id, r.time, h);
        touchdown = true;
        rim_takes_over = false;
        best_liftoff = -1;
      }
    }
    for (int k = 0; k < end.normal_force.size(); k++) {
      // fires once the force is clearly pulling; a start inside the ±force_tol band brackets the
      // shifted guard λ + force_tol, so a sample landing in the band cannot hide the release
      if (!liftoff_rule.Negative(end.normal_force(k))) continue;
      const double shift = start.normal_force(k) > 0 ? 0.0 : force_tol_;
      double lo = 0, hi = 0, root = 0;
      if (start.normal_force(k) + shift > 0) {
        // contact k's force along the path of its own island (the mode's contacts coupled to it)
        const Island island = options_.locate_on_islands ? IslandOf(model_, s.mode.contacts, {s.mode.contacts[k]})
                                                         : Island{};
        const Mode local = RestrictMode(model_.mj(), s.mode, island);
        const int kk = IndexInIsland(model_.mj(), s.mode, k, island);
        auto phi = [&](double tau) {
          work_.locate_samples++;
          work_.locate_contacts += static_cast<long long>(local.contacts.size());
          return GuardSample{LiftoffGuard(model_, data_, Rk4Step(model_, data_, s.x, local, tau), local, kk) + shift};
        };
        const CrossingResult r = LocateCrossing(phi, 0, start.normal_force(k) + shift, h,
                                                end.normal_force(k) + shift, crossing_options);
        root = r.time, lo = r.lo, hi = r.hi;
      }
      if (root < best) {
        best = root, best_lo = lo, best_hi = hi;
        best_liftoff = k;
        touchdown = false;
      }
    }

    // a contact's geometric feature changing (a ball passing from a box's face onto its edge): the
    // region's guards along the island's own RK4 sub-steps; one that starts on the boundary (just
    // switched) is taken relative to feature_tol inside it, so round-off there does not chatter
    int best_feature = -1, best_guard_index = -1;
    FeatureGuard best_guard;
    const mjModel* m = model_.mj();
    for (size_t k = 0; k < end.features.size(); k++) {
      for (int j = 0; j < end.features[k].count; j++) {
        const double fb = end.features[k].guard[j].value;
        if (!(fb < 0)) continue;
        const double fa = start.features[k].guard[j].value;
        const ContactId id = s.mode.contacts[k];
        const double tol = 1e-12 * (1 + end.features[k].guard[j].length);
        const double shift = fa > 0 ? 0.0 : tol - fa;
        if (fb + shift >= 0) continue;
        const Mode local = IslandMode(s.mode, id);
        auto phi = [&](double tau) {
          work_.locate_samples++;
          work_.locate_contacts += static_cast<long long>(local.contacts.size());
          const State y = Rk4Step(model_, data_, s.x, local, tau);
          mju_copy(data_.aux()->qpos, y.qpos.data(), m->nq);
          mj_kinematics(m, data_.aux());
          return GuardSample{FeatureGuards(m, data_.aux(), id).guard[j].value + shift};
        };
        const CrossingResult r = LocateCrossing(phi, 0, fa + shift, h, fb + shift, crossing_options);
        if (r.kind == CrossingKind::kCrossing && r.time < best) {
          best = r.time, best_lo = r.lo, best_hi = r.hi;
          best_feature = static_cast<int>(k);
          best_guard_index = j;
          touchdown = false;
          best_liftoff = -1;
        }
      }
    }

    if (!touchdown && best_liftoff < 0 && best_feature < 0) {
      if (!appeared.empty()) throw NumericalError(appeared_message(appeared.front()));
      s.x = x1;
      s.mode.contacts.swap(end.followed);  // FollowHeld at x1, from the step's end snapshot
      start = std::move(end);
      continue;
    }
    // a feature event's guard as it stands at the located crossing, not at the step's end: a guard
    // that is the larger of two terms (a capsule end's side and the lines' angle, segment_features.h)
    // crosses where its later term does, and the step's end may have the other term the larger. On
    // either side of the bracket the crossing term is the larger; the far side decides whether the
    // pair's listing changes there (then the event is taken there), the event's state gives ∇h
    const bool feature_event = !touchdown && best_liftoff < 0 && best_feature >= 0;
    auto guard_at = [&](const State& y) {
      mju_copy(data_.aux()->qpos, y.qpos.data(), m->nq);
      mj_kinematics(m, data_.aux());
      const FeatureGuardSet set = FeatureGuards(m, data_.aux(), s.mode.contacts[best_feature]);
      // (a region's guards are one list whatever the state, but for lines exactly parallel)
      return best_guard_index < set.count ? set.guard[best_guard_index]
                                          : end.features[best_feature].guard[best_guard_index];
    };
    bool far_side = false;
    State x_far;
    if (feature_event) {
      x_far = Rk4Step(model_, data_, s.x, s.mode, best_hi);
      best_guard = guard_at(x_far);
      far_side = best_guard.listing_changes;
    }
    HybridState at_event{far_side ? x_far : Rk4Step(model_, data_, s.x, s.mode, best), s.mode};
    if (feature_event && !far_side) best_guard = guard_at(at_event.x);
    const double t0 = s.x.time;
    // a point that appeared waits for the earlier event only if it does not penetrate there yet:
    // otherwise it crossed first, unseen, and the event would follow a missed one (each point that
    // appeared in the step, not the first alone)
    for (const ContactId& id : appeared) {
      double appeared_gap = 0;
      if (GapIfListed(model_, data_, at_event.x, s.mode, id, appeared_gap) && appeared_gap < -penetration_tol_) {
        char msg[200];
        std::snprintf(msg, sizeof(msg), "; it penetrated by %.3g m already at t = %.9g, where an event of the step came first",
                      -appeared_gap, t0 + best);
        throw NumericalError(appeared_message(id) + msg);
      }
    }
    TakeOver take_over;
    if (touchdown && rim_takes_over) {
      // the rim point takes over from the corners the mode holds on its pair (round the rim from
      // it, at most r·T above it there, T the listing threshold): they leave the mode at the event
      // and the impact is the rim point's alone, no other point joins it (a held corner joining it
      // slower than min_bounce_speed would be kept with a pulling impulse, turning the tilt off the
      // rim point: own_points.h). The flow before is the mode with them (F⁻), and the guard crossed
      // is the listing's where the hand-over is its located crossing (theory.md)
      for (const ContactId& c : at_event.mode.contacts) {
        if (c.SamePair(best_touchdown)) take_over.leaving.push_back(c);
      }
      if (rim_at_listing) take_over.grad_h = RimListingGuardGradient(at_event.x, best_touchdown);
    }
    RigidEvent event =
        touchdown ? TouchdownEvent(model_, data_, restitution_, at_event.x, at_event.mode, best_touchdown,
                                   rim_takes_over ? -INFINITY : options_.simultaneous_gap, force_tol_, true, nullptr,
                                   nullptr, rim_takes_over ? &take_over : nullptr)
        : best_feature >= 0
            ? FeatureEvent(model_, data_, restitution_, at_event.x, at_event.mode, best_feature, best_guard, force_tol_)
            : LiftoffEvent(model_, data_, restitution_, at_event.x, at_event.mode, best_liftoff, force_tol_);
    event.bracket_lo = t0 + best_lo;
    event.bracket_hi = t0 + best_hi;
    // the event is delivered and counted even when the run stops right after it (below, or a throw
    // while its held points are followed)
    events.push_back(std::move(event));
    found++;
    s.x = events.back().x_plus;
    s.mode = events.back().mode_after;
    HoldFeatures(model_, data_, s);  // a contact that joined takes the feature it touched on
    FollowHeld(model_, data_, s);
    event_limit_.Count(events.back().time);
    // a capsule held on another's interior near parallel may rock faster than RK4's step can follow
    // (capsule_rocking.h): stop here, naming the step it needs, rather than integrate it unstably
    const std::string stiff = StiffRockingError(model_, data_, s, options_.step);
    if (!stiff.empty()) throw NumericalError(stiff);
    if (max_events > 0 && found >= max_events) break;
    start = Snapshot(model_, data_, s.x, s.mode);
  }
}

void RunRigid(RigidSimulator& sim, HybridState& s, double t_end,
              const std::function<void(const RigidEvent&)>& on_event, const std::function<void()>& on_chunk) {
  // each Advance below continues where the last left off: max_events counts the whole run
  while (s.x.time < t_end) {
    const double chunk_end = std::min(t_end, s.x.time + 0.1);
    std::vector<RigidEvent> found;
    try {
      while (s.x.time < chunk_end && found.empty()) sim.Advance(s, chunk_end, found, 1);
    } catch (...) {
      for (const RigidEvent& ev : found) on_event(ev);  // the event the run stopped at, if any
      throw;
    }
    for (const RigidEvent& ev : found) on_event(ev);
    if (on_chunk) on_chunk();
  }
}

}  // namespace saltation
