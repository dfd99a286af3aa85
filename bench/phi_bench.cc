// One step of the rigid chain against mjd_transitionFD, the fair version: the same state of the
// humanoid lying down, nothing extra on either side (mjd_transitionFD runs on an mjData copied
// once before timing: it restores the state it perturbs, so no mj_copyData is counted). Times are
// this thread's CPU time (the machine is shared: wall time counts the neighbours).
//   PhiRigid/humanoid  rigid: ∂F_A/∂x as the hook forms it (ModeVectorFieldJacobian, the mode's
//                      contacts) and its transition I + dt·J; MuJoCo: mjd_transitionFD, forward
//                      differences, eps 1e-6, A only. Counter ratio_rigid_to_transitionFD; the
//                      central-difference twin ModeVectorFieldJacobianFD for reference.
//   EvaluateMode/humanoid  one mode evaluation (EvaluateMode: qacc, forces, its J̇v bias) at the
//                      same state, against one mj_forward on a copy. Counters evaluate_ms,
//                      forward_ms, evaluate_in_forwards.
//   ClosedFormBias/round_trio  the cost of contact_jdot.h's closed-form J̇v: four free bodies (two
//                      spheres, two capsules) touching in a chain, a sphere–sphere, a sphere–capsule
//                      and a capsule–capsule contact (axes 0.5 rad apart), all three in the mode,
//                      moving at a fixed random velocity; ConstraintBias (the mode's J̇v alone),
//                      EvaluateMode and mj_forward on a copy, alternated. Counters bias_us,
//                      evaluate_us, forward_us, evaluate_in_forwards, closed_form_contacts (the
//                      mode's contacts the closed form serves at the state: 3).
#include <benchmark/benchmark.h>

#include <cmath>
#include <vector>

#include "bench_util.h"
#include "contact_jdot.h"

