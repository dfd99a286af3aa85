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
//                       warnings, physics bit for bit, the on-demand hook's ratio, and the worker
//                       hook's ratios as in Stepping (only with --22-humanoids: minutes)
#include <benchmark/benchmark.h>
#include <time.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "bench_util.h"

namespace bench {
namespace {

double CpuSeconds(clockid_t clock) {
  timespec t;
  clock_gettime(clock, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

// the worker hook's sustained rate: `steps` plain mj_step from the start, then the same steps into
// the worker hook (its queue as it is) and its Sync; the wall time of both, and the CPU time of the
// plain run and of the worker thread (the process's during the hook's run less the stepping
// thread's: the bench's other hooks' workers sleep then)
struct Throughput {
  double plain_s = 0, worker_s = 0, plain_cpu_s = 0, worker_cpu_s = 0;
};

void RunThroughput(const mjModel* plain_model, mjData* plain_data, saltation::Hook& hook, const mjModel* hook_model,
                   mjData* hook_data, int steps, Throughput& out) {
  ResetToStart(plain_model, plain_data);
  ResetToStart(hook_model, hook_data);
  hook.Reset(hook_data);
  const double c0 = CpuSeconds(CLOCK_THREAD_CPUTIME_ID);
  auto t0 = Clock::now();
  for (int k = 0; k < steps; k++) mj_step(plain_model, plain_data);
  auto t1 = Clock::now();
  const double c1 = CpuSeconds(CLOCK_THREAD_CPUTIME_ID), p1 = CpuSeconds(CLOCK_PROCESS_CPUTIME_ID);
  for (int k = 0; k < steps; k++) hook.Step(hook_data);
  hook.Sync();
  auto t2 = Clock::now();
  const double c2 = CpuSeconds(CLOCK_THREAD_CPUTIME_ID), p2 = CpuSeconds(CLOCK_PROCESS_CPUTIME_ID);
  out.plain_s += Seconds(t1 - t0);
  out.worker_s += Seconds(t2 - t1);
  out.plain_cpu_s += c1 - c0;
  out.worker_cpu_s += (p2 - p1) - (c2 - c1);
}

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
  return v[v.size() / 2];
}

// the first record where two event streams differ (kind, time, contact, group), -1 when none
long FirstDifference(const std::vector<saltation::HookEvent>& a, const std::vector<saltation::HookEvent>& b) {
  for (size_t i = 0; i < std::min(a.size(), b.size()); i++) {
    if (a[i].kind != b[i].kind || std::memcmp(&a[i].time, &b[i].time, sizeof(double)) != 0 ||
        a[i].contact.geom1 != b[i].contact.geom1 || a[i].contact.geom2 != b[i].contact.geom2 || a[i].group != b[i].group) {
      return static_cast<long>(i);
    }
  }
  return a.size() == b.size() ? -1 : static_cast<long>(std::min(a.size(), b.size()));
}

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
  double t_worker = 0, t_capture = 0, c_worker = 0, c_plain = 0;  // (c_: the stepping thread's CPU time)
  Throughput sustained;
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
      const double c0 = CpuSeconds(CLOCK_THREAD_CPUTIME_ID);
      auto t0 = Clock::now();
      for (int j = 0; j < block; j++) mj_step(plain.get(), d1.get());
      auto t1 = Clock::now();
      const double c1 = CpuSeconds(CLOCK_THREAD_CPUTIME_ID);
      for (int j = 0; j < block; j++) lazy.Step(d2.get());
      auto t2 = Clock::now();
      if (hook) {
        for (int j = 0; j < block; j++) hook->Step(d3.get());
      }
      auto t3 = Clock::now();
      for (int j = 0; j < block; j++) unfiltered.Step(d4.get());
      const double c4 = CpuSeconds(CLOCK_THREAD_CPUTIME_ID);
      auto t4 = Clock::now();
      for (int j = 0; j < block; j++) worker.Step(d5.get());
      auto t5 = Clock::now();
      const double c5 = CpuSeconds(CLOCK_THREAD_CPUTIME_ID);
      worker.Sync();  // untimed: the next block starts with an empty queue
      auto t6 = Clock::now();
      mj_getState(worker_model.get(), d5.get(), before.data(), saltation::kWorkerStateBefore);
      mj_getState(worker_model.get(), d5.get(), after.data(), saltation::kWorkerStateAfter);
      auto t7 = Clock::now();
      t_worker += Seconds(t5 - t4);
      c_worker += c5 - c4;
      c_plain += c1 - c0;
      block_ratios.push_back(Seconds(t5 - t4) / Seconds(t1 - t0));
      t_capture += Seconds(t7 - t6);
      captures++;
      t_plain += Seconds(t1 - t0);
      t_lazy += Seconds(t2 - t1);
      t_eager += Seconds(t3 - t2);
      t_unfiltered += Seconds(t4 - t3);
    }
    // sustained: every step into the default queue, then the wait for the worker
    RunThroughput(plain.get(), d1.get(), throughput, worker_model.get(), d5.get(), steps, sustained);
  }
  state.counters["nv"] = plain->nv;
  state.counters["steps"] = steps;
  state.counters["plain_us_per_step"] = 1e6 * t_plain / (steps * static_cast<double>(state.iterations()));
  state.counters["ratio_on_demand_to_plain"] = t_lazy / t_plain;
  state.counters["ratio_unfiltered_to_plain"] = t_unfiltered / t_plain;
  state.counters["guard_steps_skipped"] = static_cast<double>(lazy.guard_solves_skipped()) / std::max(1L, lazy.guard_steps());
  if (hook) state.counters["ratio_eager_to_plain"] = t_eager / t_plain;
  state.counters["ratio_worker_step_to_plain"] = t_worker / t_plain;
  state.counters["ratio_worker_step_median_to_plain"] = Median(block_ratios);
  state.counters["ratio_worker_step_cpu_to_plain"] = c_worker / c_plain;
  state.counters["ratio_worker_throughput_to_plain"] = sustained.worker_s / sustained.plain_s;
  state.counters["ratio_worker_thread_cpu_to_plain"] = sustained.worker_cpu_s / sustained.plain_cpu_s;
  state.counters["ratio_capture_to_plain"] = t_capture / (t_plain / steps * static_cast<double>(captures) / state.iterations());
  if (FirstDifference(lazy.events(), worker.events()) >= 0 || FirstDifference(lazy.events(), throughput.events()) >= 0) {
    state.SkipWithError("the worker hook's events differ from the hook's");
  }
  state.counters["events"] = static_cast<double>(lazy.events().size());
}

