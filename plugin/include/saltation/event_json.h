// JSON form of a rigid event (one line of a JSON Lines log).
//
// Fields: time, kind, geom1, geom2 (names or "#id"), body1, body2 (their bodies), point (the contact point, world), restitution (the event's own value,
// RigidEvent::restitution, not the model's at write time), transversality, transversality_rel,
// grazing (transversality_rel < grazing threshold), f_minus, f_plus, grad_g, dt_dx (vectors,
// ndx), xi and dreset (row-major nested arrays, (ndx × ndx), layout (dq, dv, act)), xi_norm
// (spectral), bracket ([lo, hi] s), rank_after, mode_before and mode_after (contact labels),
// released (contact labels), and for touchdowns the impact: candidates, impulse_set,
// kinetic_energy_minus/plus.
#ifndef SALTATION_EVENT_JSON_H_
#define SALTATION_EVENT_JSON_H_

#include <string>

#include "saltation/hook.h"
#include "saltation/rigid_simulator.h"

namespace saltation {

// One-line JSON object (no trailing newline). Non-finite numbers are written as null.
std::string EventToJson(const Model& model, const RigidEvent& event, double grazing_threshold);

// One record of the engine hook's event stream: the fields above for events with Ξ (kind as the
// hook names it: touchdown, graze, liftoff, slip), plus proxy (a kinematic release); for the
// other kinds time, kind, geom1, geom2 and their own fields — near_miss: min_gap; simultaneous:
// group, size, order_spread, composite_first, composite_reverse; zeno: accumulation_time, ratio;
// restitution: restitution, normal_velocity_minus, normal_velocity_plus; chatter: nothing more.
std::string HookEventToJson(const Model& model, const HookEvent& event);

// CSV header and row of the hook's event summary (no trailing newline):
// time,kind,geom1,geom2,restitution,transversality,transversality_rel,xi_norm,grazing,detail
std::string HookEventCsvHeader();
// The CSV's detail column and the CLI's flags: a kind's own fields as key=value (near_miss:
// min_gap; simultaneous: size, order_spread; zeno: accumulation_time, ratio; restitution:
// "measured" e), then "proxy" for a kinematic release; empty for the others.
std::string EventDetail(const HookEvent& event);
std::string HookEventToCsv(const Model& model, const HookEvent& event);

}  // namespace saltation

#endif  // SALTATION_EVENT_JSON_H_