namespace bench {
namespace {

void PhiRigid(benchmark::State& state, const std::string& name, int settle_steps) {
  saltation::ModelPtr m = LoadNamed(name);
  saltation::Hook hook(m.get());
  saltation::DataPtr d(mj_makeData(m.get()));
  ResetToStart(m.get(), d.get());
  for (int k = 0; k < settle_steps; k++) hook.Step(d.get());  // fallen: several contacts in the mode
  saltation::Model model(m.get());
  saltation::Data data(model);
  const saltation::State x = saltation::StateFromData(m.get(), d.get());
  const saltation::Mode mode = hook.mode();
  const int n = saltation::TangentDim(m.get());
  std::vector<mjtNum> A(n * n);
  saltation::DataPtr fd(mj_makeData(m.get()));
  mj_copyData(fd.get(), m.get(), d.get());
  double t_rigid = 0, t_fd = 0, t_twin = 0;
  for (auto _ : state) {
    const double t0 = ThreadCpuSeconds();
    const Eigen::MatrixXd J = saltation::ModeVectorFieldJacobian(model, data, x, mode, 1e-6);
    const Eigen::MatrixXd E = Eigen::MatrixXd::Identity(n, n) + m->opt.timestep * J;
    benchmark::DoNotOptimize(E.data());
    const double t1 = ThreadCpuSeconds();
    mjd_transitionFD(m.get(), fd.get(), 1e-6, 0, A.data(), nullptr, nullptr, nullptr);
    benchmark::DoNotOptimize(A.data());
    const double t2 = ThreadCpuSeconds();
    const Eigen::MatrixXd T = saltation::ModeVectorFieldJacobianFD(model, data, x, mode, 1e-6);
    benchmark::DoNotOptimize(T.data());
    const double t3 = ThreadCpuSeconds();
    t_rigid += t1 - t0;
    t_fd += t2 - t1;
    t_twin += t3 - t2;
  }
  state.counters["mode_contacts"] = static_cast<double>(mode.contacts.size());
  state.counters["rigid_ms"] = 1e3 * t_rigid / state.iterations();
  state.counters["transitionFD_ms"] = 1e3 * t_fd / state.iterations();
  state.counters["ratio_rigid_to_transitionFD"] = t_rigid / t_fd;
  state.counters["ratio_twin_to_transitionFD"] = t_twin / t_fd;
}

void EvaluateModeCost(benchmark::State& state, const std::string& name, int settle_steps) {
  saltation::ModelPtr m = LoadNamed(name);
  saltation::Hook hook(m.get());
  saltation::DataPtr d(mj_makeData(m.get()));
  ResetToStart(m.get(), d.get());
  for (int k = 0; k < settle_steps; k++) hook.Step(d.get());
  saltation::Model model(m.get());
  saltation::Data data(model);
  const saltation::State x = saltation::StateFromData(m.get(), d.get());
  const saltation::Mode mode = hook.mode();
  saltation::DataPtr fwd(mj_makeData(m.get()));
  mj_copyData(fwd.get(), m.get(), d.get());
  double t_mode = 0, t_forward = 0;
  for (auto _ : state) {
    const double t0 = ThreadCpuSeconds();
    const saltation::ModeDynamics dyn = saltation::EvaluateMode(model, data, x, mode);
    benchmark::DoNotOptimize(dyn.qacc.data());
    const double t1 = ThreadCpuSeconds();
    mj_forward(m.get(), fwd.get());
    benchmark::DoNotOptimize(fwd->qacc);
    const double t2 = ThreadCpuSeconds();
    t_mode += t1 - t0;
    t_forward += t2 - t1;
  }
  state.counters["mode_contacts"] = static_cast<double>(mode.contacts.size());
  state.counters["evaluate_ms"] = 1e3 * t_mode / state.iterations();
  state.counters["forward_ms"] = 1e3 * t_forward / state.iterations();
  state.counters["evaluate_in_forwards"] = t_mode / t_forward;
}

// two spheres (r 0.1), two capsules (r 0.05, half length 0.2): s1–s2 centres 0.2 apart, s2's centre
// 0.15 from c1's axis (along y), c1's axis 0.1 from c2's (in the y–z plane, 0.5 rad from vertical):
// each pair touching at its nearest points, the capsules' on their open segments
constexpr char kRoundTrio[] = R"(
<mujoco>
  <worldbody>
    <body name="s1" pos="0 0 1"><freejoint/><geom type="sphere" size="0.1" mass="1"/></body>
    <body name="s2" pos="0.2 0 1"><freejoint/><geom type="sphere" size="0.1" mass="1"/></body>
    <body name="c1" pos="0.35 0 1" zaxis="0 1 0"><freejoint/><geom type="capsule" size="0.05 0.2" mass="1"/></body>
    <body name="c2" pos="0.45 0 1" zaxis="0 0.479425538604203 0.8775825618903728"><freejoint/>
      <geom type="capsule" size="0.05 0.2" mass="1"/></body>
  </worldbody>
</mujoco>)";

void ClosedFormBiasCost(benchmark::State& state) {
  saltation::ModelPtr m = LoadXmlText(kRoundTrio);
  saltation::Model model(m.get());
  saltation::Data data(model);
  saltation::State x = saltation::InitialState(m.get(), "");
  for (int i = 0; i < m->nv; i++) x.qvel(i) = 0.5 * std::sin(1.0 + 7.3 * i);  // fixed, varied
  // the mode: the three touching points; those the closed form serves at x (ContactJdot's formula
  // places them where MuJoCo does: else ConstraintBias would fall back to the stencil)
  std::vector<saltation::ContactPoint> points;
  mjData* d = data.main();
  saltation::EvaluatePosition(model, d, x.qpos.data());
  mju_copy(d->qvel, x.qvel.data(), m->nv);
  mj_comVel(m.get(), d);
  saltation::ListContacts(model, d, points);
  saltation::Mode mode;
  int closed_form = 0;
  saltation::RowMatrix rows(3, m->nv);
  for (const saltation::ContactPoint& p : points) {
    if (std::abs(p.gap) > 1e-12) continue;
    mode.contacts.push_back(p.id);
    closed_form += saltation::HasContactJdot(m.get(), p.id) &&
                   saltation::ContactJdot(m.get(), d, p, x.qvel.data(), rows.topRows(saltation::ContactRowCount(p)));
  }
  if (mode.contacts.size() != 3 || closed_form != 3) {
    // timed otherwise, bias_us would include the stencil's cost unseen
    state.SkipWithError("round_trio: expected 3 touching contacts, each served by the closed form");
    return;
  }
  saltation::DataPtr fwd(mj_makeData(m.get()));
  mju_copy(fwd->qpos, x.qpos.data(), m->nq);
  mju_copy(fwd->qvel, x.qvel.data(), m->nv);
  double t_bias = 0, t_mode = 0, t_forward = 0;
  for (auto _ : state) {
    const double t0 = ThreadCpuSeconds();
    const Eigen::VectorXd bias = saltation::ConstraintBias(model, data, x, mode.contacts);
    benchmark::DoNotOptimize(bias.data());
    const double t1 = ThreadCpuSeconds();
    const saltation::ModeDynamics dyn = saltation::EvaluateMode(model, data, x, mode);
    benchmark::DoNotOptimize(dyn.qacc.data());
    const double t2 = ThreadCpuSeconds();
    mj_forward(m.get(), fwd.get());
    benchmark::DoNotOptimize(fwd->qacc);
    const double t3 = ThreadCpuSeconds();
    t_bias += t1 - t0;
    t_mode += t2 - t1;
    t_forward += t3 - t2;
  }
  const double n = static_cast<double>(state.iterations());
  state.counters["closed_form_contacts"] = closed_form;
  state.counters["bias_us"] = 1e6 * t_bias / n;
  state.counters["evaluate_us"] = 1e6 * t_mode / n;
  state.counters["forward_us"] = 1e6 * t_forward / n;
  state.counters["evaluate_in_forwards"] = t_mode / t_forward;
}

}  // namespace

void RegisterPhi() {
  const int settle = Pick(400, 150);
  benchmark::RegisterBenchmark("PhiRigid/humanoid", [=](benchmark::State& s) { PhiRigid(s, "humanoid", settle); })
      ->Unit(benchmark::kMillisecond)
      ->Iterations(Pick(20, 2));
  benchmark::RegisterBenchmark("EvaluateMode/humanoid",
                               [=](benchmark::State& s) { EvaluateModeCost(s, "humanoid", settle); })
      ->Unit(benchmark::kMillisecond)
      ->Iterations(Pick(500, 20));
  benchmark::RegisterBenchmark("ClosedFormBias/round_trio", ClosedFormBiasCost)
      ->Unit(benchmark::kMicrosecond)
      ->Iterations(Pick(20000, 200));
}

}  // namespace bench
