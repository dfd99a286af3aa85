// What `saltation record` does with Ξ at every event (eager, the default), over 1 s of simulated
// time, against MuJoCo alone over the same steps from the same state (issue 15's "record
// humanoid100, 1 s, eager Ξ ≤ 20× MuJoCo alone").
//   RecordEager/<model>  counters ratio_eager_to_plain (the hook's Step with Ξ at every event over
//                        the run / plain mj_step over the same run, both timed in the iteration),
//                        eager_s, plain_s, events (records with Ξ), peak_extra_mib (the most heap
//                        in use, sampled every 10 steps, beyond what was in use before the hook
//                        and its run's mjData were made: the hook and one mjData);
//                        cpu_ratio_eager_to_plain, eager_cpu_s, plain_cpu_s: the same in the
//                        thread's CPU time (what a loaded machine's descheduling does not inflate)
// The writing of the log is left out: it is the same JSON whatever the engine costs.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <ctime>

#include "bench_util.h"

namespace bench {
namespace {

void RecordEager(benchmark::State& state, const std::string& name, double seconds) {
  saltation::ModelPtr plain = LoadNamed(name), hooked = LoadNamed(name);
  double t_eager = 0, t_plain = 0, cpu_eager = 0, cpu_plain = 0, peak = 0, events = 0;
  for (auto _ : state) {
    saltation::DataPtr dp(mj_makeData(plain.get()));
    ResetToStart(plain.get(), dp.get());
    const double t_end = dp->time + seconds;
    auto t0 = Clock::now();
    double c0 = ThreadCpuSeconds();
    while (dp->time < t_end) mj_step(plain.get(), dp.get());
    t_plain += Seconds(Clock::now() - t0);
    cpu_plain += ThreadCpuSeconds() - c0;

    const double before = HeapInUse();
    saltation::HookOptions options;
    options.keep_events = false;  // as `record` does: its on_event writes each record
    saltation::Hook hook(hooked.get(), options);  // before mj_makeData, as `record` does
    hook.on_event = [&](const saltation::HookEvent& ev) { events += ev.has_xi ? 1 : 0; };
    saltation::DataPtr d(mj_makeData(hooked.get()));
    ResetToStart(hooked.get(), d.get());
    int step = 0;
    t0 = Clock::now();
    c0 = ThreadCpuSeconds();
    while (d->time < t_end) {
      hook.Step(d.get());
      if (++step % 10 == 0) {
        auto t1 = Clock::now();
        const double c1 = ThreadCpuSeconds();
        peak = std::max(peak, HeapInUse() - before);
        t0 += Clock::now() - t1;  // the sampling is not the hook's time
        c0 += ThreadCpuSeconds() - c1;
      }
    }
    t_eager += Seconds(Clock::now() - t0);
    cpu_eager += ThreadCpuSeconds() - c0;
  }
  const double n = static_cast<double>(state.iterations());
  state.counters["ratio_eager_to_plain"] = t_plain > 0 ? t_eager / t_plain : NAN;
  state.counters["cpu_ratio_eager_to_plain"] = cpu_plain > 0 ? cpu_eager / cpu_plain : NAN;
  state.counters["eager_cpu_s"] = cpu_eager / n;
  state.counters["plain_cpu_s"] = cpu_plain / n;
  state.counters["eager_s"] = t_eager / n;
  state.counters["plain_s"] = t_plain / n;
  state.counters["events"] = events / n;
  state.counters["peak_extra_mib"] = peak / (1024.0 * 1024.0);
}

}  // namespace

void RegisterRecord() {
  for (const char* name : {"humanoid100", "humanoid"}) {
    const double seconds = Quick() ? 0.1 : 1.0;
    benchmark::RegisterBenchmark((std::string("RecordEager/") + name).c_str(),
                                 [=](benchmark::State& s) { RecordEager(s, name, seconds); })
        ->Unit(benchmark::kMillisecond)
        ->Iterations(1);
  }
}

}  // namespace bench
