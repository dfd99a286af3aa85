// JSON form of a rigid event (one line of a JSON Lines log).
//
// Fields: time, kind, geom1, geom2 (names or "#id"), restitution, transversality,
// transversality_rel, grazing (transversality_rel < grazing threshold), f_minus, f_plus, grad_g,
// dt_dx (vectors, ndx), xi and dreset (row-major nested arrays, (ndx × ndx), layout
// (dq, dv, act)), xi_norm (spectral), bracket ([lo, hi] s), rank_after, mode_before and
// mode_after (contact labels), released (contact labels), and for touchdowns the impact:
// candidates, impulse_set, kinetic_energy_minus/plus.
#ifndef SALTATION_EVENT_JSON_H_
#define SALTATION_EVENT_JSON_H_

#include <string>

#include "saltation/rigid_simulator.h"

namespace saltation {

// One-line JSON object (no trailing newline). Non-finite numbers are written as null.
std::string EventToJson(const Model& model, const RigidEvent& event, double grazing_threshold);

}  // namespace saltation

#endif  // SALTATION_EVENT_JSON_H_
