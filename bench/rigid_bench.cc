// The exact rigid reference (RigidSimulator, the `rigid` command) on the piles of bench_families.h:
// n free bodies in four layers landing on one another, run as `rigid` runs (RunRigid) for 0.3 s
// (quick: 25 bodies, 0.2 s); the box pile (boxes only, 16 bodies) for 0.5 s, not in the quick run. Each
// crossing is located along its own island's mode (SimulatorOptions::locate_on_islands).
//   RigidPile/<n>   counters run_s (wall time of the run), events, ms_per_event, nv,
//                   locate_contacts_per_sample (contacts integrated per guard sample: the island's
//                   mode, not the whole pile's)
//   RigidBoxPile/<n> the same counters on BoxPile(n)
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "bench_families.h"
#include "bench_util.h"

namespace bench {
namespace {

void RigidPile(benchmark::State& state, const std::string& xml, double duration) {
  saltation::ModelPtr m = LoadXmlText(xml);
  saltation::Model model(m.get());
  saltation::DataPtr d(mj_makeData(m.get()));
  const saltation::State x0 = saltation::StateFromData(m.get(), d.get());
  double seconds = 0;
  int events = 0;
  saltation::RigidWork work;
  for (auto _ : state) {
    saltation::RigidSimulator sim(model);
    saltation::HybridState s = sim.Initialize(x0);
    events = 0;
    const auto t0 = Clock::now();
    try {
      saltation::RunRigid(sim, s, duration, [&](const saltation::RigidEvent&) { events++; });
    } catch (const std::exception& e) {  // the reference refuses a run it cannot resolve: say so
      state.SkipWithError(("the rigid reference stopped: " + std::string(e.what())).c_str());
      return;
    }
    seconds += Seconds(Clock::now() - t0);
    work = sim.work();
  }
  const double runs = static_cast<double>(state.iterations());
  state.counters["nv"] = m->nv;
  state.counters["run_s"] = seconds / runs;
  state.counters["events"] = events;
  state.counters["ms_per_event"] = events ? 1e3 * seconds / runs / events : 0.0;
  state.counters["locate_contacts_per_sample"] =
      work.locate_samples ? static_cast<double>(work.locate_contacts) / static_cast<double>(work.locate_samples) : 0.0;
}

}  // namespace

void RegisterRigid() {
  const std::vector<int> sizes = Quick() ? std::vector<int>{25} : std::vector<int>{25, 50, 100};
  const double duration = Quick() ? 0.2 : 0.3;
  for (int n : sizes) {
    benchmark::RegisterBenchmark(("RigidPile/" + std::to_string(n)).c_str(),
                                 [=](benchmark::State& s) { RigidPile(s, families::Pile(n), duration); })
        ->Unit(benchmark::kMillisecond)
        ->Iterations(1);
  }
  // the box pile in the full run only (its CPU time, minutes on a loaded machine, is beyond the
  // quick run's budget)
  if (!Quick()) {
    const int boxes = 16;
    benchmark::RegisterBenchmark(("RigidBoxPile/" + std::to_string(boxes)).c_str(),
                                 [=](benchmark::State& s) { RigidPile(s, families::BoxPile(boxes), 0.5); })
        ->Unit(benchmark::kMillisecond)
        ->Iterations(1);
  }
}

}  // namespace bench
