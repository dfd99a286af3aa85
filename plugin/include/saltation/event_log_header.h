// The first record of a JSON Lines event log: what the records after it are about, so a log
// describes itself (docs/log-format.md).
//
//   {"kind":"header","schema":"saltation.events/2","saltation_version":…,"mujoco_version":…,
//    "source":"record"|"rigid"|"plugin","model":…,"model_name":…,"nq":…,"nv":…,"na":…,"nu":…,
//    "ndx":…,"timestep":…,"integrator":…,"state_labels":[…],"state_units":[…],"units":{…},
//    "options":{…}}
//
// state_labels are StateLabels (tangent.h), the rows and columns of every Ξ, DΔ and composite in
// the records, 2nv + na of them; state_units their units (q: m or rad, v: m/s or rad/s, act:
// "act", the actuator's own). units gives the unit of every record field. options are the
// options in effect (defaults resolved: the detection margin, the near-miss distance).
#ifndef SALTATION_EVENT_LOG_HEADER_H_
#define SALTATION_EVENT_LOG_HEADER_H_

#include <mujoco/mujoco.h>

#include <string>
#include <vector>

#include "saltation/hook.h"
#include "saltation/rigid_simulator.h"

namespace saltation {

// the schema this library writes; a reader accepts logs of this schema only
inline constexpr const char* kEventLogSchema = "saltation.events/2";

// The header of a log of the engine hook's records (no trailing newline). model: the model's
// path as the user gave it ("" when unknown); source: what wrote the log ("record", "plugin").
std::string EventLogHeader(const Hook& hook, const std::string& model, const std::string& source = "record");

// The header of a log of the rigid simulator's events (saltation rigid --out).
std::string EventLogHeader(const Model& model, const SimulatorOptions& options, double grazing_threshold,
                           const std::string& model_path);

// the unit of each tangent coordinate, parallel to StateLabels(m)
std::vector<std::string> StateUnits(const mjModel* m);

// MuJoCo's name of the model's integrator: Euler, RK4, implicit, implicitfast
const char* IntegratorName(int integrator);

}  // namespace saltation

#endif  // SALTATION_EVENT_LOG_HEADER_H_
