// Benchmarks of the engine hook against MuJoCo, measured side by side inside one benchmark run
// so that the ratios are not at the mercy of a noisy shared machine. Each benchmark alternates
// the two contenders in every iteration and reports their ratio as a counter.
//
//   HookOverhead/<model>      hook.Step (events only) vs plain mj_step over the same trajectory
//   RigidPhiVsTransitionFD    one step of rigid Φ (∂F/∂x and its transition) vs mjd_transitionFD
//   XiPerEvent/<model>        one TouchdownEvent (Ξ, DΔ, impact) vs one mj_forward
//   TwentyTwoHumanoids        hook.Step vs mj_step on MuJoCo's 22 humanoids, 1 s: events by kind,
//                             most contacts, buffer warnings, physics bit for bit
//   PluginOverhead/<model>    mj_step of the model with the engine plugin saltation.events vs
//                             without it vs hook.Step
#include <benchmark/benchmark.h>
#include <mujoco/mujoco.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "saltation/saltation.h"

namespace {

using Clock = std::chrono::steady_clock;
using saltation::DataPtr;
using saltation::ModelPtr;

ModelPtr Load(const std::string& path) {
  char error[1000] = "";
  ModelPtr m(mj_loadXML(path.c_str(), nullptr, error, sizeof(error)));
  if (!m) throw std::runtime_error("cannot load " + path + ": " + error);
  return m;
}

std::string ModelFile(const std::string& name) {
  if (name == "humanoid") return SALTATION_MUJOCO_MODELS "/humanoid/humanoid.xml";
  if (name == "22_humanoids") return SALTATION_MUJOCO_MODELS "/humanoid/22_humanoids.xml";
  return SALTATION_SOURCE_DIR "/models/" + name + ".xml";
}

double Seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

// the model's keyframe `key` (its "throw" keyframe, if any), else qpos0
void ResetToStart(const mjModel* m, mjData* d, int key) {
  if (key >= 0) {
    mj_resetDataKeyframe(m, d, key);
  } else {
    mj_resetData(m, d);
  }
}

// hook.Step in events-only mode against plain mj_step, 1000 steps from the same initial state:
// with Ξ assembled at every event (the default) and with Ξ on demand (HookOptions::xi_on_demand:
// events detected, localised, classified and tracked; Ξ left for CompleteXi), all three side by
// side in every iteration
void HookOverhead(benchmark::State& state, const std::string& name) {
  ModelPtr plain = Load(ModelFile(name)), hooked = Load(ModelFile(name)), hooked_lazy = Load(ModelFile(name));
  saltation::Hook hook(hooked.get());
  saltation::HookOptions lazy_options;
  lazy_options.xi_on_demand = true;
  saltation::Hook lazy(hooked_lazy.get(), lazy_options);
  DataPtr d1(mj_makeData(plain.get())), d2(mj_makeData(hooked.get())), d3(mj_makeData(hooked_lazy.get()));
  const int key = mj_name2id(plain.get(), mjOBJ_KEY, "throw");
  double t_plain = 0, t_hook = 0, t_lazy = 0;
  for (auto _ : state) {
    const std::pair<const mjModel*, mjData*> runs[] = {{plain.get(), d1.get()}, {hooked.get(), d2.get()},
                                                       {hooked_lazy.get(), d3.get()}};
    for (const auto& [m, d] : runs) ResetToStart(m, d, key);
    hook.Reset(d2.get());
    lazy.Reset(d3.get());
    auto t0 = Clock::now();
    for (int k = 0; k < 1000; k++) mj_step(plain.get(), d1.get());
    auto t1 = Clock::now();
    for (int k = 0; k < 1000; k++) hook.Step(d2.get());
    auto t2 = Clock::now();
    for (int k = 0; k < 1000; k++) lazy.Step(d3.get());
    auto t3 = Clock::now();
    t_plain += Seconds(t1 - t0);
    t_hook += Seconds(t2 - t1);
    t_lazy += Seconds(t3 - t2);
  }
  state.counters["plain_us_per_step"] = 1e6 * t_plain / (1000.0 * state.iterations());
  state.counters["hook_us_per_step"] = 1e6 * t_hook / (1000.0 * state.iterations());
  state.counters["ratio_hook_to_plain"] = t_hook / t_plain;
  state.counters["ratio_on_demand_to_plain"] = t_lazy / t_plain;
  state.counters["events"] = static_cast<double>(hook.events().size());
  state.counters["events_on_demand"] = static_cast<double>(lazy.events().size());
}
BENCHMARK_CAPTURE(HookOverhead, humanoid, std::string("humanoid"))->Unit(benchmark::kMillisecond)->Iterations(5);
BENCHMARK_CAPTURE(HookOverhead, ball_drop, std::string("ball_drop"))->Unit(benchmark::kMillisecond)->Iterations(20);

// MuJoCo's 22 humanoids (nv 594) falling onto the floor and onto each other, 1 simulated second
// (200 steps) from qpos0: hook.Step (Ξ on demand) and plain mj_step side by side step by step,
// with the physics compared bit for bit after every step; counts the events by kind, the most
// contacts of each run (the hooked model's gaps are widened: near-contacts are listed too) and
// MuJoCo's contact / constraint buffer warnings of both runs and of the hook's own workspaces
void TwentyTwoHumanoids(benchmark::State& state) {
  ModelPtr plain = Load(ModelFile("22_humanoids")), hooked = Load(ModelFile("22_humanoids"));
  saltation::HookOptions options;
  options.xi_on_demand = true;
  saltation::Hook hook(hooked.get(), options);
  DataPtr d1(mj_makeData(plain.get())), d2(mj_makeData(hooked.get()));
  const int steps = static_cast<int>(std::lround(1.0 / plain->opt.timestep));
  double t_plain = 0, t_hook = 0;
  int max_plain = 0, max_hooked = 0, differing_steps = 0, buffer_warnings = 0;
  saltation::TakeMujocoWarnings();
  for (auto _ : state) {
    mj_resetData(plain.get(), d1.get());
    mj_resetData(hooked.get(), d2.get());
    hook.Reset(d2.get());
    for (int k = 0; k < steps; k++) {
      auto t0 = Clock::now();
      mj_step(plain.get(), d1.get());
      auto t1 = Clock::now();
      hook.Step(d2.get());
      auto t2 = Clock::now();
      t_plain += Seconds(t1 - t0);
      t_hook += Seconds(t2 - t1);
      max_plain = std::max(max_plain, d1->ncon);
      max_hooked = std::max(max_hooked, d2->ncon);
      differing_steps += std::memcmp(d1->qpos, d2->qpos, sizeof(mjtNum) * plain->nq) != 0 ||
                         std::memcmp(d1->qvel, d2->qvel, sizeof(mjtNum) * plain->nv) != 0;
    }
  }
  for (mjData* d : {d1.get(), d2.get()}) {
    buffer_warnings += d->warning[mjWARN_CONTACTFULL].number + d->warning[mjWARN_CNSTRFULL].number;
  }
  for (const std::string& w : saltation::TakeMujocoWarnings()) {
    std::fprintf(stderr, "MuJoCo warning: %s\n", w.c_str());
    // mjWARN_CONTACTFULL / mjWARN_CNSTRFULL: "… The arena memory is full …", "Insufficient arena memory …"
    buffer_warnings += w.find("arena memory") != std::string::npos;
  }
  std::map<std::string, int> kinds;
  for (const saltation::HookEvent& ev : hook.events()) kinds[saltation::EventKindName(ev.kind)]++;
  for (const auto& [kind, n] : kinds) state.counters[kind] = n;
  state.counters["plain_ms_per_step"] = 1e3 * t_plain / (steps * static_cast<double>(state.iterations()));
  state.counters["hook_ms_per_step"] = 1e3 * t_hook / (steps * static_cast<double>(state.iterations()));
  state.counters["ratio_hook_to_plain"] = t_hook / t_plain;
  state.counters["max_ncon_plain"] = max_plain;
  state.counters["max_ncon_hooked"] = max_hooked;
  state.counters["differing_steps"] = differing_steps;
  state.counters["buffer_warnings"] = buffer_warnings;
  state.counters["untracked_pairs"] = static_cast<double>(hook.untracked_pairs().size());
}
BENCHMARK(TwentyTwoHumanoids)->Unit(benchmark::kMillisecond)->Iterations(1);

// one step of the rigid chain (∂F_A/∂x as the hook forms it, and its transition over dt) against
// mjd_transitionFD (forward differences) at the same state of the humanoid lying down; the
// central-difference twin is timed alongside for reference
void RigidPhiVsTransitionFD(benchmark::State& state) {
  ModelPtr m = Load(ModelFile("humanoid"));
  saltation::HookOptions options;
  saltation::Hook hook(m.get(), options);
  DataPtr d(mj_makeData(m.get()));
  for (int k = 0; k < 400; k++) hook.Step(d.get());  // fallen: several contacts in the mode
  saltation::Model model(m.get());
  saltation::Data data(model);
  const saltation::State x = saltation::StateFromData(m.get(), d.get());
  const saltation::Mode mode = hook.mode();
  const int n = saltation::TangentDim(m.get());
  std::vector<mjtNum> A(n * n);
  DataPtr scratch(mj_makeData(m.get()));
  double t_rigid = 0, t_fd = 0, t_twin = 0;
  for (auto _ : state) {
    auto t0 = Clock::now();
    const Eigen::MatrixXd J = saltation::ModeVectorFieldJacobian(model, data, x, mode, 1e-6);
    const Eigen::MatrixXd E = Eigen::MatrixXd::Identity(n, n) + m->opt.timestep * J;
    benchmark::DoNotOptimize(E.data());
    auto t1 = Clock::now();
    mj_copyData(scratch.get(), m.get(), d.get());
    mjd_transitionFD(m.get(), scratch.get(), 1e-6, 0, A.data(), nullptr, nullptr, nullptr);
    auto t2 = Clock::now();
    const Eigen::MatrixXd T = saltation::ModeVectorFieldJacobianFD(model, data, x, mode, 1e-6);
    benchmark::DoNotOptimize(T.data());
    auto t3 = Clock::now();
    t_rigid += Seconds(t1 - t0);
    t_fd += Seconds(t2 - t1);
    t_twin += Seconds(t3 - t2);
  }
  state.counters["ratio_twin_to_transitionFD"] = t_twin / t_fd;
  state.counters["mode_contacts"] = static_cast<double>(mode.contacts.size());
  state.counters["rigid_ms"] = 1e3 * t_rigid / state.iterations();
  state.counters["transitionFD_ms"] = 1e3 * t_fd / state.iterations();
  state.counters["ratio_rigid_to_transitionFD"] = t_rigid / t_fd;
}
BENCHMARK(RigidPhiVsTransitionFD)->Unit(benchmark::kMillisecond)->Iterations(10);

// Ξ of one touchdown (impact, DΔ with its configuration block, F⁻, F⁺) in multiples of mj_forward
void XiPerEvent(benchmark::State& state, const std::string& name) {
  ModelPtr m = Load(ModelFile(name));
  saltation::Hook hook(m.get());
  DataPtr d(mj_makeData(m.get()));
  const int key = mj_name2id(m.get(), mjOBJ_KEY, "throw");
  if (key >= 0) mj_resetDataKeyframe(m.get(), d.get(), key);
  const saltation::HookEvent* event = nullptr;
  while (!event && d->time < 5) {
    hook.Step(d.get());
    for (const saltation::HookEvent& ev : hook.events()) {
      if (ev.has_xi && ev.rigid.kind == saltation::EventKind::kTouchdown) event = &ev;
    }
  }
  if (!event) {
    state.SkipWithError("no touchdown");
    return;
  }
  saltation::Model model(m.get());
  saltation::Data data(model);
  const double tol = saltation::DefaultForceTolerance(m.get());
  double t_xi = 0, t_forward = 0;
  for (auto _ : state) {
    auto t0 = Clock::now();
    const saltation::RigidEvent ev = saltation::TouchdownEvent(model, data, saltation::RestitutionTable(model), event->rigid.x_minus, event->rigid.mode_before,
                                                               event->contact, 1e-9, tol);
    benchmark::DoNotOptimize(ev.xi.correction.data());
    auto t1 = Clock::now();
    for (int k = 0; k < 10; k++) mj_forward(m.get(), d.get());
    auto t2 = Clock::now();
    t_xi += Seconds(t1 - t0);
    t_forward += Seconds(t2 - t1) / 10;
  }
  state.counters["xi_us"] = 1e6 * t_xi / state.iterations();
  state.counters["forward_us"] = 1e6 * t_forward / state.iterations();
  state.counters["xi_in_forwards"] = t_xi / t_forward;
}
BENCHMARK_CAPTURE(XiPerEvent, humanoid, std::string("humanoid"))->Unit(benchmark::kMillisecond)->Iterations(20);
BENCHMARK_CAPTURE(XiPerEvent, ball_drop, std::string("ball_drop"))->Unit(benchmark::kMillisecond)->Iterations(50);

// the model's file with the engine plugin's instance and sensor added (written next to nothing:
// the bench models reference no other file)
ModelPtr LoadWithPlugin(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  std::string xml = text.str();
  const size_t end = xml.rfind("</mujoco>");
  if (end == std::string::npos) throw std::runtime_error("not an MJCF file: " + path);
  xml.insert(end, R"(<extension><plugin plugin="saltation.events"><instance name="events"/></plugin></extension>
<sensor><plugin name="saltation" instance="events"/></sensor>
)");
  const std::string tmp = "/tmp/saltation_bench_plugin_model.xml";
  std::ofstream(tmp) << xml;
  return Load(tmp);
}

// plain mj_step of the model with the plugin against the model without it and against hook.Step
// (events only), 1000 steps each from the same state, side by side in every iteration
void PluginOverhead(benchmark::State& state, const std::string& name) {
  mj_loadPluginLibrary(SALTATION_PLUGIN_LIBRARY);
  ModelPtr plain = Load(ModelFile(name)), with = LoadWithPlugin(ModelFile(name)), hooked = Load(ModelFile(name));
  saltation::Hook hook(hooked.get());
  DataPtr d1(mj_makeData(plain.get())), d2(mj_makeData(with.get())), d3(mj_makeData(hooked.get()));
  const int key = mj_name2id(plain.get(), mjOBJ_KEY, "throw");
  double t_plain = 0, t_plugin = 0, t_hook = 0;
  for (auto _ : state) {
    const std::pair<const mjModel*, mjData*> runs[] = {{plain.get(), d1.get()}, {with.get(), d2.get()},
                                                       {hooked.get(), d3.get()}};
    for (const auto& [m, d] : runs) ResetToStart(m, d, key);
    hook.Reset(d3.get());
    auto t0 = Clock::now();
    for (int k = 0; k < 1000; k++) mj_step(plain.get(), d1.get());
    auto t1 = Clock::now();
    for (int k = 0; k < 1000; k++) mj_step(with.get(), d2.get());
    auto t2 = Clock::now();
    for (int k = 0; k < 1000; k++) hook.Step(d3.get());
    auto t3 = Clock::now();
    t_plain += Seconds(t1 - t0);
    t_plugin += Seconds(t2 - t1);
    t_hook += Seconds(t3 - t2);
  }
  state.counters["plain_us_per_step"] = 1e6 * t_plain / (1000.0 * state.iterations());
  state.counters["ratio_plugin_to_plain"] = t_plugin / t_plain;
  state.counters["ratio_hook_to_plain"] = t_hook / t_plain;
  state.counters["plugin_events"] = d2->sensordata[with->sensor_adr[with->nsensor - 1]];
}
BENCHMARK_CAPTURE(PluginOverhead, humanoid, std::string("humanoid"))->Unit(benchmark::kMillisecond)->Iterations(5);
BENCHMARK_CAPTURE(PluginOverhead, ball_drop, std::string("ball_drop"))->Unit(benchmark::kMillisecond)->Iterations(20);

}  // namespace

int main(int argc, char** argv) {
  saltation::InstallMujocoHandlers();
  if (const std::string e = saltation::MujocoVersionMismatch(); !e.empty()) {
    std::fprintf(stderr, "saltation_bench: %s\n", e.c_str());
    return 3;
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
