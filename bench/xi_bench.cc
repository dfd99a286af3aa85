// Ξ of one event in multiples of mj_forward at the same state (the forward of the same model,
// timed alongside in every iteration).
//   XiTouchdown/<model>  TouchdownEvent, complete (impact, DΔ with its configuration block, F⁻,
//                        F⁺, Ξ), of the first touchdown of the robot (humanoid, humanoid100: a
//                        contact of the humanoid's own tree; ballsN: any ball) found by the hook
//                        with Ξ on demand. Counters xi_us, forward_us, xi_in_forwards (wall
//                        clock), xi_cpu_us, forward_cpu_us, xi_cpu_in_forwards (the thread's CPU
//                        time: what a shared machine's load does not inflate), nv, and where:
//                        event_time, mode_contacts (before), island_dofs.
//   ResetJacobian/<model> DΔ of that touchdown's impact (ImpactResetJacobian) by its two methods side
//                        by side, interleaved in every iteration: ∂v⁺/∂q from the impact's equations
//                        (the default) and from the impact maps (the reference, the former default).
//                        Counters equations_in_forwards, impact_maps_in_forwards,
//                        impact_maps_over_equations, by_equations (1 when the default did not fall
//                        back), rows, rank.
//   Simultaneous/<model> Hook::CompleteXi of a simultaneous group (both orderings' composites)
//                        against the complete TouchdownEvent of one of its members at the
//                        member's own state, in this thread's CPU time (the machine is shared):
//                        ratio_simultaneous_to_touchdown, simultaneous_us, touchdown_us,
//                        simultaneous_in_forwards, group_size; on level_balls4 (independent
//                        members) and stool3 (one body's three feet).
#include <benchmark/benchmark.h>
#include <time.h>

#include "bench_families.h"
#include "bench_util.h"

