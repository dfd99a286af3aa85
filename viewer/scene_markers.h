// Event markers in the 3D scene: a sphere at each recent event's contact point, coloured by kind
// (grazing in a warning colour), sized by log ‖Ξ‖, fading over a few seconds of simulated time.
// Added to the mjvScene as extra geoms after mjv_updateScene and before mjr_render.
#ifndef SALTATION_VIEWER_SCENE_MARKERS_H_
#define SALTATION_VIEWER_SCENE_MARKERS_H_

#include <imgui.h>
#include <mujoco/mujoco.h>

#include <string>
#include <vector>

#include "simulation.h"

namespace saltation_viewer {

// RGB in [0, 1] of an event kind; grazing events take the warning colour whatever their kind.
void EventColor(saltation::EventKind kind, bool grazing, float rgb[3]);
ImU32 EventColorU32(saltation::EventKind kind, bool grazing, int alpha = 255);

// Adds the markers of events no older than `fade` seconds at `time` (and the selected one,
// always, with a white halo). Stops quietly when the scene is full.
void AddEventMarkers(const mjModel* m, double time, const std::vector<EventRecord>& events,
                     int selected, double fade, mjvScene* scn);

}  // namespace saltation_viewer

#endif  // SALTATION_VIEWER_SCENE_MARKERS_H_
