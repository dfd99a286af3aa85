#include "crossings.h"

#include "mujoco_stages.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "saltation/contact_features.h"
#include "saltation/islands.h"
#include "saltation/root_finding.h"

namespace saltation {
namespace {

// d gap / dt of a contact point: the normal component of geom2's velocity relative to geom1's
// at the point, from MuJoCo's com-based body velocities (cvel) of the evaluated state
double GapRate(const mjModel* m, const mjData* d, const ContactPoint& p) {
  Eigen::Vector3d v[2];
  const int geoms[2] = {p.id.geom1, p.id.geom2};
  for (int side = 0; side < 2; side++) {
    const int b = m->geom_bodyid[geoms[side]];
    const Eigen::Map<const Eigen::Vector3d> w(d->cvel + 6 * b), lin(d->cvel + 6 * b + 3);
    const Eigen::Map<const Eigen::Vector3d> com(d->subtree_com + 3 * m->body_rootid[b]);
    v[side] = lin + w.cross(p.pos - com);
  }
  return p.frame.row(0).dot(v[1] - v[0]);
}

// Features of geom2 a point touches, as ContactId anchors tell them: its octant (ContactOctant,
// ContactLabel's number; a pair touching at one point only has one feature, −1), and for a box the
// corner (the octant when the point lies in the outer half of the box along each axis; −1
// elsewhere: an edge's middle, a face's inside)
int Corner(const mjModel* m, const ContactId& id) {
  if (m->geom_type[id.geom2] != mjGEOM_BOX) return -1;
  const double* size = m->geom_size + 3 * id.geom2;
  for (int a = 0; a < 3; a++) {
    if (!(std::abs(id.anchor(a)) > 0.5 * size[a])) return -1;
  }
  return ContactOctant(m, id);
}

// whether `points` had a point of p's pair on each feature p touches (a height field lists a
// box's points prism by prism, wandering over its faces: a new corner shows as either)
bool FeatureListed(const mjModel* m, const std::vector<ContactPoint>& points, const ContactPoint& p) {
  const int octant = ContactOctant(m, p.id), corner = Corner(m, p.id);
  bool octant_seen = false, corner_seen = corner < 0;
  for (const ContactPoint& q : points) {
    if (!q.id.SamePair(p.id)) continue;
    octant_seen = octant_seen || ContactOctant(m, q.id) == octant;
    corner_seen = corner_seen || Corner(m, q.id) == corner;
  }
  return octant_seen && corner_seen;
}

}  // namespace

CrossingFinder::CrossingFinder(const Model& model, Data& data, Resimulator& resim, const HookOptions& options,
                               double force_tol)
    : model_(model),
      data_(data),
      resim_(resim),
      options_(options),
      force_tol_(force_tol),
      // RK4's contact list is its last stage's, not x_k's: the rows could not be re-formed at x_{k−1}
      prefilter_(model.mj(), force_tol, options.release_prefilter && model.mj()->opt.integrator != mjINT_RK4) {}

const RowMatrix* CrossingFinder::PreviousRows(const StepGuards& p, const std::vector<ContactId>& ids,
                                              const std::vector<ContactPoint>& points) {
  if (!p.at) return nullptr;
  const mjModel* m = model_.mj();
  mjData* aux = data_.aux();
  Scratch& w = scratch_;
  // aux at x_{k−1} as MuJoCo's data was then (its mocap bodies included; aux's own are restored
  // after: its other users place them themselves)
  const int nmocap = m->nmocap;
  w.mocap_pos = Eigen::Map<const Eigen::VectorXd>(aux->mocap_pos, 3 * nmocap);
  w.mocap_quat = Eigen::Map<const Eigen::VectorXd>(aux->mocap_quat, 4 * nmocap);
  mju_copy(aux->mocap_pos, p.at->mocap_pos.data(), 3 * nmocap);
  mju_copy(aux->mocap_quat, p.at->mocap_quat.data(), 4 * nmocap);
  if (m->neq || HasBodyTransmission(m)) {
    EvaluatePosition(model_, aux, p.at->qpos.data());  // the equality rows need the constraint stage
  } else {
    mju_copy(aux->qpos, p.at->qpos.data(), m->nq);
    mj_kinematics(m, aux);
    mj_comPos(m, aux);
  }
  ModeConstraints(model_, aux, ids, points, w.previous_set, data_.work());
  mju_copy(aux->mocap_pos, w.mocap_pos.data(), 3 * nmocap);
  mju_copy(aux->mocap_quat, w.mocap_quat.data(), 4 * nmocap);
  return &w.previous_set.J;
}

bool CrossingFinder::HoldChangedFeatures(const StepGuards& p, const StepGuards& g, const Mode& mode) {
  if (p.mode_feature.size() != mode.contacts.size() || !SameContacts(p.mode_ids, mode.contacts)) return false;
  Scratch& w = scratch_;
  bool changed = false;
  w.held.clear();
  w.hint_points = p.points;
  for (size_t k = 0; k < mode.contacts.size(); k++) {
    if (w.skip[k]) continue;
    w.held.push_back(mode.contacts[k]);
    const int feature = g.mode_feature[k];
    if (feature < 0 || feature == p.mode_feature[k]) continue;
    changed = true;
    w.held.back().feature = feature;
    // x_{k−1}'s point of the contact lends x_k's first tangent: both rows in one frame
    const int i = MatchContact(mode.contacts[k], w.hint_points);
    if (i >= 0 && g.match[k] >= 0) w.hint_points[i].frame.row(1) = g.points[g.match[k]].frame.row(1);
  }
  return changed;
}

void CrossingFinder::FillLostPoints(const mjData* d, const Mode& mode, StepGuards& g) {
  Scratch& w = scratch_;
  w.lost.clear();
  for (size_t k = 0; k < mode.contacts.size(); k++) {
    if (g.match[k] < 0) w.lost.push_back(mode.contacts[k]);
  }
  CollidePairs(model_, d, w.lost, w.collided);
  for (size_t k = 0; k < mode.contacts.size(); k++) {
    if (g.match[k] >= 0) continue;
    const int i = MatchContact(mode.contacts[k], w.collided);
    if (i < 0) continue;
    g.points.push_back(w.collided[i]);
    g.match[k] = static_cast<int>(g.points.size()) - 1;
    w.collided[i].id.geom1 = -1;  // each point serves one contact
  }
}

void CrossingFinder::Evaluate(const mjData* d, const SavedStep& cur, const Mode& mode, const StepGuards* previous,
                              double dt, StepGuards& g) {
  const int nv = model_.mj()->nv;
  g.present = true;
  g.time = cur.time;
  g.at = &cur;
  g.force_valid = false;
  g.rows_valid = false;
  ListContacts(model_, d, g.points);
  MatchContacts(mode.contacts, g.points, g.match);
  if (std::any_of(g.match.begin(), g.match.end(), [](int i) { return i < 0; })) FillLostPoints(d, mode, g);
  g.inactive.clear();
  g.inactive_rate.clear();
  // the rates seed the localisation only where the contact list describes the step's start
  // state (not with RK4: its last stage)
  const bool rates = model_.mj()->opt.integrator != mjINT_RK4;
  for (size_t i = 0; i < g.points.size(); i++) {
    if (std::find(g.match.begin(), g.match.end(), static_cast<int>(i)) == g.match.end()) {
      g.inactive.push_back(g.points[i]);
      g.inactive_rate.push_back(rates ? GapRate(model_.mj(), d, g.points[i]) : 0.0);
    }
  }
  g.mode_ids = mode.contacts;
  g.mode_gap.resize(g.match.size());
  g.mode_feature.resize(g.match.size());
  for (size_t k = 0; k < g.match.size(); k++) {
    g.mode_gap[k] = g.match[k] >= 0 ? g.points[g.match[k]].gap : std::numeric_limits<double>::infinity();
    g.mode_feature[k] = HasFeatures(model_.mj(), mode.contacts[k]) ? FeatureAt(model_.mj(), d, mode.contacts[k]) : -1;
  }
  if (mode.contacts.empty()) return;
  if (std::any_of(g.match.begin(), g.match.end(), [](int i) { return i < 0; })) return;

  // the groups far from release keep their last λ_n (release_prefilter.h); the others are solved
  Scratch& w = scratch_;
  evaluated_++;
  const int skipped = prefilter_.Decide(model_.mj(), d, mode.contacts, g.points, g.match, w.skip, g.force);
  const int n = static_cast<int>(mode.contacts.size());
  g.force_valid = true;
  if (skipped == n) {
    skipped_++;
    return;
  }
  g.solved_all = skipped == 0;
  g.solved_ids.clear();
  for (int k = 0; k < n; k++) {
    if (!w.skip[k]) g.solved_ids.push_back(mode.contacts[k]);
  }
  // rigid normal forces from MuJoCo's own evaluation at x_k: M's factor, qacc_smooth, the rows;
  // the bias J̇v by a difference of the rows over the last step (the exact guard is recomputed
  // when a sign change is localised). Solving a subset of the tree groups gives the same λ_n as the
  // whole mode: J M⁻¹ Jᵀ is block-diagonal over them (island_solve.h)
  ModeConstraints(model_, d, g.solved_ids, g.points, w.set, data_.work());
  std::swap(g.J, w.set.J);  // g keeps the rows for the next step's difference
  g.rows_valid = true;
  const int rows = static_cast<int>(g.J.rows());
  // J M⁻¹ Jᵀ = Y Yᵀ with the rows of Y = D^{−1/2} L^{−ᵀ} Jᵀ from MuJoCo's factor M = Lᵀ D L (half
  // of a full solve per row), block by block over the groups of rows that share no tree
  w.solver.Compute(model_.mj(), d, g.J, model_.options().rank_tol);
  Eigen::Map<const Eigen::VectorXd> a_s(d->qacc_smooth, nv);
  w.rhs.noalias() = g.J * a_s;  // (negated below; −(J a_s) would evaluate into a temporary)
  if (previous && previous->present && previous->force_valid && previous->mode_ids.size() == mode.contacts.size()) {
    // the previous step's rows of the same contacts: kept, else re-formed at x_{k−1}; where a
    // contact's feature changed over the step, re-formed at x_{k−1} on x_k's feature (rows of two
    // features differ by their normals, not by J̇v·dt)
    const RowMatrix* previous_J = nullptr;
    if (HoldChangedFeatures(*previous, g, mode)) {
      previous_J = PreviousRows(*previous, w.held, w.hint_points);
    } else if (g.solved_all) {
      previous_J = previous->rows_valid && previous->solved_all ? &previous->J
                                                                : PreviousRows(*previous, previous->mode_ids, previous->points);
    } else if (previous->rows_valid && SameContacts(previous->solved_ids, g.solved_ids)) {
      previous_J = &previous->J;
    } else if (SameContacts(previous->mode_ids, mode.contacts)) {
      previous_J = PreviousRows(*previous, g.solved_ids, previous->points);
    }
    if (previous_J && previous_J->rows() == rows) {
      w.lambda.noalias() = g.J * cur.qvel;
      w.lambda.noalias() -= *previous_J * cur.qvel;
      w.rhs += w.lambda / dt;
    }
  }
  w.rhs = -w.rhs;
  w.solver.Solve(w.rhs, w.lambda);
  for (int k = 0, solved = 0; k < n; k++) {
    if (!w.skip[k]) g.force(k) = w.lambda(w.set.normal_row[solved++]);
  }
  prefilter_.Solved(mode.contacts, w.skip, g.force);
}

void CrossingFinder::CarryPair(const StepGuards& before, const ContactId& pair, double dt) {
  // the configuration a short time δ on at x_{k−1}'s velocity (the anchors' rates are first order
  // in δ: the velocity's change over δ does not enter), with the step's inputs (mocap poses)
  const double delta = kAnchorRateProbe * dt;
  const mjModel* m = model_.mj();
  probe_qpos_ = before.at->qpos;
  mj_integratePos(m, probe_qpos_.data(), before.at->qvel.data(), delta);
  LoadInputs(m, *before.at, data_.aux());
  guard_ids_.assign(1, pair);
  EvaluatePositionForPairs(model_, data_.aux(), probe_qpos_.data(), guard_ids_, guard_points_, false);
  carried_.Carry(pair, guard_points_, delta, dt);
}

std::vector<Crossing> CrossingFinder::Detect(const StepGuards& before, const StepGuards& after, const Mode& mode,
                                            const ContactTracker& tracker, long step, double dt) {
  std::vector<Crossing> out;
  // the lists describe x_{k−1} and x_k exactly except with RK4 (its last stage)
  const bool exact_ends = model_.mj()->opt.integrator != mjINT_RK4;
  carried_.Begin(before.inactive);
  for (size_t j = 0; j < after.inactive.size(); j++) {
    const ContactPoint& p = after.inactive[j];
    if (p.gap >= 0) continue;
    // which start point p continues decides the crossing only where one of its pair's is apart
    const bool one_apart = std::any_of(before.inactive.begin(), before.inactive.end(),
                                       [&](const ContactPoint& q) { return q.id.SamePair(p.id) && q.gap > 0; });
    if (exact_ends && before.at && one_apart && carried_.NeedsRates(p.id)) CarryPair(before, p.id, dt);
    int i = carried_.StartOf(p.id);
    // a point on a feature of the pair (a box's corner: FeatureListed) that had no point at all
    // before is a new touch, though its nearest point before was already penetrating, whatever the nearest anchor: an untracked pair lists its points only
    // once they touch, and a height field lists a touching corner prism by prism, so the nearest
    // point of the pair before may be another, already penetrating one (it would hide the touch)
    if (i >= 0 && before.inactive[i].gap <= 0 && !FeatureListed(model_.mj(), before.points, p)) i = -1;
    // untracked pairs appear only once they touch: their guard was positive before
    const double g0 = i >= 0 ? before.inactive[i].gap : model_.detect_margin();
    if (g0 <= 0) continue;  // already negative: not a crossing from + to −
    // hysteresis: a contact released a moment ago must come clearly apart before it re-arms
    if (tracker.RecentlyReleased(GeomPair(p.id.geom1, p.id.geom2), step) && g0 < options_.release_gap) continue;
    Crossing c;
    c.type = Crossing::kTouchdown;
    c.id = i >= 0 ? before.inactive[i].id : p.id;
    c.g0 = g0;
    c.g1 = p.gap;
    c.onset = i < 0;
    c.ends_known = i >= 0 && exact_ends;
    if (c.ends_known) {
      c.rate0 = before.inactive_rate[i];
      c.rate1 = after.inactive_rate[j];
      c.end = p.id;
    }
    out.push_back(c);
  }
  if (before.force_valid && after.force_valid && before.mode_ids.size() == mode.contacts.size()) {
    for (int k = 0; k < after.force.size(); k++) {
      if (before.force(k) > force_tol_ && after.force(k) < -force_tol_) {
        Crossing c;
        c.type = Crossing::kLiftoff;
        c.id = mode.contacts[k];
        c.k = k;
        c.g0 = before.force(k);
        c.g1 = after.force(k);
        out.push_back(c);
      }
    }
  }
  for (size_t k = 0; k < after.mode_gap.size(); k++) {
    if (after.mode_gap[k] > options_.release_gap) {
      Crossing c;
      c.type = Crossing::kRelease;
      c.id = mode.contacts[k];
      c.k = static_cast<int>(k);
      c.s = 1;  // at the end of the interval (x_k)
      out.push_back(c);
    }
  }
  return out;
}

void CrossingFinder::Rename(const std::vector<ContactId>& from, const std::vector<ContactId>& to, StepGuards& g) {
  prefilter_.Rename(from, to);
  if (!SameContacts(g.mode_ids, from)) return;  // g was evaluated on another mode: its ids are not from's
  g.mode_ids = to;
  // the solved contacts: a subsequence of the mode, in its order
  for (size_t i = 0, k = 0; i < g.solved_ids.size(); i++) {
    while (k < from.size() && !SameContact(from[k], g.solved_ids[i])) k++;
    if (k == from.size()) break;
    g.solved_ids[i] = to[k++];
  }
}

void CrossingFinder::Localize(Crossing& c, const Mode& mode, const SavedStep& prev, const SavedStep& cur,
                              double dt) {
  if (c.type == Crossing::kRelease) {
    c.have_x = false;
    c.base = &prev;
    c.s = c.lo = c.hi = dt;
    return;
  }
  // the exact guard at a state
  // (with `slope_velocity` set, also the guard's slope ∇g·slope_velocity into `slope`)
  const Eigen::VectorXd* slope_velocity = nullptr;
  double slope = std::numeric_limits<double>::quiet_NaN();
  // a liftoff's guard, λ_n of the contact, is the rigid solve of its island's mode alone (the
  // other trees' contacts do not reach it: islands.h)
  Mode island_mode;
  int island_k = c.k;
  if (c.type == Crossing::kLiftoff) {
    const Island island = IslandOf(model_, mode.contacts, {c.id});
    island_mode = RestrictMode(model_.mj(), mode, island);
    island_k = IndexInIsland(model_.mj(), mode, c.k, island);
    if (c.localized && c.guard_k == island_k && SameContacts(c.guard_mode.contacts, island_mode.contacts)) {
      return;  // this guard was searched already: its result (valid or not) stands
    }
    c.guard_mode = island_mode;
    c.guard_k = island_k;
  }
  c.localized = true;
  c.have_x = false;
  c.input_jump = false;  // a second search (an earlier event of the step moved the contact) decides afresh
  // the touchdown's identity at sub-step tau of the step [x_{k−1}, x_k] (from another base: c.id)
  auto followed = [&](const SavedStep* base, double tau) {
    return c.ends_known && base == &prev ? AnchorAt(c.id, c.end, tau, dt) : c.id;
  };
  auto guard = [&](const State& x, const ContactId& id) {
    if (c.type == Crossing::kLiftoff) return EvaluateMode(model_, data_, x, island_mode).normal_force(island_k);
    // the pair's own points (kinematics and its narrow phase only), matched as in the full list:
    // the mode's points of the same pair first, so that the crossing point is not taken for one
    guard_ids_.clear();
    for (const ContactId& mode_id : mode.contacts) {
      if (mode_id.SamePair(id)) guard_ids_.push_back(mode_id);
    }
    guard_ids_.push_back(id);
    EvaluatePositionForPairs(model_, data_.aux(), x.qpos.data(), guard_ids_, guard_points_, false);
    MatchContacts(guard_ids_, guard_points_, guard_match_);
    const int i = guard_match_.back();
    if (i < 0) return model_.detect_margin();
    if (slope_velocity) {
      const ContactPoint& p = guard_points_[i];
      guard_rows_.resize(3, model_.mj()->nv);
      ContactRows(model_, data_.aux(), p, guard_rows_.topRows(ContactRowCount(p)), data_.work());
      slope = guard_rows_.row(0).dot(*slope_velocity);
    }
    return guard_points_[i].gap;
  };
  const State end = cur.state();
  const bool euler = model_.mj()->opt.integrator == mjINT_EULER && resim_.ForwardIgnoresTimestep();
  // MuJoCo's contact list after mj_step describes the step's start state for Euler and the
  // implicit integrator, and RK4's last stage (≈ the end state) for RK4: the crossing lies in
  // [t_{k−1}, t_k] or, for RK4, most likely in [t_k, t_{k+1}]
  std::vector<const SavedStep*> bases;
  double end_before = std::numeric_limits<double>::quiet_NaN();  // a liftoff's guard at x_k, the step's inputs
  if (model_.mj()->opt.integrator == mjINT_RK4) bases.push_back(&cur);
  bases.push_back(&prev);
  for (const SavedStep* base : bases) {
    // a touchdown seen at both ends of the step [x_{k−1}, x_k]: both guard values are MuJoCo's
    // own (a whole sub-step from x_{k−1} reproduces x_k bitwise), and the rates seed the search
    const bool seeded = c.ends_known && base == &prev;
    // the guards read the inputs of the step re-simulated: the liftoff's mode evaluations its
    // forces, the touchdown's positions the mocap bodies' poses
    for (mjData* w : {data_.main(), data_.aux()}) LoadInputs(model_.mj(), *base, w);
    if (euler) resim_.PrepareSubsteps(*base);
    Eigen::VectorXd family_velocity;
    // the states re-simulated at the bracket's ends (the event is the one nearer the root)
    double s_lo = -1, s_hi = -1;
    State x_lo, x_hi;
    int evaluations = 0;
    auto phi = [&](double h) {
      if (euler) {
        resim_.Substep(*base, h);
      } else {
        resim_.Step(*base, h);
      }
      c.x = resim_.StateNow();
      // the first trial only: the guard's slope along the sub-step family (a Newton step)
      if (seeded && evaluations++ == 0) {
        // the sub-steps follow q(h) = q ⊕ h v(h), v(h) = v + h a(h): dq/dh ≈ 2 v(h) − v (exact
        // when a does not depend on h; Euler's implicit joint damping makes it depend a little)
        family_velocity = 2 * c.x.qvel - base->qvel;
        slope_velocity = &family_velocity;
      }
      GuardSample sample{guard(c.x, followed(base, h))};
      if (slope_velocity) sample.slope = slope;
      slope_velocity = nullptr;
      if (sample.value < 0 && (s_hi < 0 || h < s_hi)) s_hi = h, x_hi = c.x;
      if (sample.value >= 0 && h > s_lo) s_lo = h, x_lo = c.x;
      return sample;
    };
    double fa, fb;
    if (seeded) {
      fa = c.g0;
      fb = c.g1;
    } else {
      fa = guard(base->state(), c.id);
      fb = base == &prev ? guard(end, c.id) : phi(dt).value;  // from x_{k−1} a whole step is x_k
      s_lo = s_hi = -1;
    }
    if (base == &prev && !seeded) end_before = fb;
    if (!(fa > 0 && fb < 0)) continue;
    CrossingOptions options;
    options.time_tol = 1e-13;  // s: the bracket's width on return
    // the first trial: the root of the cubic Hermite interpolant (the sub-step family's end
    // slope is ∇g·(2 v_k − v_{k−1}) ≈ 2 ġ(x_k) − ġ(x_{k−1}), not ġ(x_k)), else regula falsi
    if (seeded) options.first_trial = HermiteRoot(fa, c.rate0, fb, 2 * c.rate1 - c.rate0, dt);
    const CrossingResult r = LocateCrossing(phi, 0, fa, dt, fb, options);
    c.base = base;
    c.s = r.time;
    c.lo = r.lo;
    c.hi = r.hi;
    if (c.type == Crossing::kTouchdown) c.id = followed(base, r.time);  // the point located, at its time
    c.have_x = r.sampled && (r.time == s_lo || r.time == s_hi);
    if (c.have_x) c.x = r.time == s_lo ? x_lo : x_hi;
    c.valid = true;
    return;
  }
  if (c.type == Crossing::kLiftoff && end_before >= 0) {
    // not pulling at x_k with the inputs of the step [x_{k−1}, x_k]: with the next step's (cur:
    // the inputs MuJoCo's step from x_k used, which the detection's λ_n read) the contact may pull
    // already — the inputs changed between the steps. It releases at t_k
    for (mjData* w : {data_.main(), data_.aux()}) LoadInputs(model_.mj(), cur, w);
    if (EvaluateMode(model_, data_, end, island_mode).normal_force(island_k) < -force_tol_) {
      c.base = &cur;
      c.s = c.lo = c.hi = 0;
      c.x = end;
      c.have_x = true;
      c.input_jump = true;
      c.valid = true;
      return;
    }
  }
  if (c.type == Crossing::kTouchdown && c.onset) {
    // seen at onset: at the end of the step's interval, where MuJoCo's list has it
    c.base = &prev;
    c.s = c.lo = c.hi = dt;
    c.have_x = false;
    c.proxy = true;
    c.valid = true;
    return;
  }
  c.valid = false;
}

}  // namespace saltation