namespace bench {
namespace {

bool InTreeOf(const mjModel* m, int geom, int root_body) {
  return geom >= 0 && m->body_rootid[m->geom_bodyid[geom]] == root_body;
}

// the first touchdown (with a pending or complete Ξ) of the body tree rooted at root_body (any
// tree when root_body < 0), stepping a hook with Ξ on demand for at most 5 s
bool FindTouchdown(const mjModel* m, int root_body, saltation::HookEvent* found,
                   saltation::RestitutionTable* restitution, saltation::DataPtr* at) {
  saltation::HookOptions options;
  options.xi_on_demand = true;
  saltation::Hook hook(m, options);
  saltation::DataPtr d(mj_makeData(m));
  ResetToStart(m, d.get());
  while (d->time < 5) {
    hook.Step(d.get());
    for (const saltation::HookEvent& ev : hook.events()) {
      if (ev.kind != saltation::EventKind::kTouchdown || !(ev.has_xi || ev.xi_pending)) continue;
      if (root_body >= 0 && !InTreeOf(m, ev.contact.geom1, root_body) && !InTreeOf(m, ev.contact.geom2, root_body)) {
        continue;
      }
      *found = ev;
      *restitution = hook.restitution();
      *at = std::move(d);
      return true;
    }
  }
  return false;
}

// the named model and its first touchdown (of the torso's tree where there is one): false, and
// the benchmark skipped with an error, when there is none
struct TouchdownCase {
  saltation::ModelPtr m;
  saltation::HookEvent event;
  saltation::RestitutionTable restitution;
  saltation::DataPtr d;
};
bool LoadTouchdown(benchmark::State& state, const std::string& name, TouchdownCase& c) {
  c.m = LoadNamed(name);
  const int torso = mj_name2id(c.m.get(), mjOBJ_BODY, "torso");
  if (FindTouchdown(c.m.get(), torso >= 0 ? c.m->body_rootid[torso] : -1, &c.event, &c.restitution, &c.d)) return true;
  state.SkipWithError("no touchdown");
  return false;
}

void XiTouchdown(benchmark::State& state, const std::string& name) {
  TouchdownCase c;
  if (!LoadTouchdown(state, name, c)) return;
  const saltation::ModelPtr& m = c.m;
  const saltation::HookEvent& event = c.event;
  const saltation::RestitutionTable& restitution = c.restitution;
  const saltation::DataPtr& d = c.d;
  saltation::Model model(m.get());
  saltation::Data data(model);
  const double tol = saltation::DefaultForceTolerance(m.get());
  double t_xi = 0, t_forward = 0, cpu_xi = 0, cpu_forward = 0, island_dofs = 0;
  for (auto _ : state) {
    auto t0 = Clock::now();
    const double c0 = ThreadCpuSeconds();
    const saltation::RigidEvent ev = saltation::TouchdownEvent(model, data, restitution, event.rigid.x_minus,
                                                               event.rigid.mode_before, event.contact, 1e-9, tol);
    benchmark::DoNotOptimize(ev.xi.correction.data());
    island_dofs = static_cast<double>(ev.island.dofs.size());
    auto t1 = Clock::now();
    const double c1 = ThreadCpuSeconds();
    for (int k = 0; k < 10; k++) mj_forward(m.get(), d.get());
    auto t2 = Clock::now();
    const double c2 = ThreadCpuSeconds();
    t_xi += Seconds(t1 - t0);
    t_forward += Seconds(t2 - t1) / 10;
    cpu_xi += c1 - c0;
    cpu_forward += (c2 - c1) / 10;
  }
  state.counters["nv"] = m->nv;
  state.counters["event_time"] = event.time;
  state.counters["mode_contacts"] = static_cast<double>(event.rigid.mode_before.contacts.size());
  state.counters["island_dofs"] = island_dofs;
  state.counters["xi_us"] = 1e6 * t_xi / state.iterations();
  state.counters["forward_us"] = 1e6 * t_forward / state.iterations();
  state.counters["xi_in_forwards"] = t_xi / t_forward;
  // the same in this thread's CPU time (what a loaded, shared machine does not inflate)
  state.counters["xi_cpu_us"] = 1e6 * cpu_xi / state.iterations();
  state.counters["forward_cpu_us"] = 1e6 * cpu_forward / state.iterations();
  state.counters["xi_cpu_in_forwards"] = cpu_xi / cpu_forward;
}

void ResetJacobianMethods(benchmark::State& state, const std::string& name) {
  TouchdownCase c;
  if (!LoadTouchdown(state, name, c)) return;
  const saltation::ModelPtr& m = c.m;
  const saltation::HookEvent& event = c.event;
  const saltation::RestitutionTable& restitution = c.restitution;
  const saltation::DataPtr& d = c.d;
  saltation::Model model(m.get());
  saltation::Data data(model);
  const saltation::RigidEvent ev = saltation::TouchdownEvent(model, data, restitution, event.rigid.x_minus,
                                                             event.rigid.mode_before, event.contact, 1e-9,
                                                             saltation::DefaultForceTolerance(m.get()), false);
  const std::vector<saltation::ContactId> set = ev.impact.ImpulseSet();
  double t_eq = 0, t_maps = 0, t_forward = 0;
  bool by_equations = false;
  for (auto _ : state) {
    auto t0 = Clock::now();
    const saltation::ResetJacobian a = saltation::ImpactResetJacobian(model, data, restitution, ev.x_minus, set);
    benchmark::DoNotOptimize(a.dv_dq.data());
    auto t1 = Clock::now();
    const saltation::ResetJacobian b = saltation::ImpactResetJacobian(
        model, data, restitution, ev.x_minus, set, saltation::ConfigurationBlockMethod::kImpactMaps);
    benchmark::DoNotOptimize(b.dv_dq.data());
    auto t2 = Clock::now();
    for (int k = 0; k < 10; k++) mj_forward(m.get(), d.get());
    auto t3 = Clock::now();
    t_eq += Seconds(t1 - t0);
    t_maps += Seconds(t2 - t1);
    t_forward += Seconds(t3 - t2) / 10;
    by_equations = a.dv_dq_method == saltation::ConfigurationBlockMethod::kEquations;
  }
  state.counters["rows"] = ev.impact.nrow;
  state.counters["rank"] = ev.impact.rank;
  state.counters["by_equations"] = by_equations;
  state.counters["equations_in_forwards"] = t_eq / t_forward;
  state.counters["impact_maps_in_forwards"] = t_maps / t_forward;
  state.counters["impact_maps_over_equations"] = t_maps / t_eq;
}

void Simultaneous(benchmark::State& state, const std::string& name) {
  // stool3: a body on three sphere feet, level, its mass off-centre: one cluster of three members
  // whose orders differ (families::Stool(3), as tests/simultaneous_test.cc has it)
  saltation::ModelPtr m = name == "stool3" ? LoadXmlText(families::Stool(3)) : LoadNamed(name);
  saltation::HookOptions options;
  options.xi_on_demand = true;
  saltation::Hook hook(m.get(), options);
  saltation::DataPtr d(mj_makeData(m.get()));
  ResetToStart(m.get(), d.get());
  const saltation::HookEvent* sim = nullptr;
  const saltation::HookEvent* member = nullptr;
  while (!(sim && member) && d->time < 5) {
    hook.Step(d.get());
    sim = member = nullptr;
    for (const saltation::HookEvent& ev : hook.events()) {
      if (!sim && ev.kind == saltation::EventKind::kSimultaneous && ev.xi_pending) sim = &ev;
    }
    for (const saltation::HookEvent& ev : hook.events()) {
      if (sim && !member && ev.group == sim->group && ev.kind == saltation::EventKind::kTouchdown &&
          (ev.has_xi || ev.xi_pending)) {
        member = &ev;
      }
    }
  }
  if (!sim || !member) {
    state.SkipWithError("no simultaneous group with a touchdown member");
    return;
  }
  saltation::Model model(m.get());
  saltation::Data data(model);
  const double tol = saltation::DefaultForceTolerance(m.get());
  // in this thread's CPU time (the machine is shared: wall time counts the other processes' slices)
  double t_sim = 0, t_td = 0, t_forward = 0;
  for (auto _ : state) {
    saltation::HookEvent copy = *sim;
    const double t0 = ThreadCpuSeconds();
    hook.CompleteXi(copy);
    benchmark::DoNotOptimize(copy.composite_first.block.data());
    const double t1 = ThreadCpuSeconds();
    const saltation::RigidEvent ev = saltation::TouchdownEvent(model, data, hook.restitution(), member->rigid.x_minus,
                                                               member->rigid.mode_before, member->contact, 1e-9, tol);
    benchmark::DoNotOptimize(ev.xi.correction.data());
    const double t2 = ThreadCpuSeconds();
    for (int k = 0; k < 10; k++) mj_forward(m.get(), d.get());
    const double t3 = ThreadCpuSeconds();
    t_sim += t1 - t0;
    t_td += t2 - t1;
    t_forward += (t3 - t2) / 10;
  }
  state.counters["group_size"] = sim->group_size;
  state.counters["simultaneous_us"] = 1e6 * t_sim / state.iterations();
  state.counters["touchdown_us"] = 1e6 * t_td / state.iterations();
  state.counters["simultaneous_in_forwards"] = t_sim / t_forward;
  state.counters["ratio_simultaneous_to_touchdown"] = t_sim / t_td;
}

}  // namespace

void RegisterXi() {
  for (const char* name : {"humanoid", "humanoid100", "balls1", "balls5", "balls20", "balls50"}) {
    const std::string n = name;
    benchmark::RegisterBenchmark(("XiTouchdown/" + n).c_str(), [=](benchmark::State& s) { XiTouchdown(s, n); })
        ->Unit(benchmark::kMillisecond)
        ->Iterations(Pick(n == "humanoid100" || n == "balls50" ? 5 : 20, 2));
  }
  for (const char* name : {"humanoid", "balls1"}) {
    const std::string n = name;
    benchmark::RegisterBenchmark(("ResetJacobian/" + n).c_str(), [=](benchmark::State& s) { ResetJacobianMethods(s, n); })
        ->Unit(benchmark::kMillisecond)
        ->Iterations(Pick(20, 2));
  }
  // four balls: four independent members (one event each); stool3: three feet of one body (both
  // orders of all three)
  for (const char* name : {"level_balls4", "stool3"}) {
    const std::string n = name;
    benchmark::RegisterBenchmark(("Simultaneous/" + n).c_str(), [=](benchmark::State& s) { Simultaneous(s, n); })
        ->Unit(benchmark::kMillisecond)
        ->Iterations(Pick(200, 2));
  }
}

}  // namespace bench
