// The fixed tax: constructing a hook (copy of the model with widened margins, the rigid model, its
// workspaces) and the heap it holds.
//   Construct/<model>  ms per Hook construction (mean over the iterations); extra_mib: heap in use
//                      (glibc mallinfo2) after constructing a hook and taking its first Step, minus
//                      before, with the user's own mjData made before (not counted); peak_extra_mib:
//                      the most of it sampled after each of the following steps
//                      (1 s of simulation, events only, Ξ on demand); resident_extra_mib: the
//                      growth of the process's resident memory over construction and first Step
//                      (the heap counts mjData arenas whole; pages never touched are not resident)
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <memory>

#include "bench_util.h"

namespace bench {
namespace {

void Construct(benchmark::State& state, const std::string& name) {
  saltation::ModelPtr m = LoadNamed(name);
  double t = 0;
  for (auto _ : state) {
    auto t0 = Clock::now();
    auto hook = std::make_unique<saltation::Hook>(m.get());
    benchmark::DoNotOptimize(hook.get());
    auto t1 = Clock::now();
    t += Seconds(t1 - t0);
  }
  saltation::DataPtr d(mj_makeData(m.get()));
  ResetToStart(m.get(), d.get());
  const double before = HeapInUse(), resident_before = Resident();
  saltation::HookOptions options;
  options.xi_on_demand = true;
  double extra = 0, peak = 0, resident = 0;
  {
    saltation::Hook hook(m.get(), options);
    hook.Step(d.get());
    extra = HeapInUse() - before;
    resident = Resident() - resident_before;
    peak = extra;
    const int steps = static_cast<int>(std::lround(Pick(1, 0) / m->opt.timestep));
    for (int k = 0; k < steps; k++) {
      hook.Step(d.get());
      peak = std::max(peak, HeapInUse() - before);
    }
  }
  state.counters["construct_ms"] = 1e3 * t / state.iterations();
  state.counters["extra_mib"] = extra / (1024.0 * 1024.0);
  state.counters["peak_extra_mib"] = peak / (1024.0 * 1024.0);
  state.counters["resident_extra_mib"] = resident / (1024.0 * 1024.0);
}

}  // namespace

void RegisterConstruct() {
  for (const char* name : {"humanoid", "balls1", "humanoid100"}) {
    const std::string n = name;
    benchmark::RegisterBenchmark(("Construct/" + n).c_str(), [=](benchmark::State& s) { Construct(s, n); })
        ->Unit(benchmark::kMillisecond)
        ->Iterations(Pick(10, 2));
  }
}

}  // namespace bench
