// Event markers in a MuJoCo scene: a sphere at each recent event's contact point, coloured by
// kind (grazing in a warning colour), sized by log ‖Ξ‖, fading over `fade` seconds of simulated
// time. One implementation for the viewer, the engine plugin's visualize callback and Python's
// mujoco.viewer helper.
//
// (events, time, scene) => scene->geoms appended (mjCAT_DECOR); stops quietly when the scene is
// full. Reads nothing else.
#ifndef SALTATION_SCENE_MARKERS_H_
#define SALTATION_SCENE_MARKERS_H_

#include <mujoco/mujoco.h>

#include <Eigen/Dense>
#include <vector>

#include "saltation/event_kind.h"
#include "saltation/hook_event.h"

namespace saltation {

// What a marker needs of an event.
struct EventMarker {
  EventKind kind = EventKind::kTouchdown;
  double time = 0;
  bool grazing = false;
  bool has_xi = false;
  double xi_norm = 0;  // ‖Ξ‖₂ (NaN: not known)
  Eigen::Vector3d point = Eigen::Vector3d::Zero();
};

// The marker of a hook event with its ‖Ξ‖₂ (computed by the caller: it costs an eigenvalue
// problem); a NaN point gives no marker (returns false).
bool MarkerOf(const HookEvent& event, double xi_norm, EventMarker& marker);

// RGB in [0, 1] of an event kind; grazing events take the warning colour whatever their kind.
void EventColor(EventKind kind, bool grazing, float rgb[3]);

// One sphere of the markers: where, how big, what colour.
struct MarkerGeom {
  Eigen::Vector3d pos = Eigen::Vector3d::Zero();
  double radius = 0;
  float rgba[4] = {1, 1, 1, 1};
  float emission = 0;
};

// The spheres AddEventMarkers draws (for hosts that write scene geoms themselves, e.g. Python's
// mujoco.viewer user scene).
std::vector<MarkerGeom> EventMarkerGeoms(const mjModel* m, double time, const std::vector<EventMarker>& events,
                                         int selected, double fade);

// Adds the markers of events (in time order) no older than `fade` seconds at `time`, more
// transparent as they age, and the `selected` one (index, −1 for none) always, with a white halo.
// The radius is a fraction of the model's mean size (m->stat.meansize).
void AddEventMarkers(const mjModel* m, double time, const std::vector<EventMarker>& events,
                     int selected, double fade, mjvScene* scn);

}  // namespace saltation

#endif  // SALTATION_SCENE_MARKERS_H_
