// The stepping thread, events only: hook.Step with Ξ on demand (HookOptions::xi_on_demand: events
// detected, localised, classified and tracked, Ξ left for CompleteXi) against plain mj_step over
// the same steps from the same state, side by side in every iteration; the eager hook (Ξ at every
// event) alongside for reference; and the same on-demand hook with its bookkeeping on the worker
// thread (HookOptions::worker_thread).
//   Stepping/<model>    counters ratio_on_demand_to_plain (the "stepping thread"),
//                       ratio_worker_step_to_plain (the worker hook's Step alone: a plain mj_step
//                       on the user's gaps and the capture; the worker replays the step and does
//                       the bookkeeping; the queue never full: blocks of 10 steps into a queue of 16, synced untimed between
//                       blocks: a control loop's latency), ratio_worker_throughput_to_plain (all
//                       the steps into the default queue of 8, then Sync: Step + the wait, over
//                       the whole run, against a plain run of the same steps timed just before),
//                       ratio_capture_to_plain (what hands a step to the worker: the two
//                       mj_getState of kWorkerStateBefore and kWorkerStateAfter, hook.h),
//                       ratio_unfiltered_to_plain (the same without the release pre-filter,
//                       HookOptions::release_prefilter), ratio_eager_to_plain, plain_us_per_step,
//                       events
//   TwentyTwoHumanoids  MuJoCo's 22 humanoids, 1 s: events by kind, most contacts, buffer
//                       warnings, physics bit for bit (only with --22-humanoids: minutes)
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <vector>

#include "bench_util.h"