// MuJoCo's 22 humanoids (nv 594) falling onto the floor and onto each other, 1 simulated second
// (200 steps) from qpos0: hook.Step (Ξ on demand) and the same hook with the worker thread
// against plain mj_step, in blocks of 10 steps (plain, worker — queue of 16, emptied untimed after
// the block —, synchronous hook), with the physics compared bit for bit after every step; counts
// the events by kind, the most contacts of each run (the hooked model's gaps are widened:
// near-contacts are listed too) and MuJoCo's contact / constraint buffer warnings of every run and
// of the hook's own workspaces; the worker's events are the synchronous hook's; then the worker
// hook's sustained rate (default queue, Step + Sync over the second, wall and CPU time).
void TwentyTwoHumanoids(benchmark::State& state) {
  saltation::ModelPtr plain = LoadNamed("22_humanoids"), hooked = LoadNamed("22_humanoids"),
                      worker_model = LoadNamed("22_humanoids");
  saltation::HookOptions options;
  options.xi_on_demand = true;
  saltation::Hook hook(hooked.get(), options);
  saltation::HookOptions worker_options = options;
  worker_options.worker_thread = true;
  worker_options.worker_queue = 16;
  saltation::Hook worker(worker_model.get(), worker_options);
  saltation::HookOptions throughput_options = options;
  throughput_options.worker_thread = true;
  saltation::Hook throughput(worker_model.get(), throughput_options);
  saltation::DataPtr d1(mj_makeData(plain.get())), d2(mj_makeData(hooked.get())), d3(mj_makeData(worker_model.get()));
  const int steps = static_cast<int>(std::lround(1.0 / plain->opt.timestep));
  double t_plain = 0, t_hook = 0, t_worker = 0, c_plain = 0, c_worker = 0;  // (c_: the stepping thread's CPU time)
  std::vector<double> block_ratios;  // each block's worker Step time over its plain mj_step time
  Throughput sustained;
  int max_plain = 0, max_hooked = 0, differing_steps = 0, worker_differing_steps = 0, buffer_warnings = 0;
  std::vector<std::vector<mjtNum>> reference(10, std::vector<mjtNum>(plain->nq + plain->nv));  // the block's plain qpos, qvel
  auto differs = [&](const mjData* d, int j) {
    return std::memcmp(reference[j].data(), d->qpos, sizeof(mjtNum) * plain->nq) != 0 ||
           std::memcmp(reference[j].data() + plain->nq, d->qvel, sizeof(mjtNum) * plain->nv) != 0;
  };
  saltation::TakeMujocoWarnings();
  for (auto _ : state) {
    mj_resetData(plain.get(), d1.get());
    mj_resetData(hooked.get(), d2.get());
    mj_resetData(worker_model.get(), d3.get());
    hook.Reset(d2.get());
    worker.Reset(d3.get());
    // per block of 10 steps: plain mj_step, the worker hook's Step (its queue then emptied, untimed)
    // and the synchronous hook, each step compared with the plain one bit for bit (untimed)
    for (int k = 0; k < steps; k += 10) {
      const int block = std::min(10, steps - k);
      double block_plain = 0, block_worker = 0;
      for (int j = 0; j < block; j++) {
        const double c0 = CpuSeconds(CLOCK_THREAD_CPUTIME_ID);
        auto t0 = Clock::now();
        mj_step(plain.get(), d1.get());
        block_plain += Seconds(Clock::now() - t0);
        c_plain += CpuSeconds(CLOCK_THREAD_CPUTIME_ID) - c0;
        std::memcpy(reference[j].data(), d1->qpos, sizeof(mjtNum) * plain->nq);
        std::memcpy(reference[j].data() + plain->nq, d1->qvel, sizeof(mjtNum) * plain->nv);
        max_plain = std::max(max_plain, d1->ncon);
      }
      for (int j = 0; j < block; j++) {
        const double c0 = CpuSeconds(CLOCK_THREAD_CPUTIME_ID);
        auto t0 = Clock::now();
        worker.Step(d3.get());
        block_worker += Seconds(Clock::now() - t0);
        c_worker += CpuSeconds(CLOCK_THREAD_CPUTIME_ID) - c0;
        worker_differing_steps += differs(d3.get(), j);
      }
      worker.Sync();
      for (int j = 0; j < block; j++) {
        auto t0 = Clock::now();
        hook.Step(d2.get());
        t_hook += Seconds(Clock::now() - t0);
        max_hooked = std::max(max_hooked, d2->ncon);
        differing_steps += differs(d2.get(), j);
      }
      t_plain += block_plain;
      t_worker += block_worker;
      block_ratios.push_back(block_worker / block_plain);
    }
    RunThroughput(plain.get(), d1.get(), throughput, worker_model.get(), d3.get(), steps, sustained);
  }
  for (mjData* d : {d1.get(), d2.get(), d3.get()}) {
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
  state.counters["ratio_worker_step_to_plain"] = t_worker / t_plain;
  state.counters["ratio_worker_step_median_to_plain"] = Median(block_ratios);
  state.counters["ratio_worker_step_cpu_to_plain"] = c_worker / c_plain;
  state.counters["ratio_worker_throughput_to_plain"] = sustained.worker_s / sustained.plain_s;
  state.counters["ratio_worker_thread_cpu_to_plain"] = sustained.worker_cpu_s / sustained.plain_cpu_s;
  state.counters["max_ncon_plain"] = max_plain;
  state.counters["max_ncon_hooked"] = max_hooked;
  state.counters["differing_steps"] = differing_steps;
  state.counters["worker_differing_steps"] = worker_differing_steps;
  state.counters["buffer_warnings"] = buffer_warnings;
  const long first = FirstDifference(hook.events(), worker.events());
  if (first >= 0) state.SkipWithError(("the worker hook's events differ from the hook's at record " + std::to_string(first)).c_str());
  if (FirstDifference(hook.events(), throughput.events()) >= 0) state.SkipWithError("the sustained worker run's events differ from the hook's");
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
