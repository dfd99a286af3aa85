// The viewer application: a GLFW window with MuJoCo's renderer (mjv/mjr) and the ImGui overlay,
// MuJoCo simulate's keyboard and mouse conventions, model loading (command line, drag-and-drop,
// reload), and the headless screenshot mode.
#ifndef SALTATION_VIEWER_APP_H_
#define SALTATION_VIEWER_APP_H_

#include <GLFW/glfw3.h>
#include <mujoco/mujoco.h>

#include <csignal>
#include <cstdio>
#include <string>
#include <vector>

#include "frame_times.h"
#include "panels.h"
#include "simulation.h"

namespace saltation_viewer {

struct ViewerArgs {
  std::string model;              // "" → models/ball_drop.xml with keyframe "throw"
  std::string keyframe;           // name or index
  saltation::Propagation propagation = saltation::Propagation::kEvents;
  std::string screenshot;         // PNG path: headless screenshot mode
  int frames = 60;                // screenshot mode: frames to run (1/60 s of simulation each)
  int width = 1280, height = 720;
  std::vector<double> camera;     // azimuth, elevation, distance[, lookat x, y, z] (free camera)
  bool select_last_event = false; // screenshot mode: show the last event's Ξ
  std::string then_load;          // screenshot mode: load this file half way through
  std::string record;             // start recording to RECORD.jsonl and RECORD.csv
  std::string status_log;         // interactive mode: append a state line per input and per 0.5 s
  size_t history = 1000;          // events kept for the panels (a ring; --record keeps them all)
  bool hide_panels = false;       // start with the panels hidden (Tab shows them)
  bool render_effects = false;    // shadows and reflections even on a software renderer
  int geom_groups = -1;           // bit mask of the geom groups 0–5 shown (−1: MuJoCo's default,
                                  // plus the hidden groups of a model that shows nothing else)
};

// set by a SIGINT/SIGTERM handler: the interactive loop ends cleanly
extern volatile std::sig_atomic_t g_stop_requested;

class App {
 public:
  explicit App(const ViewerArgs& args);
  ~App();
  App(const App&) = delete;
  App& operator=(const App&) = delete;

  // Loads the model of the command line; returns the error message or "".
  std::string LoadInitialModel();
  // the start the loaded model runs from, as the commands print it ("keyframe 'throw' (the
  // model's first; …)", "qpos0")
  std::string StartDescription();
  // Opens the window and the GL, MuJoCo and ImGui contexts; returns the error message or "".
  std::string OpenWindow();
  int RunInteractive();
  int RunScreenshot();

 private:
  void Frame();                   // one frame: scene, markers, panels, render
  void LoadModel(const std::string& path, const std::string& keyframe);
  void MakeRenderContext();       // (locked) for the current model
  void HandleRequests();
  void TakeWarnings();
  void Key(int key, int mods);
  // returns what the press did: "release", "panel" (ImGui's), "double-click" or "press"
  const char* MouseButton(int button, int action, int mods);
  void CursorMoved(double x, double y);
  void Select(int button, int mods);
  void CycleCamera(int direction);
  // --status-log: one line of the state after an input (or "start", "tick", "exit")
  void LogStatus(const std::string& input);

  static App* From(GLFWwindow* w) { return static_cast<App*>(glfwGetWindowUserPointer(w)); }

  ViewerArgs args_;
  Simulation sim_;
  UiState ui_;
  GLFWwindow* window_ = nullptr;
  bool imgui_ = false;
  bool software_renderer_ = false;  // llvmpipe & co.
  mjvCamera cam_;
  mjvOption vopt_;
  mjvScene scn_;
  mjrContext con_;
  const mjModel* render_model_ = nullptr;  // the model scn_ and con_ were made for

  // mouse
  bool drag_left_ = false, drag_right_ = false, drag_middle_ = false;
  double last_x_ = 0, last_y_ = 0;
  double last_click_ = -1;
  int last_click_button_ = -1;

  // --status-log
  std::FILE* status_log_ = nullptr;
  double status_next_ = 0;

  // frame rate, and where the frames' time goes (screenshot mode's summary)
  FrameTimes times_;
  double fps_since_ = 0;
  int fps_frames_ = 0;
};

}  // namespace saltation_viewer

#endif  // SALTATION_VIEWER_APP_H_