namespace bench {
namespace {

void Stepping(benchmark::State& state, const std::string& name, int steps, bool eager) {
  saltation::ModelPtr plain = LoadNamed(name), lazy_model = LoadNamed(name), eager_model = LoadNamed(name),
                      unfiltered_model = LoadNamed(name);
  saltation::HookOptions lazy_options;
  lazy_options.xi_on_demand = true;
  saltation::Hook lazy(lazy_model.get(), lazy_options);
  saltation::HookOptions unfiltered_options = lazy_options;
  unfiltered_options.release_prefilter = false;
  saltation::Hook unfiltered(unfiltered_model.get(), unfiltered_options);
  std::unique_ptr<saltation::Hook> hook;
  if (eager) hook = std::make_unique<saltation::Hook>(eager_model.get());
  saltation::ModelPtr worker_model = LoadNamed(name);
  saltation::HookOptions worker_options = lazy_options;
  worker_options.worker_thread = true;
  worker_options.worker_queue = 16;
  saltation::Hook worker(worker_model.get(), worker_options);
  saltation::HookOptions throughput_options = lazy_options;
  throughput_options.worker_thread = true;
  saltation::Hook throughput(worker_model.get(), throughput_options);
  saltation::DataPtr d5(mj_makeData(worker_model.get()));
  std::vector<mjtNum> before(mj_stateSize(worker_model.get(), saltation::kWorkerStateBefore)),
      after(mj_stateSize(worker_model.get(), saltation::kWorkerStateAfter));
  double t_worker = 0, t_throughput = 0, t_throughput_plain = 0, t_capture = 0;
  std::vector<double> block_ratios;  // each block's worker Step time over its plain mj_step time
  long captures = 0;
  saltation::DataPtr d1(mj_makeData(plain.get())), d2(mj_makeData(lazy_model.get())),
      d3(mj_makeData(eager_model.get())), d4(mj_makeData(unfiltered_model.get()));
  double t_plain = 0, t_lazy = 0, t_eager = 0, t_unfiltered = 0;
  for (auto _ : state) {
    ResetToStart(plain.get(), d1.get());
    ResetToStart(lazy_model.get(), d2.get());
    ResetToStart(eager_model.get(), d3.get());
    ResetToStart(unfiltered_model.get(), d4.get());
    lazy.Reset(d2.get());
    unfiltered.Reset(d4.get());
    if (hook) hook->Reset(d3.get());
    ResetToStart(worker_model.get(), d5.get());
    worker.Reset(d5.get());
    // interleaved in blocks of 10 steps so that a busy moment of the machine hits both
    for (int k = 0; k < steps; k += 10) {
      const int block = std::min(10, steps - k);
      auto t0 = Clock::now();
      for (int j = 0; j < block; j++) mj_step(plain.get(), d1.get());
      auto t1 = Clock::now();
      for (int j = 0; j < block; j++) lazy.Step(d2.get());
      auto t2 = Clock::now();
      if (hook) {
        for (int j = 0; j < block; j++) hook->Step(d3.get());
      }
      auto t3 = Clock::now();
      for (int j = 0; j < block; j++) unfiltered.Step(d4.get());
      auto t4 = Clock::now();
      for (int j = 0; j < block; j++) worker.Step(d5.get());
      auto t5 = Clock::now();
      worker.Sync();  // untimed: the next block starts with an empty queue
      auto t6 = Clock::now();
      mj_getState(worker_model.get(), d5.get(), before.data(), saltation::kWorkerStateBefore);
      mj_getState(worker_model.get(), d5.get(), after.data(), saltation::kWorkerStateAfter);
      auto t7 = Clock::now();
      t_worker += Seconds(t5 - t4);
      block_ratios.push_back(Seconds(t5 - t4) / Seconds(t1 - t0));
      t_capture += Seconds(t7 - t6);
      captures++;
      t_plain += Seconds(t1 - t0);
      t_lazy += Seconds(t2 - t1);
      t_eager += Seconds(t3 - t2);
      t_unfiltered += Seconds(t4 - t3);
    }
    // sustained: every step into the default queue, then the wait for the worker
    ResetToStart(plain.get(), d1.get());
    ResetToStart(worker_model.get(), d5.get());
    throughput.Reset(d5.get());
    auto t0 = Clock::now();
    for (int k = 0; k < steps; k++) mj_step(plain.get(), d1.get());
    auto t1 = Clock::now();
    for (int k = 0; k < steps; k++) throughput.Step(d5.get());
    throughput.Sync();
    auto t2 = Clock::now();
    t_throughput_plain += Seconds(t1 - t0);
    t_throughput += Seconds(t2 - t1);
  }
  state.counters["nv"] = plain->nv;
  state.counters["steps"] = steps;
  state.counters["plain_us_per_step"] = 1e6 * t_plain / (steps * static_cast<double>(state.iterations()));
  state.counters["ratio_on_demand_to_plain"] = t_lazy / t_plain;
  state.counters["ratio_unfiltered_to_plain"] = t_unfiltered / t_plain;
  state.counters["guard_steps_skipped"] = static_cast<double>(lazy.guard_solves_skipped()) / std::max(1L, lazy.guard_steps());
  if (hook) state.counters["ratio_eager_to_plain"] = t_eager / t_plain;
  state.counters["ratio_worker_step_to_plain"] = t_worker / t_plain;
  std::nth_element(block_ratios.begin(), block_ratios.begin() + block_ratios.size() / 2, block_ratios.end());
  state.counters["ratio_worker_step_median_to_plain"] = block_ratios.empty() ? 0 : block_ratios[block_ratios.size() / 2];
  state.counters["ratio_worker_throughput_to_plain"] = t_throughput / t_throughput_plain;
  state.counters["ratio_capture_to_plain"] = t_capture / (t_plain / steps * static_cast<double>(captures) / state.iterations());
  if (worker.events().size() != lazy.events().size()) state.SkipWithError("the worker hook's events differ from the hook's");
  state.counters["events"] = static_cast<double>(lazy.events().size());
}

// MuJoCo's 22 humanoids (nv 594) falling onto the floor and onto each other, 1 simulated second
// (200 steps) from qpos0: hook.Step (Ξ on demand) and plain mj_step side by side step by step,
// with the physics compared bit for bit after every step; counts the events by kind, the most
// contacts of each run (the hooked model's gaps are widened: near-contacts are listed too) and
// MuJoCo's contact / constraint buffer warnings of both runs and of the hook's own workspaces
void TwentyTwoHumanoids(benchmark::State& state) {
  saltation::ModelPtr plain = LoadNamed("22_humanoids"), hooked = LoadNamed("22_humanoids");
  saltation::HookOptions options;
  options.xi_on_demand = true;
  saltation::Hook hook(hooked.get(), options);
  saltation::DataPtr d1(mj_makeData(plain.get())), d2(mj_makeData(hooked.get()));
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
    buffer_warnings += w.find("arena memory") != std::string::npos;
  }
  std::map<std::string, int> kinds;
  for (const saltation::HookEvent& ev : hook.events()) kinds[saltation::EventKindName(ev.kind)]++;
  for (const auto& [kind, n] : kinds) state.counters[kind] = n;
  state.counters["plain_ms_per_step"] = 1e3 * t_plain / (steps * static_cast<double>(state.iterations()));
  state.counters["ratio_on_demand_to_plain"] = t_hook / t_plain;
  state.counters["max_ncon_plain"] = max_plain;
  state.counters["max_ncon_hooked"] = max_hooked;
  state.counters["differing_steps"] = differing_steps;
  state.counters["buffer_warnings"] = buffer_warnings;
}

}  // namespace

void RegisterStepping() {
  struct Case {
    const char* name;
    int steps, quick_steps, iterations;
    bool eager;
  };
  // humanoid: dt 5 ms, falls and lies (1000 steps = 5 s); balls: dt 2 ms, all land within 0.4 s;
  // humanoid100: its objects land within 0.4 s (300 steps = 1.5 s)
  const Case cases[] = {{"humanoid", 1000, 100, 3, true}, {"humanoid100", 300, 20, 1, false},
                        {"balls1", 1000, 100, 5, true},   {"balls5", 1000, 100, 3, true},
                        {"balls20", 1000, 50, 2, false},  {"balls50", 1000, 50, 1, false}};
  for (const Case& c : cases) {
    const std::string name = c.name;
    const int steps = Pick(c.steps, c.quick_steps);
    const bool eager = c.eager && !Quick();
    benchmark::RegisterBenchmark(("Stepping/" + name).c_str(),
                                 [=](benchmark::State& s) { Stepping(s, name, steps, eager); })
        ->Unit(benchmark::kMillisecond)
        ->Iterations(Pick(c.iterations, 1));
  }
  if (TwentyTwo() && !Quick()) benchmark::RegisterBenchmark("TwentyTwoHumanoids", TwentyTwoHumanoids)->Unit(benchmark::kMillisecond)->Iterations(1);
}

}  // namespace bench
