// The ImGui overlay: controls, time plots of ‖Ξ‖ and of the transversality, the event table,
// the selected event's Ξ and DΔ as heat maps, and the rigid-vs-compliant comparison. Drawn with
// the simulation's lock held; requests that need the GL context or a new model (reload, load,
// screenshot) are left in UiState for the app to carry out.
#ifndef SALTATION_VIEWER_PANELS_H_
#define SALTATION_VIEWER_PANELS_H_

#include <imgui.h>
#include <mujoco/mujoco.h>

#include <string>
#include <vector>

#include "simulation.h"

namespace saltation_viewer {

// slow-motion factors, fastest first (simulated seconds per wall second)
inline constexpr double kSpeeds[] = {4, 2, 1, 0.5, 0.25, 0.1, 0.05, 0.025, 0.01, 0.005, 0.001};
inline constexpr int kSpeedCount = sizeof(kSpeeds) / sizeof(kSpeeds[0]);
inline constexpr int kRealTimeIndex = 2;

struct UiState {
  bool show_panels = true;
  bool show_help = false;       // F1: the keys and mouse overlay
  // rendering: shadows and reflections (MuJoCo's mjRND_SHADOW, mjRND_REFLECTION), off by default
  // on a software renderer (llvmpipe: they are most of a frame's cost)
  bool shadows = true, reflections = true;
  std::string renderer;         // GL_RENDERER
  int selected = -1;            // event record shown in the heat map (−1: none)
  long seen_events = 0;         // Simulation::total_events() last drawn (to follow new events)
  long seen_dropped = 0;        // Simulation::dropped() when `selected` was last valid
  int speed_index = kRealTimeIndex;
  double plot_window = 4;       // s of simulated time shown in the plots
  double marker_fade = 2;       // s of simulated time a scene marker takes to fade
  HookSettings pending;         // settings as edited (applied when a widget is released)
  std::string load_error;       // why the last load failed (the previous model keeps running)
  std::vector<std::string> warnings;  // recent MuJoCo warnings
  std::string message;          // transient status line
  double message_until = 0;
  char record_base[512] = "";
  std::string record_error;
  float fps = 0;
  double fixed_frame_time = 0;  // screenshot mode: simulated seconds per frame (0: real time)
  // the heat maps' axis labels (saltation::StateLabels), made once per model
  const mjModel* labels_model = nullptr;
  std::vector<std::string> state_labels;

  // requests for the app (need the GL context or the lock released)
  bool request_reload = false;
  bool request_screenshot = false;
  std::string request_load;
};

// Layout (at 1280×720 and wider): the controls and the rigid-vs-compliant panel docked on the
// left (kLeftWidth), the plots, the event table and the selected event docked on the right
// (kRightWidth), so the centre of the window (at least its middle third) is the scene's. Every
// panel is collapsible and movable; positions are first-use defaults.
inline constexpr float kLeftWidth = 320;
inline constexpr float kRightWidth = 400;

// Draws every panel (and the F1 help overlay). display: the window size in ImGui units.
void DrawPanels(Simulation& sim, UiState& ui, mjvOption& vopt, mjvCamera& cam, ImVec2 display);

// (locked) Keeps `selected` on the same event while the event ring drops old ones (deselects it
// when it was dropped); call once a frame before anything uses `selected`.
void FollowEventRing(const Simulation& sim, UiState& ui);

// Selects an event record and pauses (clicking a row or a plot point).
void SelectEvent(Simulation& sim, UiState& ui, int record);

void ShowMessage(UiState& ui, const std::string& text);

// Geom groups (mjvOption::geomgroup, keys 0–5 as in MuJoCo's simulate).
inline constexpr int kGeomGroups = 6;
// geoms per group 0–5 (groups outside 0–5 are not counted)
std::vector<int> GeomGroupCounts(const mjModel* m);
// Makes the model visible: when no geom of a body other than the world is in a shown group
// (Menagerie robots keep their collision geoms in group 3, hidden by default, so a robot whose
// visual geoms are absent would be invisible), shows every group that has such a geom. Returns
// the groups it turned on, as a bit mask (0: none needed).
int ShowHiddenGeomGroups(const mjModel* m, mjvOption* vopt);

}  // namespace saltation_viewer

#endif  // SALTATION_VIEWER_PANELS_H_
