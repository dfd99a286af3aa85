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
#include <benchmark/benchmark.h>

#include <vector>

#include "bench_util.h"

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
}

}  // namespace bench
