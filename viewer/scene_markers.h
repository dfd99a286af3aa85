// The viewer's event markers: the library's (saltation/scene_markers.h) drawn from the viewer's
// event records, and the same colours for the ImGui tables and plots.
#ifndef SALTATION_VIEWER_SCENE_MARKERS_H_
#define SALTATION_VIEWER_SCENE_MARKERS_H_

#include <imgui.h>
#include <mujoco/mujoco.h>

#include <vector>

#include "saltation/scene_markers.h"
#include "simulation.h"

namespace saltation_viewer {

using saltation::EventColor;
ImU32 EventColorU32(saltation::EventKind kind, bool grazing, int alpha = 255);

// Adds the markers of events no older than `fade` seconds at `time` (and the selected one,
// always, with a white halo). Stops quietly when the scene is full.
void AddEventMarkers(const mjModel* m, double time, const std::deque<EventRecord>& events,
                     int selected, double fade, mjvScene* scn);

}  // namespace saltation_viewer

#endif  // SALTATION_VIEWER_SCENE_MARKERS_H_
