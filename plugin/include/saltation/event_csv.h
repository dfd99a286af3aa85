// CSV form of the engine hook's event stream: one row per record, one column per field and per
// flag, an empty cell where a field does not apply to the record's kind (docs/log-format.md).
//
//   time,kind,group,geom1,geom2,restitution,transversality,transversality_rel,xi_norm,grazing,
//   proxy,input_jump,min_gap,size,order_spread,accumulation_time,ratio,normal_velocity_minus,
//   normal_velocity_plus,dg_dt,dreset_dt_norm,error
//
// group: the simultaneous group's id (its record and its members); restitution: as the JSON record,
// every event with Ξ (the value the impact used; a release's pair's value at the event) and
// restitution records (the measured e);
// transversality, transversality_rel, xi_norm: events with Ξ; grazing, proxy, input_jump:
// true/false on every row, the JSON record's flag (absent there: false); min_gap: near_miss; size, order_spread: simultaneous; accumulation_time, ratio: zeno;
// normal_velocity_minus/plus: restitution; dg_dt, dreset_dt_norm: events with Ξ on a model with
// Options::mocap_motion (∂g/∂t and ‖D_tΔ‖ of a moving surface; empty otherwise); error: empty here, the message of the CLI's failure
// row (the last, kind "failure"). Numbers as in the JSON log (shortest, bit for bit); a
// non-finite number is an empty cell too. Geom names are quoted when they hold a comma or a quote.
#ifndef SALTATION_EVENT_CSV_H_
#define SALTATION_EVENT_CSV_H_

#include <string>

#include "saltation/hook_event.h"
#include "saltation/model.h"

namespace saltation {

// The header row (no trailing newline).
std::string HookEventCsvHeader();
// One row (no trailing newline). ConfigError for an event whose Ξ is still pending.
std::string HookEventToCsv(const Model& model, const HookEvent& event);

}  // namespace saltation

#endif  // SALTATION_EVENT_CSV_H_
