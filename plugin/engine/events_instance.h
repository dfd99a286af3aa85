// One `saltation.events` instance on one mjData: follows the data's steps (step_follower.h),
// publishes the sensor, appends the JSON Lines log, keeps the recent markers.
//
// Sensor output (kSensorSize values, the first four fixed):
//   [0] events so far: records with Ξ (touchdown, liftoff, slip, graze) since the data's reset
//   [1] time of the last of them (s; 0 before the first)
//   [2] ‖Ξ‖₂ of the last of them
//   [3] its unit-free grazing measure transversality_rel (guards.h: 0 grazing … 1 head-on)
//   [4] 1 if it was grazing (transversality below the `grazing` threshold), else 0
//   [5] contacts in the rigid model's active mode now
//   [6] other records so far (near miss, simultaneous, Zeno, chatter, measured restitution)
//   [7] discontinuities: states that did not follow from the last one by a step (edits, jumps)
//   [8] log10 ‖Φ_rigid‖_F (config propagation rigid or both; 0 otherwise)
//   [9] log10 ‖Φ_compliant‖_F (propagation compliant or both; 0 otherwise)
//   [10] ‖Φ_rigid − Φ_compliant‖_F / ‖Φ_compliant‖_F (propagation both; 0 otherwise)
// Log: every record, one whole JSON line each (event_json.h), appended with one write(2) as the
// record is found. Reads: the user's mjData; writes: its sensordata (this instance's sensors).
#ifndef SALTATION_PLUGIN_ENGINE_EVENTS_INSTANCE_H_
#define SALTATION_PLUGIN_ENGINE_EVENTS_INSTANCE_H_

#include <mujoco/mujoco.h>

#include <memory>
#include <string>
#include <vector>

#include "plugin_config.h"
#include "saltation/scene_markers.h"
#include "step_follower.h"

namespace saltation {

inline constexpr int kSensorSize = 11;

class EventsInstance {
 public:
  // Parses the instance's config (ConfigError) and opens the log (append).
  EventsInstance(const mjModel* m, int instance);
  ~EventsInstance();
  EventsInstance(const EventsInstance&) = delete;
  EventsInstance& operator=(const EventsInstance&) = delete;

  void Compute(const mjModel* m, mjData* d, int instance);
  void Visualize(const mjModel* m, const mjData* d, mjvScene* scn) const;
  // mj_resetData: counts start again from the next evaluation
  void Reset();
  // mj_copyData into this data: the next evaluation restarts (no events across), counts kept
  void Restart();

 private:
  void OnEvent(const HookEvent& ev);
  void WriteLog(const std::string& line);

  PluginConfig config_;
  std::unique_ptr<StepFollower> follower_;  // made at the first Compute
  int log_fd_ = -1;
  bool log_failed_ = false;
  long with_xi_ = 0, others_ = 0;
  double last_time_ = 0, last_xi_norm_ = 0, last_transversality_ = 0, last_grazing_ = 0;
  std::vector<EventMarker> markers_;  // recent, in time order (bounded)
};

}  // namespace saltation

#endif  // SALTATION_PLUGIN_ENGINE_EVENTS_INSTANCE_H_
