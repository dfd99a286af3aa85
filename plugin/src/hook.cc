#include "saltation/hook.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "saltation/errors.h"
#include "saltation/guards.h"

namespace saltation {

// a MuJoCo state with everything mj_step reads from mjData
struct Hook::Saved {
  double time = 0;
  Eigen::VectorXd qpos, qvel, act, warmstart, ctrl, qfrc_applied, xfrc_applied, mocap_pos, mocap_quat;
};

// guard values at one step's start state x_k (read from MuJoCo's own contact list); the three
// kept by the hook are reused from step to step, so the per-step path allocates nothing
struct Hook::Guards {
  bool present = false;
  double time = 0;
  std::vector<ContactPoint> points;    // every point MuJoCo reported
  std::vector<int> match;              // the mode's points among them (−1: lost)
  std::vector<ContactPoint> inactive;  // tracked points outside the mode
  std::vector<double> inactive_rate;   // d gap / dt of each inactive point (from MuJoCo's cvel)
  std::vector<ContactId> mode_ids;     // the mode the next fields refer to
  std::vector<double> mode_gap;        // gap of each mode contact (+inf when MuJoCo lost it)
  Eigen::VectorXd force;               // rigid λ_n of each mode contact (J̇v by differences)
  RowMatrix J;                         // the mode's rows
  bool force_valid = false;
};

// scratch of the per-step rigid-force evaluation
struct Hook::Scratch {
  ConstraintSet set;
  ConstraintScratch rows;
  RowMatrix JMinv;
  Eigen::VectorXd sqrt_inv_d;          // D^{−1/2} of MuJoCo's factor (mj_solveM2 takes it, MuJoCo 3+)
  Eigen::MatrixXd A;
  Eigen::VectorXd rhs, lambda;
  PsdSolver solver;
};

// per geom-pair history
struct Hook::Tracking {
  std::vector<double> touchdowns;      // times of touchdowns reported
  bool zeno = false;
  double zeno_until = -1;
  long last_onset_step = -1000, last_release_step = -1000;
  bool chattering = false;
  bool measuring = false;              // effective restitution under way
  double vn_minus = 0;
  long measure_start = 0;
};

// an event's moment as CompleteXi needs it
struct HookDeferred {
  Eigen::VectorXd ctrl, qfrc_applied, xfrc_applied;
  std::vector<std::pair<ContactId, double>> restitution;  // per pair involved
  // simultaneous groups: the first event's state and mode, and the group in order
  State x;
  Mode mode;
  std::vector<ContactId> group;
};

struct Hook::Crossing {
  enum Type { kTouchdown, kLiftoff, kRelease } type = kTouchdown;
  ContactId id;
  int k = -1;          // mode index for liftoff / release
  double g0 = 0, g1 = 0;
  // touchdown with both ends read from MuJoCo's contact lists: the guard's rates there seed a
  // cubic Hermite estimate of the crossing that the re-simulated sub-steps then confirm
  bool ends_known = false;
  double rate0 = 0, rate1 = 0;
  double s = 0, lo = 0, hi = 0;
  bool have_x = false;          // x: the re-simulated state at base->time + s
  State x;
  const Saved* base = nullptr;  // the sub-step interval starts at this saved state
  bool valid = true;
  double time() const { return base ? base->time + s : 0; }
};

namespace {

bool ExactType(int t) {
  return t == mjGEOM_PLANE || t == mjGEOM_SPHERE || t == mjGEOM_CAPSULE || t == mjGEOM_BOX;
}

// margin = gap enlargement is exact (bitwise-identical physics) for this pair of geom types
bool ExactPair(int t1, int t2) {
  if (t1 == mjGEOM_PLANE || t2 == mjGEOM_PLANE) return true;
  return ExactType(t1) && ExactType(t2);
}

// MuJoCo may generate contacts between these two geoms
bool MayCollide(const mjModel* m, int g1, int g2) {
  const int b1 = m->geom_bodyid[g1], b2 = m->geom_bodyid[g2];
  if (b1 == b2) return false;
  if (m->body_weldid[b1] == m->body_weldid[b2]) return false;
  return (m->geom_contype[g1] & m->geom_conaffinity[g2]) || (m->geom_contype[g2] & m->geom_conaffinity[g1]);
}

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

// the root in (0, h) of the cubic Hermite interpolant of g (g(0) = g0 > 0, g(h) = g1 < 0, rates
// r0 and r1), by bisection on the polynomial
double HermiteRoot(double g0, double r0, double g1, double r1, double h) {
  auto p = [&](double s) {
    const double t = s / h, t2 = t * t, t3 = t2 * t;
    return (2 * t3 - 3 * t2 + 1) * g0 + (t3 - 2 * t2 + t) * h * r0 + (-2 * t3 + 3 * t2) * g1 + (t3 - t2) * h * r1;
  };
  double a = 0, b = h;
  for (int it = 0; it < 64; it++) {
    const double m = (a + b) / 2;
    if (m <= a || m >= b) break;  // a and b adjacent doubles
    (p(m) > 0 ? a : b) = m;
  }
  return (a + b) / 2;
}

std::string PairKey(const ContactId& id) {
  return std::to_string(std::min(id.geom1, id.geom2)) + "/" + std::to_string(std::max(id.geom1, id.geom2));
}

// keeps a long product finite: A = exp(log_scale) · A
void Renormalize(Eigen::MatrixXd& A, double& log_scale) {
  const double n = A.cwiseAbs().maxCoeff();
  if (n > 1e50 || (n > 0 && n < 1e-50)) {
    A /= n;
    log_scale += std::log(n);
  }
}

// exp(h·A) to third order (the per-step transition of a linear flow)
Eigen::MatrixXd StepTransition(const Eigen::MatrixXd& A, double h) {
  const Eigen::MatrixXd hA = h * A;
  return Eigen::MatrixXd::Identity(A.rows(), A.cols()) + hA * (Eigen::MatrixXd::Identity(A.rows(), A.cols()) + hA / 2 * (Eigen::MatrixXd::Identity(A.rows(), A.cols()) + hA / 3));
}

}  // namespace

const char* PropagationName(Propagation p) {
  switch (p) {
    case Propagation::kEvents:
      return "events";
    case Propagation::kRigid:
      return "rigid";
    case Propagation::kCompliant:
      return "compliant";
    case Propagation::kBoth:
      return "both";
  }
  return "?";
}

Propagation ParsePropagation(const std::string& name) {
  if (name == "events") return Propagation::kEvents;
  if (name == "rigid") return Propagation::kRigid;
  if (name == "compliant") return Propagation::kCompliant;
  if (name == "both") return Propagation::kBoth;
  throw ConfigError("propagation must be events, rigid, compliant or both, not '" + name + "'");
}

Hook::Hook(mjModel* m, const HookOptions& options) : m_(m), options_(options) {
  if (!m) throw ConfigError("no model given");
  if (options_.covariance && options_.propagation == Propagation::kEvents) options_.propagation = Propagation::kRigid;
  if (options_.covariance && options_.propagation == Propagation::kCompliant) options_.propagation = Propagation::kBoth;
  if (options_.restitution == RestitutionSource::kOverride &&
      !(options_.restitution_override >= 0 && options_.restitution_override <= 1)) {
    throw ConfigError("restitution override must be in [0, 1]");
  }
  if (!(options_.grazing_threshold >= 0)) throw ConfigError("grazing threshold must be non-negative");
  if (!(options_.simultaneous_time >= 0)) throw ConfigError("simultaneous time must be non-negative");

  lazy_ = options_.xi_on_demand && !options_.covariance &&
          (options_.propagation == Propagation::kEvents || options_.propagation == Propagation::kCompliant);
  model_ = std::make_unique<Model>(m, options_.model);
  if (options_.restitution == RestitutionSource::kOverride) model_->SetRestitution(options_.restitution_override);
  data_ = std::make_unique<Data>(*model_);
  force_tol_ = DefaultForceTolerance(m);
  if (options_.near_miss_distance < 0) options_.near_miss_distance = 0.1 * model_->detect_margin();
  if (options_.release_gap < 0) options_.release_gap = 1e-3;

  // widen the detection band of the geoms whose every possible partner is an exact pair. MuJoCo 4
  // detects a pair within margin + gap and activates it within margin (includemargin = margin),
  // both summed over the two geoms (a <pair> has its own; Contact Override replaces the margin,
  // not the gap): growing the gaps alone leaves the physics bitwise as it was, whatever the
  // partner's margin and gap, and works under Contact Override too. δ/2 per geom: a pair of
  // widened geoms gets δ, as before; a widened geom against one that is not, δ/2.
  // (MuJoCo 2.2.2 detected within max(margin) and activated within max(margin) − max(gap): margin
  // and gap had to grow together, only between geoms of the same margin and gap, never under
  // Contact Override.)
  const double delta = model_->detect_margin();
  saved_margin_.assign(m->geom_margin, m->geom_margin + m->ngeom);
  saved_gap_.assign(m->geom_gap, m->geom_gap + m->ngeom);
  saved_pair_margin_.assign(m->pair_margin, m->pair_margin + m->npair);
  saved_pair_gap_.assign(m->pair_gap, m->pair_gap + m->npair);
  std::vector<bool> enlarge(m->ngeom, true);
  for (int g = 0; g < m->ngeom; g++) {
    for (int h = 0; h < m->ngeom && enlarge[g]; h++) {
      if (h == g || !MayCollide(m, g, h)) continue;
      if (!ExactPair(m->geom_type[g], m->geom_type[h])) enlarge[g] = false;
    }
  }
  for (int g = 0; g < m->ngeom; g++) {
    for (int h = g + 1; h < m->ngeom; h++) {
      if (!MayCollide(m, g, h) || enlarge[g] || enlarge[h]) continue;
      untracked_.push_back(model_->GeomName(g) + "/" + model_->GeomName(h));
    }
  }
  for (int g = 0; g < m->ngeom; g++) {
    if (enlarge[g]) m->geom_gap[g] += 0.5 * delta;
  }
  for (int p = 0; p < m->npair; p++) {
    if (!ExactPair(m->geom_type[m->pair_geom1[p]], m->geom_type[m->pair_geom2[p]])) continue;
    m->pair_gap[p] += delta;
  }

  sub_model_.reset(mj_copyModel(nullptr, m));
  sub_data_.reset(mj_makeData(sub_model_.get()));
  prev_ = std::make_unique<Saved>();
  cur_ = std::make_unique<Saved>();
  guards_ = std::make_unique<Guards[]>(3);
  scratch_ = std::make_unique<Scratch>();
}

Hook::~Hook() {
  std::copy(saved_margin_.begin(), saved_margin_.end(), m_->geom_margin);
  std::copy(saved_gap_.begin(), saved_gap_.end(), m_->geom_gap);
  std::copy(saved_pair_margin_.begin(), saved_pair_margin_.end(), m_->pair_margin);
  std::copy(saved_pair_gap_.begin(), saved_pair_gap_.end(), m_->pair_gap);
}

void Hook::Capture(const mjData* d, Saved& s) const {
  const mjModel* m = m_;
  s.time = d->time;
  s.qpos = Eigen::Map<const Eigen::VectorXd>(d->qpos, m->nq);
  s.qvel = Eigen::Map<const Eigen::VectorXd>(d->qvel, m->nv);
  s.act = Eigen::Map<const Eigen::VectorXd>(d->act, m->na);
  s.warmstart = Eigen::Map<const Eigen::VectorXd>(d->qacc_warmstart, m->nv);
  s.ctrl = Eigen::Map<const Eigen::VectorXd>(d->ctrl, m->nu);
  s.qfrc_applied = Eigen::Map<const Eigen::VectorXd>(d->qfrc_applied, m->nv);
  s.xfrc_applied = Eigen::Map<const Eigen::VectorXd>(d->xfrc_applied, 6 * m->nbody);
  s.mocap_pos = Eigen::Map<const Eigen::VectorXd>(d->mocap_pos, 3 * m->nmocap);
  s.mocap_quat = Eigen::Map<const Eigen::VectorXd>(d->mocap_quat, 4 * m->nmocap);
}

void Hook::Resimulate(const Saved& from, double h, mjData* out, bool step) const {
  const mjModel* m = sub_model_.get();
  out->time = from.time;
  Eigen::Map<Eigen::VectorXd>(out->qpos, m->nq) = from.qpos;
  Eigen::Map<Eigen::VectorXd>(out->qvel, m->nv) = from.qvel;
  Eigen::Map<Eigen::VectorXd>(out->act, m->na) = from.act;
  Eigen::Map<Eigen::VectorXd>(out->qacc_warmstart, m->nv) = from.warmstart;
  Eigen::Map<Eigen::VectorXd>(out->ctrl, m->nu) = from.ctrl;
  Eigen::Map<Eigen::VectorXd>(out->qfrc_applied, m->nv) = from.qfrc_applied;
  Eigen::Map<Eigen::VectorXd>(out->xfrc_applied, 6 * m->nbody) = from.xfrc_applied;
  Eigen::Map<Eigen::VectorXd>(out->mocap_pos, 3 * m->nmocap) = from.mocap_pos;
  Eigen::Map<Eigen::VectorXd>(out->mocap_quat, 4 * m->nmocap) = from.mocap_quat;
  if (!step) return;
  sub_model_->opt.timestep = h;
  mj_step(sub_model_.get(), out);
  sub_model_->opt.timestep = m_->opt.timestep;
}

bool Hook::ForwardIgnoresTimestep() const {
  // MuJoCo's forward pass reads the timestep only through refsafe, which raises every solref
  // time constant below 2·timestep to it (checked per geom: a pair mixes two of them)
  const mjModel* m = m_;
  if (mjDISABLED(mjDSBL_REFSAFE)) return true;
  const double limit = 2 * m->opt.timestep;
  auto below = [&](const mjtNum* solref, int n) {
    for (int i = 0; i < n; i++) {
      if (solref[mjNREF * i] > 0 && solref[mjNREF * i] < limit) return true;
    }
    return false;
  };
  return !(below(m->geom_solref, m->ngeom) || below(m->pair_solref, m->npair) || below(m->eq_solref, m->neq) ||
           below(m->jnt_solref, m->njnt) || below(m->dof_solref, m->nv) ||
           below(m->tendon_solref_lim, m->ntendon) || below(m->tendon_solref_fri, m->ntendon) ||
           ((m->opt.enableflags & mjENBL_OVERRIDE) && below(m->opt.o_solref, 1)));
}

void Hook::PrepareSubsteps(const Saved& from) const {
  // mj_step is mj_forward at the start state and then the integrator: with Euler only the latter
  // depends on the step length (unless refsafe raises a time constant: ForwardIgnoresTimestep),
  // so one forward serves every sub-step (bitwise what mj_step gives)
  mjData* out = sub_data_.get();
  Resimulate(from, 0, out, false);
  mj_checkPos(sub_model_.get(), out);
  mj_checkVel(sub_model_.get(), out);
  mj_forward(sub_model_.get(), out);
  mj_checkAcc(sub_model_.get(), out);
  // the forward pass normalises quaternions in qpos: the integrator starts from that
  substep_qpos_ = Eigen::Map<const Eigen::VectorXd>(out->qpos, sub_model_->nq);
}

void Hook::Substep(const Saved& from, double h) const {
  const mjModel* m = sub_model_.get();
  mjData* out = sub_data_.get();
  // the integrator reads the forward pass's outputs and the state, which it overwrites
  out->time = from.time;
  Eigen::Map<Eigen::VectorXd>(out->qpos, m->nq) = substep_qpos_;
  Eigen::Map<Eigen::VectorXd>(out->qvel, m->nv) = from.qvel;
  Eigen::Map<Eigen::VectorXd>(out->act, m->na) = from.act;
  sub_model_->opt.timestep = h;
  mj_Euler(sub_model_.get(), out);
  sub_model_->opt.timestep = m_->opt.timestep;
}

State Hook::StateOf(const mjData* d) const { return StateFromData(m_, d); }

void Hook::Reset(const mjData* d) {
  const mjModel* m = m_;
  started_ = true;
  events_.clear();
  tracking_.clear();
  for (int i = 0; i < 3; i++) guards_[i].present = false;
  measuring_ = 0;
  step_index_ = 0;
  Capture(d, *prev_);
  for (mjData* w : {data_->main(), data_->aux()}) mju_copy(w->ctrl, d->ctrl, m->nu);

  // the initial mode: touching, resting contacts whose rigid normal force presses
  const State x = StateOf(d);
  mode_.contacts.clear();
  EvaluatePosition(*model_, data_->main(), x.qpos.data());
  const std::vector<ContactPoint> points = ListContacts(*model_, data_->main());
  RowMatrix rows;
  for (const ContactPoint& p : points) {
    if (p.gap > model_->options().contact_tol) continue;  // resting contacts in MuJoCo penetrate
    ContactRows(*model_, data_->main(), p, rows);
    if (std::abs(rows.row(0).dot(x.qvel)) <= std::max(model_->options().min_bounce_speed, 1e-3)) {
      mode_.contacts.push_back(p.id);
    }
  }
  ReleasePulling(*model_, *data_, x, mode_, force_tol_, nullptr);
  prop_mode_ = mode_;
  pending_.clear();

  const int n = TangentDim(m);
  phi_t0_ = phi_time_ = d->time;
  phi_rigid_log_ = phi_compliant_log_ = 0;
  const bool rigid = options_.propagation == Propagation::kRigid || options_.propagation == Propagation::kBoth;
  const bool compliant = options_.propagation == Propagation::kCompliant || options_.propagation == Propagation::kBoth;
  phi_rigid_ = rigid ? Eigen::MatrixXd::Identity(n, n) : Eigen::MatrixXd();
  phi_compliant_ = compliant ? Eigen::MatrixXd::Identity(n, n) : Eigen::MatrixXd();
  if (options_.covariance) {
    cov_ = options_.initial_covariance * Eigen::MatrixXd::Identity(n, n);
    cov_dreset_ = cov_;
  } else {
    cov_.resize(0, 0);
    cov_dreset_.resize(0, 0);
  }
}

void Hook::Evaluate(const mjData* d, const Guards* previous, double dt, Guards& g) {
  const int nv = m_->nv;
  g.present = true;
  g.time = cur_->time;
  g.force_valid = false;
  ListContacts(*model_, d, g.points);
  MatchContacts(mode_.contacts, g.points, g.match);
  g.inactive.clear();
  g.inactive_rate.clear();
  // the rates seed the localisation only where the contact list describes the step's start
  // state (not with RK4: its last stage)
  const bool rates = m_->opt.integrator != mjINT_RK4;
  for (size_t i = 0; i < g.points.size(); i++) {
    if (std::find(g.match.begin(), g.match.end(), static_cast<int>(i)) == g.match.end()) {
      g.inactive.push_back(g.points[i]);
      g.inactive_rate.push_back(rates ? GapRate(m_, d, g.points[i]) : 0.0);
    }
  }
  g.mode_ids = mode_.contacts;
  g.mode_gap.resize(g.match.size());
  for (size_t k = 0; k < g.match.size(); k++) {
    g.mode_gap[k] = g.match[k] >= 0 ? g.points[g.match[k]].gap : std::numeric_limits<double>::infinity();
  }
  if (mode_.contacts.empty()) return;
  if (std::any_of(g.match.begin(), g.match.end(), [](int i) { return i < 0; })) return;

  // rigid normal forces from MuJoCo's own evaluation at x_k: M's factor, qacc_smooth, the rows;
  // the bias J̇v by a difference of the rows over the last step (the exact guard is recomputed
  // when a sign change is localised)
  Scratch& w = *scratch_;
  ModeConstraints(*model_, d, mode_.contacts, g.points, g.match, w.set, w.rows);
  std::swap(g.J, w.set.J);  // g keeps the rows for the next step's difference
  const int rows = static_cast<int>(g.J.rows());
  // J M⁻¹ Jᵀ = Y Yᵀ with the rows of Y = D^{−1/2} L^{−ᵀ} Jᵀ from MuJoCo's factor M = Lᵀ D L (half
  // of a full solve per row)
  w.JMinv.resize(rows, nv);
  w.sqrt_inv_d = Eigen::Map<const Eigen::VectorXd>(d->qLDiagInv, nv).cwiseSqrt();
  mj_solveM2(m_, const_cast<mjData*>(d), w.JMinv.data(), g.J.data(), w.sqrt_inv_d.data(), rows);
  w.A.noalias() = w.JMinv * w.JMinv.transpose();
  Eigen::Map<const Eigen::VectorXd> a_s(d->qacc_smooth, nv);
  w.rhs.noalias() = g.J * a_s;  // (negated below; −(J a_s) would evaluate into a temporary)
  if (previous && previous->present && previous->force_valid && previous->mode_ids.size() == mode_.contacts.size() &&
      previous->J.rows() == rows) {
    w.lambda.noalias() = g.J * cur_->qvel;
    w.lambda.noalias() -= previous->J * cur_->qvel;
    w.rhs += w.lambda / dt;
  }
  w.rhs = -w.rhs;
  w.solver.Compute(w.A, model_->options().rank_tol);
  w.solver.Solve(w.rhs, w.lambda);
  g.force.resize(mode_.contacts.size());
  for (size_t k = 0; k < mode_.contacts.size(); k++) g.force(k) = w.lambda(w.set.normal_row[k]);
  g.force_valid = true;
}

std::vector<Hook::Crossing> Hook::Detect(const Guards& before, const Guards& after) {
  std::vector<Crossing> out;
  for (size_t j = 0; j < after.inactive.size(); j++) {
    const ContactPoint& p = after.inactive[j];
    if (p.gap >= 0) continue;
    const int i = MatchContact(p.id, before.inactive);
    // untracked pairs appear only once they touch: their guard was positive before
    const double g0 = i >= 0 ? before.inactive[i].gap : model_->detect_margin();
    if (g0 <= 0) continue;  // already negative: not a crossing from + to −
    Tracking* t = tracking_.count(PairKey(p.id)) ? tracking_[PairKey(p.id)].get() : nullptr;
    // hysteresis: a contact released a moment ago must come clearly apart before it re-arms
    if (t && step_index_ - t->last_release_step <= options_.chatter_steps && g0 < options_.release_gap) continue;
    Crossing c;
    c.type = Crossing::kTouchdown;
    c.id = i >= 0 ? before.inactive[i].id : p.id;
    c.g0 = g0;
    c.g1 = p.gap;
    // the lists describe x_{k−1} and x_k exactly except with RK4 (its last stage)
    c.ends_known = i >= 0 && m_->opt.integrator != mjINT_RK4;
    if (c.ends_known) {
      c.rate0 = before.inactive_rate[i];
      c.rate1 = after.inactive_rate[j];
    }
    out.push_back(c);
  }
  if (before.force_valid && after.force_valid && before.mode_ids.size() == mode_.contacts.size()) {
    for (int k = 0; k < after.force.size(); k++) {
      if (before.force(k) > force_tol_ && after.force(k) < -force_tol_) {
        Crossing c;
        c.type = Crossing::kLiftoff;
        c.id = mode_.contacts[k];
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
      c.id = mode_.contacts[k];
      c.k = static_cast<int>(k);
      c.s = 1;  // at the end of the interval (x_k)
      out.push_back(c);
    }
  }
  return out;
}

void Hook::Localize(Crossing& c, double dt) {
  c.have_x = false;
  if (c.type == Crossing::kRelease) {
    c.base = prev_.get();
    c.s = c.lo = c.hi = dt;
    return;
  }
  // the exact guard at a state
  // (with `slope_velocity` set, also the guard's slope ∇g·slope_velocity into `slope`)
  const Eigen::VectorXd* slope_velocity = nullptr;
  double slope = std::numeric_limits<double>::quiet_NaN();
  auto guard = [&](const State& x) {
    if (c.type == Crossing::kLiftoff) return EvaluateMode(*model_, *data_, x, mode_).normal_force(c.k);
    // the pair's own points (kinematics and its narrow phase only), matched as in the full list:
    // the mode's points of the same pair first, so that the crossing point is not taken for one
    guard_ids_.clear();
    for (const ContactId& id : mode_.contacts) {
      if (id.SamePair(c.id)) guard_ids_.push_back(id);
    }
    guard_ids_.push_back(c.id);
    EvaluatePositionForPairs(*model_, data_->aux(), x.qpos.data(), guard_ids_, guard_points_, false);
    const int i = MatchContacts(guard_ids_, guard_points_).back();
    if (i < 0) return model_->detect_margin();
    if (slope_velocity) {
      const ContactPoint& p = guard_points_[i];
      guard_rows_.resize(3, m_->nv);
      ContactRows(*model_, data_->aux(), p, guard_rows_.topRows(ContactRowCount(p)), guard_jac1_, guard_jac2_);
      slope = guard_rows_.row(0).dot(*slope_velocity);
    }
    return guard_points_[i].gap;
  };
  constexpr double kTimeTol = 1e-13;  // s: the bracket's width on return
  const State end{cur_->time, cur_->qpos, cur_->qvel, cur_->act};
  const bool euler = m_->opt.integrator == mjINT_EULER && ForwardIgnoresTimestep();
  // MuJoCo's contact list after mj_step describes the step's start state for Euler and the
  // implicit integrator, and RK4's last stage (≈ the end state) for RK4: the crossing lies in
  // [t_{k−1}, t_k] or, for RK4, most likely in [t_k, t_{k+1}]
  std::vector<const Saved*> bases;
  if (m_->opt.integrator == mjINT_RK4) bases.push_back(cur_.get());
  bases.push_back(prev_.get());
  for (const Saved* base : bases) {
    // a touchdown seen at both ends of the step [x_{k−1}, x_k]: both guard values are MuJoCo's
    // own (a whole sub-step from x_{k−1} reproduces x_k bitwise), and the rates seed the search
    const bool seeded = c.ends_known && base == prev_.get();
    if (euler) PrepareSubsteps(*base);
    Eigen::VectorXd family_velocity;
    auto phi = [&](double h) {
      if (euler) {
        Substep(*base, h);
      } else {
        Resimulate(*base, h, sub_data_.get());
      }
      c.x = StateOf(sub_data_.get());
      if (seeded) {
        // the sub-steps follow q(h) = q ⊕ h v(h), v(h) = v + h a(h): dq/dh ≈ 2 v(h) − v (exact
        // when a does not depend on h; Euler's implicit joint damping makes it depend a little)
        family_velocity = 2 * c.x.qvel - base->qvel;
        slope_velocity = &family_velocity;
      }
      const double value = guard(c.x);
      slope_velocity = nullptr;
      return value;
    };
    double a = 0, b = dt, fa, fb;
    if (seeded) {
      fa = c.g0;
      fb = c.g1;
    } else {
      fa = guard(State{base->time, base->qpos, base->qvel, base->act});
      fb = base == prev_.get() ? guard(end) : phi(dt);  // from x_{k−1} a whole step is x_k
    }
    if (!(fa > 0 && fb < 0)) continue;
    // the guard's true values and states at the bracket's ends (fa, fb are Illinois-weighted)
    double ga = fa, gb = fb;
    State xa, xb;
    bool have_xa = false, have_xb = false;
    auto regula_falsi = [&]() { return (fa * b - fb * a) / (fa - fb); };
    // the first trial: the root of the cubic Hermite interpolant (the sub-step family's end
    // slope is ∇g·(2 v_k − v_{k−1}) ≈ 2 ġ(x_k) − ġ(x_{k−1}), not ġ(x_k)), else regula falsi
    double s = seeded ? HermiteRoot(fa, c.rate0, fb, 2 * c.rate1 - c.rate0, dt) : regula_falsi();
    // bracketed secant: a step smaller than the tolerance is pushed across the root so that the
    // bracket closes; regula falsi (Illinois) when the secant leaves the bracket
    double s_prev = 0, f_prev = 0;
    bool have_prev = false;
    int side = 0;
    for (int it = 0; it < 100; it++) {
      const double fs = phi(s);
      if (fs == 0) {
        a = b = s;
        ga = gb = 0;
        xa = xb = c.x;
        have_xa = have_xb = true;
        break;
      }
      if (fs < 0) {
        b = s, fb = gb = fs, xb = c.x, have_xb = true;
        if (side == -1) fa /= 2;
        side = -1;
      } else {
        a = s, fa = ga = fs, xa = c.x, have_xa = true;
        if (side == 1) fb /= 2;
        side = 1;
      }
      if (b - a <= kTimeTol) break;
      double next;
      if (have_prev && fs != f_prev) {
        next = s - fs * (s - s_prev) / (fs - f_prev);
      } else if (seeded && std::isfinite(slope) && slope != 0) {
        next = s - fs / slope;  // first step only: the family slope is approximate
      } else {
        next = regula_falsi();
      }
      if (std::abs(next - s) < kTimeTol / 2) next = s + (fs > 0 ? kTimeTol / 2 : -kTimeTol / 2);
      if (!(next > a && next < b)) next = regula_falsi();
      if (!(next > a && next < b)) next = (a + b) / 2;
      s_prev = s, f_prev = fs, have_prev = true;
      s = next;
    }
    // the event: the re-simulated end of the bracket nearer the root
    const bool take_a = have_xa && (!have_xb || std::abs(ga) <= std::abs(gb));
    c.base = base;
    c.s = take_a ? a : b;
    c.x = take_a ? xa : xb;
    c.lo = a;
    c.hi = b;
    c.valid = true;
    c.have_x = true;
    return;
  }
  c.valid = false;
}

namespace {

// index of the mode contact that is `id` (same pair, anchor within tol), or −1
int FindInMode(const Mode& mode, const ContactId& id, double tol) {
  int best = -1;
  double best_dist = tol;
  for (size_t k = 0; k < mode.contacts.size(); k++) {
    if (!mode.contacts[k].SamePair(id)) continue;
    const double dist = (mode.contacts[k].anchor - id.anchor).norm();
    if (dist <= best_dist) {
      best_dist = dist;
      best = static_cast<int>(k);
    }
  }
  return best;
}

}  // namespace

void Hook::Emit(HookEvent ev) {
  events_.push_back(std::move(ev));
  if (on_event) on_event(events_.back());
  // by value: the Emit calls inside may move events_
  const HookEvent& stored = events_.back();
  UpdateTracking(stored.kind, stored.time, stored.contact, stored.rigid.xi.transversality);
}

void Hook::UpdateTracking(const std::string kind, const double time, const ContactId contact,
                          const double transversality) {
  if (kind != "touchdown" && kind != "graze" && kind != "liftoff" && kind != "slip") return;
  std::unique_ptr<Tracking>& slot = tracking_[PairKey(contact)];
  if (!slot) slot = std::make_unique<Tracking>();
  Tracking& t = *slot;
  const bool onset = kind == "touchdown" || kind == "graze";
  // chattering: onset and release of one contact within a few steps
  const long since = onset ? step_index_ - t.last_release_step : step_index_ - t.last_onset_step;
  if (since <= options_.chatter_steps && !t.chattering) {
    t.chattering = true;
    HookEvent c;
    c.kind = "chatter";
    c.time = time;
    c.contact = contact;
    Emit(c);
  } else if (since > 10 * options_.chatter_steps) {
    t.chattering = false;
  }
  if (!onset) {
    t.last_release_step = step_index_;
    return;
  }
  t.last_onset_step = step_index_;
  // effective restitution: measured when MuJoCo's contact separates again
  if (!t.measuring) measuring_++;
  t.measuring = true;
  t.vn_minus = transversality;
  t.measure_start = step_index_;
  // Zeno: bounce intervals shrinking geometrically
  t.touchdowns.push_back(time);
  const int n = options_.zeno_min_intervals;
  const int count = static_cast<int>(t.touchdowns.size());
  if (t.zeno || n < 2 || count < n + 1) return;
  std::vector<double> intervals;
  for (int i = count - n; i < count; i++) intervals.push_back(t.touchdowns[i] - t.touchdowns[i - 1]);
  std::vector<double> ratios;
  for (size_t i = 1; i < intervals.size(); i++) ratios.push_back(intervals[i] / intervals[i - 1]);
  const double lo = *std::min_element(ratios.begin(), ratios.end());
  const double hi = *std::max_element(ratios.begin(), ratios.end());
  if (!(lo > 0.05 && hi < 0.999 && hi - lo <= options_.zeno_ratio_tolerance)) return;
  double r = 0;
  for (double x : ratios) r += x;
  r /= ratios.size();
  t.zeno = true;
  t.zeno_until = time + intervals.back() * r / (1 - r);
  HookEvent z;
  z.kind = "zeno";
  z.time = time;
  z.contact = contact;
  z.ratio = r;
  z.accumulation_time = t.zeno_until;
  // the contact is sustained from here on: its remaining bounces are not reported
  if (FindInMode(mode_, contact, 2 * model_->detect_margin()) < 0) mode_.contacts.push_back(contact);
  Emit(z);
}

std::vector<HookEvent> Hook::Process(std::vector<Crossing>& crossings, double dt) {
  std::vector<HookEvent> out;
  std::sort(crossings.begin(), crossings.end(),
            [](const Crossing& a, const Crossing& b) { return a.time() < b.time(); });
  const double tol = 2 * model_->detect_margin();
  for (size_t ci = 0; ci < crossings.size(); ci++) {
    Crossing& c = crossings[ci];
    if (!c.valid) continue;
    Tracking* t = tracking_.count(PairKey(c.id)) ? tracking_[PairKey(c.id)].get() : nullptr;
    const double t_event = c.time();
    if (t && t->zeno && t_event < t->zeno_until) continue;  // Zeno: sustained, not reported
    // re-evaluate against the mode as it is now (an earlier event may have changed it)
    const int k = FindInMode(mode_, c.id, tol);
    if (c.type == Crossing::kTouchdown && k >= 0) continue;
    if (c.type != Crossing::kTouchdown) {
      if (k < 0) continue;
      if (c.type == Crossing::kLiftoff && k != c.k) {
        c.k = k;
        Localize(c, dt);
        if (!c.valid) continue;
      }
      c.k = k;
    }
    State x;
    if (c.type == Crossing::kRelease) {
      x = State{cur_->time, cur_->qpos, cur_->qvel, cur_->act};
    } else if (c.have_x) {
      x = c.x;  // re-simulated by the localisation's last evaluation
      x.time = c.time();
    } else {
      Resimulate(*c.base, c.s, sub_data_.get());
      x = StateOf(sub_data_.get());
      x.time = c.time();
    }
    for (mjData* w : {data_->main(), data_->aux()}) {
      mju_copy(w->ctrl, c.base->ctrl.data(), m_->nu);
      mju_copy(w->qfrc_applied, c.base->qfrc_applied.data(), m_->nv);
      mju_copy(w->xfrc_applied, c.base->xfrc_applied.data(), 6 * m_->nbody);
    }
    if (options_.restitution == RestitutionSource::kAuto) {
      const double e = EffectiveRestitution(c.id.geom1, c.id.geom2);
      if (e >= 0) model_->SetPairRestitution(c.id.geom1, c.id.geom2, e);
    }

    HookEvent ev;
    std::shared_ptr<HookDeferred> deferred = lazy_ ? Defer(*c.base) : nullptr;
    ev.time = x.time;
    ev.bracket_lo = c.base->time + c.lo;
    ev.bracket_hi = c.base->time + c.hi;
    ev.contact = c.id;
    ev.has_xi = true;
    try {
      if (c.type == Crossing::kTouchdown) {
        ev.rigid = TouchdownEvent(*model_, *data_, x, mode_, c.id, model_->options().contact_tol, force_tol_, !lazy_);
      } else if (c.type == Crossing::kLiftoff) {
        ev.rigid = LiftoffEvent(*model_, *data_, x, mode_, c.k, force_tol_, !lazy_);
      } else {
        ev.rigid = ProxyRelease(x, c.k);
        ev.proxy = true;
      }
    } catch (const NumericalError& e) {
      // a guard touching zero without crossing (Ξ undefined): reported, not fatal
      ev.has_xi = false;
      ev.kind = "graze";
      ev.grazing = true;
      Emit(ev);
      out.push_back(ev);
      continue;
    }
    ev.contact = ev.rigid.contact;
    ev.xi_pending = !ev.rigid.complete;
    if (ev.xi_pending) {
      // the restitution each candidate of the impact had
      const ImpactResult& impact = ev.rigid.impact;
      for (size_t i = 0; i < impact.candidates.size() && i < impact.restitution.size(); i++) {
        deferred->restitution.emplace_back(impact.candidates[i], impact.restitution[i]);
      }
      ev.deferred = deferred;
    }
    ev.rigid.bracket_lo = ev.bracket_lo;
    ev.rigid.bracket_hi = ev.bracket_hi;
    ev.restitution = model_->PairRestitution(c.id.geom1, c.id.geom2);
    ev.kind = EventKindName(ev.rigid.kind);
    ev.grazing = ev.rigid.xi.transversality_rel < options_.grazing_threshold;
    if (ev.grazing && ev.rigid.kind == EventKind::kTouchdown) ev.kind = "graze";
    mode_ = ev.rigid.mode_after;
    Emit(ev);
    out.push_back(ev);
  }
  EmitSimultaneous(out);
  return out;
}

RigidEvent Hook::ProxyRelease(const State& x, int k) {
  RigidEvent ev;
  ev.kind = EventKind::kLiftoff;
  ev.time = x.time;
  ev.mode_before = mode_;
  ev.x_minus = ev.x_plus = x;
  ev.contact = mode_.contacts[k];
  const Eigen::VectorXd f_minus = ModeVectorField(*model_, *data_, x, mode_);
  EvaluatePosition(*model_, data_->main(), x.qpos.data());
  const std::vector<ContactPoint> points = ListContacts(*model_, data_->main());
  const int i = MatchContacts(mode_.contacts, points)[k];
  if (i < 0) throw NumericalError("released contact has no point");
  const Eigen::VectorXd grad_g = TouchdownGuardGradient(*model_, data_->main(), points[i]);
  ev.mode_after = mode_;
  ev.mode_after.contacts.erase(ev.mode_after.contacts.begin() + k);
  ev.released = ReleasePulling(*model_, *data_, x, ev.mode_after, force_tol_, &ev.rank_after);
  const Eigen::VectorXd f_plus = ModeVectorField(*model_, *data_, x, ev.mode_after);
  ev.xi = ComputeSaltation(ResetJacobian::Identity(m_->nv, m_->na), f_minus, f_plus, grad_g);
  return ev;
}

void Hook::EmitSimultaneous(const std::vector<HookEvent>& step_events) {
  // touchdowns of this step within simultaneous_time of each other, plus points that joined an
  // impact because they touched at the same instant
  for (size_t i = 0; i < step_events.size(); i++) {
    const HookEvent& first = step_events[i];
    if (!first.has_xi || first.rigid.kind != EventKind::kTouchdown) continue;
    std::vector<ContactId> group;
    for (const ContactId& id : first.rigid.impact.candidates) {
      if (FindInMode(first.rigid.mode_before, id, 1e-12) < 0) group.push_back(id);
    }
    for (size_t j = i + 1; j < step_events.size(); j++) {
      const HookEvent& other = step_events[j];
      if (other.has_xi && other.rigid.kind == EventKind::kTouchdown &&
          other.time - first.time <= options_.simultaneous_time) {
        group.push_back(other.contact);
      }
    }
    if (group.size() < 2) continue;
    HookEvent sim;
    sim.kind = "simultaneous";
    sim.time = first.time;
    sim.contact = first.contact;
    sim.group = group_counter_++;
    sim.group_size = static_cast<int>(group.size());
    if (first.deferred) {
      auto deferred = std::make_shared<HookDeferred>(*first.deferred);
      deferred->x = first.rigid.x_minus;
      deferred->mode = first.rigid.mode_before;
      deferred->group = group;
      sim.deferred = deferred;
      sim.xi_pending = true;
      sim.order_spread = std::numeric_limits<double>::quiet_NaN();
    } else {
      ComposeOrderings(first.rigid.x_minus, first.rigid.mode_before, group, sim);
    }
    Emit(sim);
    break;
  }
}

void Hook::ComposeOrderings(const State& x0, const Mode& mode0, const std::vector<ContactId>& group,
                            HookEvent& sim) {
  // both orderings, each event with its own intermediate mode, at the first event's state
  auto compose = [&](const std::vector<ContactId>& order) {
    State x = x0;
    Mode mode = mode0;
    Eigen::MatrixXd C = Eigen::MatrixXd::Identity(TangentDim(m_), TangentDim(m_));
    for (const ContactId& id : order) {
      if (FindInMode(mode, id, 1e-12) >= 0) continue;
      const RigidEvent ev = TouchdownEvent(*model_, *data_, x, mode, id, -1.0, force_tol_);
      C = ev.xi.Dense() * C;
      x = ev.x_plus;
      mode = ev.mode_after;
    }
    return C;
  };
  try {
    sim.composite_first = compose(group);
    std::vector<ContactId> reverse(group.rbegin(), group.rend());
    sim.composite_reverse = compose(reverse);
    const double scale = std::max(sim.composite_first.norm(), sim.composite_reverse.norm());
    sim.order_spread = scale > 0 ? (sim.composite_first - sim.composite_reverse).norm() / scale : 0;
  } catch (const NumericalError&) {
    sim.order_spread = std::numeric_limits<double>::infinity();  // an ordering grazes
  }
}

std::shared_ptr<HookDeferred> Hook::Defer(const Saved& base) const {
  auto deferred = std::make_shared<HookDeferred>();
  deferred->ctrl = base.ctrl;
  deferred->qfrc_applied = base.qfrc_applied;
  deferred->xfrc_applied = base.xfrc_applied;
  if (options_.restitution == RestitutionSource::kAuto) {
    for (const auto& [pair, e] : effective_restitution_) {
      ContactId id;
      id.geom1 = pair.first;
      id.geom2 = pair.second;
      deferred->restitution.emplace_back(id, model_->PairRestitution(pair.first, pair.second));
    }
  }
  return deferred;
}

void Hook::CompleteXi(HookEvent& ev) {
  if (!ev.xi_pending || !ev.deferred) return;
  const HookDeferred& deferred = *ev.deferred;
  for (mjData* w : {data_->main(), data_->aux()}) {
    mju_copy(w->ctrl, deferred.ctrl.data(), m_->nu);
    mju_copy(w->qfrc_applied, deferred.qfrc_applied.data(), m_->nv);
    mju_copy(w->xfrc_applied, deferred.xfrc_applied.data(), 6 * m_->nbody);
  }
  // the restitution in force at the event (auto: measured values change over the run)
  std::vector<std::pair<ContactId, double>> now;
  for (const auto& [id, e] : deferred.restitution) {
    now.emplace_back(id, model_->PairRestitution(id.geom1, id.geom2));
    model_->SetPairRestitution(id.geom1, id.geom2, e);
  }
  try {
    if (ev.kind == "simultaneous") {
      ComposeOrderings(deferred.x, deferred.mode, deferred.group, ev);
    } else {
      CompleteEvent(*model_, *data_, ev.rigid);
      ev.grazing = ev.rigid.xi.transversality_rel < options_.grazing_threshold;
    }
  } catch (const NumericalError&) {
    ev.has_xi = false;  // Ξ undefined at this event (it grazes)
    ev.grazing = true;
  }
  for (const auto& [id, e] : now) model_->SetPairRestitution(id.geom1, id.geom2, e);
  ev.xi_pending = false;
  ev.deferred.reset();
}

const HookEvent& Hook::CompletedEvent(size_t i) {
  if (i >= events_.size()) throw ConfigError("no event " + std::to_string(i));
  CompleteXi(events_[i]);
  return events_[i];
}

void Hook::NearMisses(const Guards& g2, const Guards& g1, const Guards& g0) {
  for (const ContactPoint& p : g1.inactive) {
    if (!(p.gap > 0 && p.gap < options_.near_miss_distance)) continue;
    const int i2 = MatchContact(p.id, g2.inactive);
    const int i0 = MatchContact(p.id, g0.inactive);
    if (i2 < 0 || i0 < 0) continue;
    const double a = g2.inactive[i2].gap, b = p.gap, c = g0.inactive[i0].gap;
    if (!(a > b && c > b)) continue;
    HookEvent ev;
    ev.kind = "near_miss";
    ev.time = g1.time;
    ev.contact = p.id;
    const double curvature = a - 2 * b + c;
    ev.min_gap = curvature > 0 ? b - (c - a) * (c - a) / (8 * curvature) : b;
    Emit(ev);
  }
}

void Hook::Propagate(double dt) {
  const int n = TangentDim(m_);
  const double t0 = prev_->time, t1 = cur_->time;
  if (phi_compliant_.size()) {
    phi_compliant_ = CompliantStepJacobian(*prev_, dt) * phi_compliant_;
    Renormalize(phi_compliant_, phi_compliant_log_);
  }
  if (phi_rigid_.size() || cov_.size()) {
    // the rigid chain over [t_{k−1}, t_k]: mode flows between the events, Ξ at each
    Eigen::MatrixXd step = Eigen::MatrixXd::Identity(n, n), step_dreset = step;
    std::vector<std::pair<Eigen::MatrixXd, Eigen::MatrixXd>> jumps;  // (Ξ, DΔ) in order
    State x{t0, prev_->qpos, prev_->qvel, prev_->act};
    Mode mode = prop_mode_;
    double t = t0;
    auto flow = [&](double until) {
      if (until <= t) return;
      const Eigen::MatrixXd A = ModeVectorFieldJacobian(*model_, *data_, x, mode, options_.model.fd_step);
      const Eigen::MatrixXd E = StepTransition(A, until - t);
      step = E * step;
      step_dreset = E * step_dreset;
      t = until;
    };
    while (!pending_.empty() && pending_.front().time <= t1) {
      const HookEvent ev = pending_.front();
      pending_.erase(pending_.begin());
      flow(ev.time);
      step = ev.rigid.xi.Dense() * step;
      step_dreset = ev.rigid.xi.reset.Dense() * step_dreset;
      x = ev.rigid.x_plus;
      mode = ev.rigid.mode_after;
    }
    flow(t1);
    prop_mode_ = mode;
    if (phi_rigid_.size()) {
      phi_rigid_ = step * phi_rigid_;
      Renormalize(phi_rigid_, phi_rigid_log_);
    }
    if (cov_.size()) {
      const Eigen::MatrixXd Q = options_.process_noise * dt * Eigen::MatrixXd::Identity(n, n);
      cov_ = step * cov_ * step.transpose() + Q;
      cov_dreset_ = step_dreset * cov_dreset_ * step_dreset.transpose() + Q;
      cov_ = 0.5 * (cov_ + cov_.transpose()).eval();
      cov_dreset_ = 0.5 * (cov_dreset_ + cov_dreset_.transpose()).eval();
    }
  }
  if (!phi_rigid_.size() && !cov_.size()) pending_.clear();  // Ξ is folded into the rigid chain only
  phi_time_ = t1;
}

Eigen::MatrixXd Hook::CompliantStepJacobian(const Saved& from, double dt) {
  const mjModel* m = sub_model_.get();
  const int n = TangentDim(m);
  mjData* d = sub_data_.get();
  RowMatrix A(n, n);
  if (m->opt.integrator != mjINT_RK4) {
    // MuJoCo's own finite differences (forward, eps) from the saved state and inputs; MuJoCo 4
    // leaves d's time and state as they were (MujocoFacts.TransitionFDRestoresTimeAndState)
    Resimulate(from, dt, d, /*step=*/false);
    mjd_transitionFD(sub_model_.get(), d, options_.fd_eps, 0, A.data(), nullptr, nullptr, nullptr);
    return A;
  }
  // RK4: MuJoCo 4 refuses it in mjd_transitionFD (MujocoFacts.TransitionFDRefusesRK4; 2.2.2
  // took it but returned every velocity column equal to the last), so difference whole mj_step
  // calls instead, in the same tangent layout and with the same forward step
  Resimulate(from, dt, d);
  const State nominal = StateOf(d);
  Saved perturbed = from;
  Eigen::VectorXd e = Eigen::VectorXd::Zero(n);
  const double eps = options_.fd_eps;
  for (int i = 0; i < n; i++) {
    e.setZero();
    e(i) = eps;
    const State x = Integrate(m, State{from.time, from.qpos, from.qvel, from.act}, e);
    perturbed.qpos = x.qpos;
    perturbed.qvel = x.qvel;
    perturbed.act = x.act;
    Resimulate(perturbed, dt, d);
    A.col(i) = Difference(m, nominal, StateOf(d)) / eps;
  }
  return A;
}

void Hook::MeasureRestitution(const mjData* d, const std::vector<ContactPoint>& points) {
  if (measuring_ == 0) return;
  for (auto& [key, t] : tracking_) {
    if (!t->measuring) continue;
    // the pair's deepest point at x_k
    int best = -1;
    for (size_t i = 0; i < points.size(); i++) {
      if (PairKey(points[i].id) == key && (best < 0 || points[i].gap < points[best].gap)) best = static_cast<int>(i);
    }
    double vn_plus = 0;
    bool done = false;
    if (best < 0 || points[best].gap > 0) {
      if (best >= 0) {
        RowMatrix rows;
        ContactRows(*model_, d, points[best], rows);
        vn_plus = rows.row(0).dot(cur_->qvel);
      }
      done = true;
    } else if ((step_index_ - t->measure_start) * m_->opt.timestep > 0.2) {
      done = true;  // still pressing after the transient: plastic
    }
    if (!done) continue;
    t->measuring = false;
    measuring_--;
    // still pressing after the transient: MuJoCo holds it, so does the mode from now on (unless
    // a mode contact already is this point: matched against the current points, as a rolling
    // sphere's anchor moves)
    const std::vector<int> in_mode = MatchContacts(mode_.contacts, points);
    const bool held = std::find(in_mode.begin(), in_mode.end(), best) != in_mode.end();
    if (best >= 0 && points[best].gap <= 0 && !held) {
      Mode with = mode_;
      with.contacts.push_back(points[best].id);
      const State x{cur_->time, cur_->qpos, cur_->qvel, cur_->act};
      ReleasePulling(*model_, *data_, x, with, force_tol_, nullptr);
      mode_ = with;
    }
    const double e = t->vn_minus < 0 ? std::clamp(vn_plus / -t->vn_minus, 0.0, 1.0) : 0.0;
    const int g1 = std::stoi(key.substr(0, key.find('/'))), g2 = std::stoi(key.substr(key.find('/') + 1));
    effective_restitution_[{g1, g2}] = e;
    HookEvent ev;
    ev.kind = "restitution";
    ev.time = cur_->time;
    ev.contact.geom1 = g1;
    ev.contact.geom2 = g2;
    ev.restitution = e;
    ev.normal_velocity_minus = t->vn_minus;
    ev.normal_velocity_plus = vn_plus;
    Emit(ev);
  }
}

double Hook::EffectiveRestitution(int geom1, int geom2) const {
  auto it = effective_restitution_.find({std::min(geom1, geom2), std::max(geom1, geom2)});
  return it == effective_restitution_.end() ? -1 : it->second;
}

void Hook::Step(mjData* d) {
  if (!started_) Reset(d);
  const double dt = m_->opt.timestep;
  Capture(d, *cur_);
  mj_step(m_, d);
  step_index_++;
  // the guards of x_k (this step), x_{k−1} and x_{k−2}, rotating through three buffers
  Guards& g = guards_[head_];
  Guards& g1 = guards_[(head_ + 2) % 3];
  Guards& g2 = guards_[(head_ + 1) % 3];
  Evaluate(d, &g1, dt, g);
  if (g1.present) {
    const size_t mode_size_before = mode_.contacts.size();
    std::vector<Crossing> crossings = Detect(g1, g);
    for (Crossing& c : crossings) Localize(c, dt);
    if (!crossings.empty()) {
      const std::vector<HookEvent> step_events = Process(crossings, dt);
      for (const HookEvent& ev : step_events) {
        if (ev.has_xi) pending_.push_back(ev);
      }
      if (!step_events.empty() || mode_.contacts.size() != mode_size_before) {
        Evaluate(d, nullptr, dt, g);  // guards at x_k for the mode as it is now
      }
    }
    if (g2.present) NearMisses(g2, g1, g);
    if (phi_rigid_.size() || phi_compliant_.size() || cov_.size()) {
      Propagate(dt);
    } else {
      pending_.clear();
      phi_time_ = cur_->time;
    }
  }
  const size_t mode_size = mode_.contacts.size();
  MeasureRestitution(d, g.points);
  if (mode_.contacts.size() != mode_size) Evaluate(d, nullptr, dt, g);
  head_ = (head_ + 1) % 3;  // the oldest buffer (x_{k−2}) takes the next step's guards
  std::swap(prev_, cur_);
}

}  // namespace saltation
