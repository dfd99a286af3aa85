#include "simulation.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "saltation/event_json.h"

namespace saltation_viewer {
namespace {

constexpr size_t kMaxPhiSamples = 20000;  // Φ comparison samples kept
constexpr double kPhiSampleDt = 0.002;    // s of simulated time between Φ samples

// log10 of scale · ‖A‖_F with scale = exp(log_scale)
double Log10Norm(const Eigen::MatrixXd& A, double log_scale) {
  return log_scale / std::log(10.0) + std::log10(A.norm());
}

std::string Flags(const saltation::HookEvent& ev) {
  // the grazing verdict and the kind's own fields as the CLI and the CSV write them, then what
  // the panel adds (the group, the contacts an event released)
  std::string f = (ev.grazing ? std::string("grazing ") : "") + saltation::EventDetail(ev);
  auto add = [&f](const std::string& s) { f += (f.empty() || f.back() == ' ' ? "" : " ") + s; };
  if (ev.group >= 0) add("group(" + std::to_string(ev.group) + ")");
  if (ev.has_xi && !ev.rigid.released.empty()) {
    add("released(" + std::to_string(ev.rigid.released.size()) + ")");
  }
  return f;
}

}  // namespace

double WallSeconds() {
  using clock = std::chrono::steady_clock;
  static const clock::time_point start = clock::now();
  return std::chrono::duration<double>(clock::now() - start).count();
}

Simulation::Simulation() { mjv_defaultPerturb(&pert_); }

Simulation::~Simulation() {
  StopThread();
  hook_.reset();  // restores the model's margins before the model goes
}

std::string Simulation::Load(const std::string& path, const std::string& keyframe,
                             bool keyframe_required) {
  // parse and check outside the lock: the previous model keeps running meanwhile
  saltation::ModelPtr loaded;
  try {
    loaded = saltation::LoadModel(path);
  } catch (const saltation::ConfigError& e) {
    return e.what();  // "cannot read model file …" or "could not load '…': MuJoCo's message"
  } catch (const std::exception& e) {
    return "could not load '" + path + "': " + e.what();
  }
  try {
    saltation::ReadRestitution(loaded.get());  // <custom> errors name the field
  } catch (const std::exception& e) {
    return "could not load '" + path + "': " + e.what();
  }
  // as every saltation command: the model's first keyframe by default, "none" for qpos0
  int key = keyframe.empty() && loaded->nkey > 0 ? 0 : -1;
  if (!keyframe.empty() && keyframe != "none") {
    key = saltation::FindKeyframe(loaded.get(), keyframe);
    if (key < 0 && keyframe_required) return "model '" + path + "' has no keyframe '" + keyframe + "'";
  }

  auto lock = Lock();
  hook_.reset();
  marker_data_.reset();
  d_.reset();
  m_ = std::move(loaded);
  path_ = path;
  keyframe_ = key;
  solref_original_.assign(m_->geom_solref, m_->geom_solref + mjNREF * m_->ngeom);
  mjv_defaultPerturb(&pert_);
  Rebuild();
  return "";
}

void Simulation::Rebuild() {
  mjModel* m = m_.get();
  hook_.reset();  // restores margins and gaps
  marker_data_.reset();
  d_.reset();

  // solref time-constant override for the rigid-vs-compliant comparison
  for (int i = 0; i < m->ngeom; i++) {
    m->geom_solref[mjNREF * i] = settings_.solref_override ? settings_.solref_timeconst
                                                           : solref_original_[mjNREF * i];
  }

  hook_error_.clear();
  step_error_.clear();
  dropped_ += static_cast<long>(records_.size());
  records_.clear();
  total_events_ = 0;
  phi_samples_.clear();
  try {
    saltation::HookOptions options;
    options.propagation = settings_.propagation;
    options.grazing_threshold = settings_.grazing_threshold;
    options.restitution = settings_.restitution;
    options.restitution_override = settings_.restitution_override;
    // the viewer keeps its own ring of the last history_ events: the hook keeps none beyond
    // the step (its default keeps all, ≈ 10 kB per event on a 10-dof model, without bound)
    options.keep_events = false;
    hook_ = std::make_unique<saltation::Hook>(m, options);
    hook_->on_event = [this](const saltation::HookEvent& ev) { OnEvent(ev); };
    marker_data_ = std::make_unique<saltation::Data>(hook_->rigid_model());
  } catch (const std::exception& e) {
    hook_error_ = e.what();
    hook_.reset();
    marker_data_.reset();
  }

  // the data after the hook: near-contacts take contact slots
  d_.reset(mj_makeData(m));
  // all of the keyframe: qpos, qvel, act, time and also ctrl and mocap (the command line's
  // saltation::InitialState keeps only the State part)
  if (keyframe_ >= 0) mj_resetDataKeyframe(m, d_.get(), keyframe_);
  mj_forward(m, d_.get());
  resync_ = true;
  rtf_wall_ = -1;
}

void Simulation::Reset() {
  if (m_) Rebuild();
}

void Simulation::SetKeyframe(int key) {
  if (!m_) return;
  keyframe_ = (key >= 0 && key < m_->nkey) ? key : -1;
  Rebuild();
}

void Simulation::Apply(const HookSettings& s) {
  settings_ = s;
  if (m_) Rebuild();
}

void Simulation::RestartPhiWindow() {
  if (hook_ && d_) hook_->Reset(d_.get());
  phi_samples_.clear();
}

void Simulation::SetRunning(bool run) {
  running_ = run;
  resync_ = true;
  if (run) step_error_.clear();
}

void Simulation::SetSpeed(double speed) {
  speed_ = speed;
  resync_ = true;
  rtf_wall_ = -1;
}

const saltation::HookEvent* Simulation::hook_event(int record) const {
  if (record < 0 || record >= static_cast<int>(records_.size())) return nullptr;
  return records_[record].event.get();
}

double Simulation::EffectiveRestitution(int geom1, int geom2) const {
  return hook_ ? hook_->EffectiveRestitution(geom1, geom2) : -1;
}

void Simulation::OnEvent(const saltation::HookEvent& ev) {
  const saltation::Model& model = hook_->rigid_model();
  EventRecord r;
  r.kind = ev.kind;
  r.time = ev.time;
  r.geom1 = ev.contact.geom1;
  r.geom2 = ev.contact.geom2;
  if (r.geom1 >= 0 && r.geom2 >= 0) r.contact = saltation::ContactLabel(model, ev.contact);
  r.has_xi = ev.has_xi;
  r.grazing = ev.grazing;
  r.restitution = ev.restitution;
  if (ev.has_xi) {
    r.transversality = ev.rigid.xi.transversality;
    r.transversality_rel = ev.rigid.xi.transversality_rel;
    r.xi_norm = ev.rigid.xi.Norm();
  }
  r.flags = Flags(ev);

  // where to draw it: the contact point of the event's own state (or of the current one)
  const mjModel* mm = m_.get();
  const mjData* d = d_.get();
  bool placed = false;
  if (ev.point.allFinite()) {
    r.pos = ev.point;  // carried by the event
    placed = true;
  } else if (marker_data_ && r.geom1 >= 0) {
    try {
      mjData* work = marker_data_->main();
      const double* qpos = ev.has_xi ? ev.rigid.x_minus.qpos.data() : d->qpos;
      saltation::EvaluatePosition(model, work, qpos);
      std::vector<saltation::ContactPoint> points;
      saltation::ListContacts(model, work, points);
      const int match = saltation::MatchContact(ev.contact, points);
      if (match >= 0) {
        r.pos = points[match].pos;
        placed = true;
      }
    } catch (const std::exception&) {
      // fall back below
    }
  }
  if (!placed && r.geom2 >= 0 && r.geom2 < mm->ngeom) {
    // the geom that is not the floor, at its current position
    const int g = (mm->geom_type[r.geom2] == mjGEOM_PLANE) ? r.geom1 : r.geom2;
    r.pos = Eigen::Vector3d(d->geom_xpos[3 * g], d->geom_xpos[3 * g + 1], d->geom_xpos[3 * g + 2]);
  }

  recorder_.Write(*hook_, path_, ev);
  r.event = std::make_shared<const saltation::HookEvent>(ev);
  records_.push_back(std::move(r));
  total_events_++;
  while (records_.size() > history_) {
    records_.pop_front();
    dropped_++;
  }
}

void Simulation::SamplePhi() {
  if (!hook_) return;
  const double t = hook_->phi_time();
  if (!phi_samples_.empty() && t - phi_samples_.back().time < kPhiSampleDt &&
      t >= phi_samples_.back().time) {
    return;
  }
  const Eigen::MatrixXd& R = hook_->phi_rigid();
  const Eigen::MatrixXd& C = hook_->phi_compliant();
  if (R.size() == 0 && C.size() == 0) return;
  PhiSample s;
  s.time = t;
  if (R.size()) s.log10_rigid = Log10Norm(R, hook_->phi_rigid_log_scale());
  if (C.size()) s.log10_compliant = Log10Norm(C, hook_->phi_compliant_log_scale());
  if (R.size() && C.size() && R.rows() == C.rows() && R.cols() == C.cols()) {
    // ‖e^{lr} R − e^{lc} C‖ / ‖e^{lc} C‖ = ‖e^{lr−lc} R − C‖ / ‖C‖
    const double ratio = std::exp(hook_->phi_rigid_log_scale() - hook_->phi_compliant_log_scale());
    const double cn = C.norm();
    s.relative_difference = (std::isfinite(ratio) && cn > 0) ? (ratio * R - C).norm() / cn : INFINITY;
  }
  phi_samples_.push_back(s);
  while (phi_samples_.size() > kMaxPhiSamples) phi_samples_.pop_front();
}

bool Simulation::StepOnce() {
  mjModel* m = m_.get();
  mjData* d = d_.get();
  if (!m || !d) return false;
  mju_zero(d->xfrc_applied, 6 * m->nbody);
  mjv_applyPerturbPose(m, d, &pert_, 0);  // mocap bodies only
  mjv_applyPerturbForce(m, d, &pert_);
  const double before = d->time;
  const int resets = d->warning[mjWARN_BADQACC].number + d->warning[mjWARN_BADQVEL].number +
                     d->warning[mjWARN_BADQPOS].number;
  try {
    if (hook_) {
      hook_->Step(d);
    } else {
      mj_step(m, d);
    }
  } catch (const std::exception& e) {
    step_error_ = e.what();
    running_ = false;
    return false;
  }
  // MuJoCo resets a state it finds non-finite or too large (and warns): the run stops there
  // rather than going on silently from the initial state
  if (d->warning[mjWARN_BADQACC].number + d->warning[mjWARN_BADQVEL].number +
          d->warning[mjWARN_BADQPOS].number > resets ||
      d->time < before) {
    char text[160];
    std::snprintf(text, sizeof(text),
                  "unstable at t = %.6f s: MuJoCo found a non-finite or huge state and reset it",
                  before);
    step_error_ = text;
    running_ = false;
    return false;
  }
  SamplePhi();
  return true;
}

void Simulation::Advance(double dt) {
  if (!m_ || !d_) return;
  const long n = std::max(1L, std::lround(dt / m_->opt.timestep));
  for (long i = 0; i < n; i++) {
    if (!StepOnce()) return;
  }
}

void Simulation::ForwardWhilePaused() {
  if (!m_ || !d_) return;
  mjv_applyPerturbPose(m_.get(), d_.get(), &pert_, 1);
  mj_forward(m_.get(), d_.get());
}

void Simulation::StartThread() {
  exit_ = false;
  thread_ = std::thread([this] { PhysicsLoop(); });
}

void Simulation::StopThread() {
  exit_ = true;
  if (thread_.joinable()) thread_.join();
}

// Keeps d->time = sync_sim + (wall − sync_wall)·speed, stepping in chunks of at most 10 ms of
// wall time so the render thread gets the lock; a backlog over 0.1 s of wall time is dropped
// (the measured real-time factor then shows that physics is slower than asked).
void Simulation::PhysicsLoop() {
  while (!exit_) {
    bool stepped = false;
    {
      auto lock = Lock();
      mjData* d = d_.get();
      if (m_ && d && running_) {
        const double now = WallSeconds();
        if (resync_) {
          sync_sim_ = d->time;
          sync_wall_ = now;
          resync_ = false;
        }
        const double target = sync_sim_ + (now - sync_wall_) * speed_;
        const double budget_end = now + 0.010;
        while (running_ && d->time < target && WallSeconds() < budget_end) {
          const double before = d->time;
          if (!StepOnce()) break;
          stepped = true;
          if (d->time < before) resync_ = true;  // MuJoCo reset an unstable simulation
        }
        if (!resync_ && target - d->time > 0.1 * speed_) {
          sync_sim_ = d->time;
          sync_wall_ = WallSeconds();
        }
        // measured real-time factor over half-second windows
        if (rtf_wall_ < 0 || d->time < rtf_sim_) {
          rtf_wall_ = now;
          rtf_sim_ = d->time;
        } else if (now - rtf_wall_ >= 0.5) {
          measured_rtf_ = (d->time - rtf_sim_) / (now - rtf_wall_);
          rtf_wall_ = now;
          rtf_sim_ = d->time;
        }
      } else {
        resync_ = true;
        rtf_wall_ = -1;
        measured_rtf_ = 0;
      }
    }
    std::this_thread::sleep_for(std::chrono::microseconds(stepped ? 100 : 1000));
  }
}

}  // namespace saltation_viewer
