// Pass 1 of CompareAtTau: the first touchdown, MuJoCo's effective restitution of its pair, the
// next touchdown; and the window chosen from them.
#include <algorithm>

#include "compare_internal.h"
#include "saltation/errors.h"

namespace saltation::compare_internal {
namespace {

// the same geom pair, whatever the order
bool SameUnorderedPair(const ContactId& a, const ContactId& b) {
  return std::min(a.geom1, a.geom2) == std::min(b.geom1, b.geom2) &&
         std::max(a.geom1, a.geom2) == std::max(b.geom1, b.geom2);
}

// what pass 1 has read of the hook's events so far
struct Scan {
  size_t processed = 0;   // events read
  int first_index = -1;   // the first touchdown (in the window, when given)
  bool have_e = false;    // its pair's effective restitution measured
};

// reads the events the hook added since the last call: the first touchdown, then its pair's
// measured restitution and the next touchdown (into row)
void ReadNewEvents(const std::vector<HookEvent>& events, const CompareSettings& s, double dt, Scan& scan,
                   CompareRow& row) {
  for (; scan.processed < events.size(); scan.processed++) {
    const HookEvent& ev = events[scan.processed];
    if (scan.first_index < 0) {
      if (IsTouchdown(ev) && (!s.window_given || (ev.time >= s.window_t0 && ev.time <= s.window_t1))) {
        scan.first_index = static_cast<int>(scan.processed);
      }
      continue;
    }
    const HookEvent& f = events[scan.first_index];
    if (ev.kind == EventKind::kRestitution && !scan.have_e && SameUnorderedPair(ev.contact, f.contact)) {
      row.restitution = ev.restitution;
      row.restitution_measured = true;
      scan.have_e = true;
    }
    if (IsTouchdown(ev) && row.t_next < 0 && ev.time > f.time + 10 * dt) row.t_next = ev.time;
  }
}

// whether pass 1 has seen enough at time t: the touchdown's restitution and the window after it,
// or the end of the search
bool Seen(const std::vector<HookEvent>& events, const CompareSettings& s, const State& x_start, double tau,
          double dt, double t, const Scan& scan, const CompareRow& row) {
  if (scan.first_index < 0) return t > (s.window_given ? s.window_t1 : x_start.time + s.search) + 2 * dt;
  const double t_touch = events[scan.first_index].time;
  const double horizon = s.window_given ? s.window_t1 : t_touch + std::max(0.1, 20 * tau);
  const bool window_seen = row.t_next >= 0 || t > horizon + 3 * dt;
  if (scan.have_e && window_seen) return true;
  return t > std::max(horizon, t_touch + 0.2) + 10 * dt;  // the hook measures within 0.2 s
}

ConfigError NoTouchdown(const std::vector<HookEvent>& events, const CompareSettings& s, double tau) {
  std::string kinds;
  for (const HookEvent& ev : events) {
    if (ev.kind != EventKind::kRestitution) kinds += (kinds.empty() ? "" : ", ") + std::string(EventKindName(ev.kind)) + Fmt(" at %.4f s", ev.time);
  }
  const std::string where = s.window_given
                                ? "in the window [" + Fmt("%g", s.window_t0) + ", " + Fmt("%g", s.window_t1) + "] s"
                                : "within " + Fmt("%g", s.search) + " s of the start";
  return ConfigError("no touchdown " + where + " (tau = " + Fmt("%g", tau) + " s): nothing to compare" +
                     (kinds.empty() ? " (no contact events at all)" : " (events seen: " + kinds + ")"));
}

}  // namespace

HookEvent FindFirstTouchdown(const mjModel* base, const CompareSettings& s, const State& x_start, double tau,
                             CompareRow& row) {
  ModelPtr m = StiffenedModel(base, s, tau);
  row.timestep = m->opt.timestep;
  row.dampratio = m->ngeom ? m->geom_solref[1] : 0;
  HookOptions options;
  options.restitution = RestitutionSource::kAuto;
  Hook hook(m.get(), options);
  DataPtr d(mj_makeData(m.get()));
  StateToData(m.get(), x_start, d.get());
  mj_forward(m.get(), d.get());
  const double dt = m->opt.timestep;
  Scan scan;
  do {
    try {
      hook.Step(d.get());
    } catch (const Error& e) {
      if (scan.first_index < 0) throw;
      // the touchdown is known: keep what was measured up to here
      AddFlag(row, "pass 1 stopped at t = " + Fmt("%.4g", d->time) + " s, where the hook failed: " + e.what());
      break;
    }
    CheckStable(d.get(), tau);
    ReadNewEvents(hook.events(), s, dt, scan, row);
  } while (!Seen(hook.events(), s, x_start, tau, dt, d->time, scan, row));
  if (scan.first_index < 0) throw NoTouchdown(hook.events(), s, tau);
  const HookEvent first = hook.events()[scan.first_index];
  row.t_touch = first.time;
  row.contact = ContactLabel(hook.rigid_model(), first.contact);
  if (!scan.have_e) {
    const double e = hook.EffectiveRestitution(first.contact.geom1, first.contact.geom2);
    row.restitution = e >= 0 ? e : hook.restitution().Pair(first.contact.geom1, first.contact.geom2);
    row.restitution_measured = e >= 0;
  }
  if (!row.restitution_measured) AddFlag(row, "effective restitution not measured (the model's value is used)");
  return first;
}

void ChooseWindow(const CompareSettings& s, const State& x_start, CompareRow& row) {
  if (s.window_given) {
    row.t0 = s.window_t0;
    row.t1 = s.window_t1;
    return;
  }
  row.t0 = std::max(x_start.time, row.t_touch - kCompareLeadTime);
  row.t1 = row.t_touch + std::max(0.1, 20 * row.tau);
  if (row.t_next > 0) row.t1 = std::min(row.t1, row.t_next - 0.1 * (row.t_next - row.t_touch));
}

}  // namespace saltation::compare_internal
