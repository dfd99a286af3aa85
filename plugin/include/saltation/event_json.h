// JSON form of an event (one line of a JSON Lines log; docs/log-format.md is the schema).
//
// Fields: time, kind, geom1, geom2 (names or "#id"), body1, body2 (their bodies), point (the
// contact point, world), restitution (the event's own value, RigidEvent::restitution, not the
// model's at write time), transversality, transversality_rel, grazing (transversality_rel <
// grazing threshold), f_minus, f_plus, grad_g, dt_dx (vectors, ndx), xi and dreset (matrices
// ndx × ndx, rows and columns in the layout (dq, dv, act) the header's state_labels name), xi_norm
// (spectral), bracket ([lo, hi] s), rank_after, mode_before and mode_after (contact labels),
// released (contact labels), group (the simultaneous group's id, on its members only), and for
// touchdowns the impact: candidates, impulse_set, kinetic_energy_minus/plus.
//
// Numbers are the shortest text that reads back bit for bit (non-finite: null). A matrix is an
// object (CompactMatrixJson) {"shape":[r,c],"base":B,"mask":M,"data":D}: B is "zero", "identity"
// or the name of another matrix field of the same record ("dreset" for xi); M is base64 of
// ⌈r·c/8⌉ bytes whose bit k (byte k/8, least significant bit first) is set where entry k (row-major)
// is not the base's (bitwise); D is base64 of those entries, row-major, as little-endian IEEE-754
// binary64. So the matrix decodes to the very doubles written (NaN, −0 included), and Ξ costs
// only the columns u∇gᵀ touches. event_log_reader.h and saltation.read_events decode it.
#ifndef SALTATION_EVENT_JSON_H_
#define SALTATION_EVENT_JSON_H_

#include <Eigen/Dense>
#include <string>

#include "saltation/event_csv.h"  // the CSV form, for the callers that found it here
#include "saltation/hook.h"
#include "saltation/rigid_simulator.h"

namespace saltation {

// One-line JSON object (no trailing newline). Non-finite numbers are written as null.
std::string EventToJson(const Model& model, const RigidEvent& event, double grazing_threshold);

// One record of the engine hook's event stream: the fields above for events with Ξ (kind as the
// hook names it: touchdown, graze, liftoff, slip), plus proxy (a kinematic release) and
// "input_jump":true on a release at an input jump (HookEvent::input_jump, absent otherwise); for the
// other kinds time, kind, geom1, geom2 and their own fields — near_miss: min_gap; simultaneous:
// group, size, order_spread, composite_first, composite_reverse (matrices); zeno:
// accumulation_time, ratio; restitution: restitution, normal_velocity_minus,
// normal_velocity_plus; chatter: nothing more. A record without Ξ (a graze whose Ξ is undefined:
// "xi": null) carries group, grazing, proxy and input_jump where they are set ("…":true; an absent
// flag is false): every flag the CSV row (event_csv.h) says true, the JSON says true.
std::string HookEventToJson(const Model& model, const HookEvent& event);

// The CLI's flags column: a kind's own fields as key=value (near_miss: min_gap; simultaneous:
// size, order_spread; zeno: accumulation_time, ratio; restitution: "measured" e), then "proxy"
// for a kinematic release and "input jump" for a release at an input jump; empty for the others.
std::string EventDetail(const HookEvent& event);

// A matrix in the compact form above, on the base (zero, identity or `reference`, named
// reference_name) that leaves the fewest entries to store.
std::string CompactMatrixJson(const Eigen::MatrixXd& A, const Eigen::MatrixXd* reference = nullptr,
                              const char* reference_name = nullptr);
// The same text as CompactMatrixJson(A.Dense()), read from A's block: a simultaneous group's
// composites (hook_event.h) are written without forming their n × n matrices.
std::string CompactMatrixJson(const IdentityExceptBlock& A);
// x as the shortest JSON number that reads back bit for bit; null when not finite.
std::string ShortestJsonNumber(double x);

}  // namespace saltation

#endif  // SALTATION_EVENT_JSON_H_
