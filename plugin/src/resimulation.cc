#include "resimulation.h"

#include <algorithm>

#include "saltation/contacts.h"
#include "private_arena.h"
#include "saltation/errors.h"
#include "same_bits.h"

namespace saltation {

void Capture(const mjModel* m, const mjData* d, SavedStep& s) {
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

void LoadInputs(const mjModel* m, const StepInputs& from, mjData* d) {
  mju_copy(d->ctrl, from.ctrl.data(), m->nu);
  mju_copy(d->qfrc_applied, from.qfrc_applied.data(), m->nv);
  mju_copy(d->xfrc_applied, from.xfrc_applied.data(), 6 * m->nbody);
  mju_copy(d->mocap_pos, from.mocap_pos.data(), 3 * m->nmocap);
  mju_copy(d->mocap_quat, from.mocap_quat.data(), 4 * m->nmocap);
}

Resimulator::Resimulator(mjModel* m, mjtSize start_arena) : model_(m) {
  // the stepped model's widened band lists more contacts than the user's arena may hold (model.h):
  // the full size is the user's arena and the band's room, the starting size a small one
  struct PutBack {
    mjModel* m;
    mjtSize narena;
    ~PutBack() { m->narena = narena; }
  } put_back{m, m->narena};
  AddBandArena(m);
  full_arena_ = m->narena;
  data_ = MakeSizedData(m, start_arena > 0 ? std::min(start_arena, full_arena_) : 0);
}

template <typename Op>
void Resimulator::Sized(Op op) {
  mjData* d = data_.get();
  GrowIfHalfUsed(d, full_arena_);  // before op rebuilds the arena's contents
  const ArenaMark mark(d);
  op();
  if (d->narena < full_arena_ && mark.Filled(d)) {
    GrowArena(d, full_arena_);
    op();
  }
}

template <typename Op>
void Resimulator::WithTimestep(double h, Op op) {
  const double dt = model_->opt.timestep;
  model_->opt.timestep = h;
  try {
    op();
  } catch (...) {
    model_->opt.timestep = dt;
    throw;
  }
  model_->opt.timestep = dt;
}

void Resimulator::Load(const SavedStep& from) {
  const mjModel* m = model_;
  mjData* out = data_.get();
  prepared_ = false;
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
}

void Resimulator::Step(const SavedStep& from, double h) {
  Sized([&] {
    Load(from);
    WithTimestep(h, [&] { mj_step(model_, data_.get()); });
  });
}

bool Resimulator::ForwardIgnoresTimestep() const {
  // MuJoCo's forward pass reads the timestep only through refsafe, which raises every solref
  // time constant below 2·timestep to it (checked per geom: a pair mixes two of them)
  const mjModel* m = model_;
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

namespace {

// everything mj_step reads, bit for bit
bool SameStep(const SavedStep& a, const SavedStep& b) {
  return SameBits(a.time, b.time) && SameBits(a.qpos, b.qpos) && SameBits(a.qvel, b.qvel) &&
         SameBits(a.act, b.act) && SameBits(a.warmstart, b.warmstart) && SameBits(a.ctrl, b.ctrl) &&
         SameBits(a.qfrc_applied, b.qfrc_applied) && SameBits(a.xfrc_applied, b.xfrc_applied) &&
         SameBits(a.mocap_pos, b.mocap_pos) && SameBits(a.mocap_quat, b.mocap_quat);
}

}  // namespace

void Resimulator::PrepareSubsteps(const SavedStep& from) {
  // mj_step is mj_forward at the start state and then the integrator: with Euler only the latter
  // depends on the step length (unless refsafe raises a time constant: ForwardIgnoresTimestep),
  // so one forward serves every sub-step (bitwise what mj_step gives). Substep writes only the
  // state and the integrator's outputs, so the forward pass still held serves the same state again
  if (prepared_ && SameStep(prepared_from_, from)) return;
  forward_passes_++;
  Sized([&] {
    mjData* out = data_.get();
    Load(from);
    mj_checkPos(model_, out);
    mj_checkVel(model_, out);
    mj_forward(model_, out);
    mj_checkAcc(model_, out);
  });
  const mjData* out = data_.get();
  // the forward pass normalises quaternions in qpos: the integrator starts from that
  substep_qpos_ = Eigen::Map<const Eigen::VectorXd>(out->qpos, model_->nq);
  prepared_from_ = from;
  prepared_ = true;
}

void Resimulator::Substep(const SavedStep& from, double h) {
  const mjModel* m = model_;
  mjData* out = data_.get();
  // the integrator reads the forward pass's outputs and the state, which it overwrites
  out->time = from.time;
  Eigen::Map<Eigen::VectorXd>(out->qpos, m->nq) = substep_qpos_;
  Eigen::Map<Eigen::VectorXd>(out->qvel, m->nv) = from.qvel;
  Eigen::Map<Eigen::VectorXd>(out->act, m->na) = from.act;
  WithTimestep(h, [&] { mj_Euler(model_, out); });
}

Eigen::MatrixXd Resimulator::StepJacobian(const SavedStep& from, double h, double eps) {
  const mjModel* m = model_;
  const int n = TangentDim(m);
  RowMatrix A(n, n);
  if (m->opt.integrator != mjINT_RK4) {
    // MuJoCo's own finite differences (forward, eps) from the saved state and inputs; MuJoCo 4
    // leaves d's time and state as they were (MujocoFacts.TransitionFDRestoresTimeAndState)
    // mjd_transitionFD takes O(n²) of MuJoCo's stack, which cannot report a shortage: the full
    // arena (as the user's data would have)
    GrowArena(data_.get(), full_arena_);
    Sized([&] {
      Load(from);
      WithTimestep(h, [&] { mjd_transitionFD(model_, data_.get(), eps, 0, A.data(), nullptr, nullptr, nullptr); });
    });
    return A;
  }
  // RK4: MuJoCo 4 refuses it in mjd_transitionFD (MujocoFacts.TransitionFDRefusesRK4; 2.2.2
  // took it but returned every velocity column equal to the last), so difference whole mj_step
  // calls instead, in the same tangent layout and with the same forward step
  Step(from, h);
  const State nominal = StateNow();
  SavedStep perturbed = from;
  Eigen::VectorXd e = Eigen::VectorXd::Zero(n);
  for (int i = 0; i < n; i++) {
    e.setZero();
    e(i) = eps;
    const State x = Integrate(m, from.state(), e);
    perturbed.qpos = x.qpos;
    perturbed.qvel = x.qvel;
    perturbed.act = x.act;
    Step(perturbed, h);
    A.col(i) = Difference(m, nominal, StateNow()) / eps;
  }
  return A;
}

}  // namespace saltation
