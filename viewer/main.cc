// saltation-viewer: MuJoCo's simulation with the engine hook's contact events, their saltation
// matrices and the rigid-vs-compliant comparison, in a window (or one headless screenshot).
//
//   saltation-viewer [MODEL.xml] [--keyframe K] [--propagation MODE]
//   saltation-viewer [MODEL.xml] --screenshot FILE.png --frames N [--width W --height H] …
#include <algorithm>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "app.h"
#include "saltation/errors.h"
#include "saltation/version.h"

namespace {

const char* kUsage = R"(usage: saltation-viewer [MODEL.xml] [options]

Runs MODEL (default: models/ball_drop.xml) in MuJoCo with the saltation
engine hook, and shows every contact event with its saltation matrix. Drop another model on the
window to load it; Ctrl+L reloads. Keys and mouse: viewer/README.md.

options:
  --keyframe K          start from keyframe K (name or index; default: the model's first
                        keyframe when it has one, as every saltation command; none: qpos0)
  --propagation MODE    events (default), rigid, compliant or both
  --camera A,E,D[,X,Y,Z] free camera azimuth, elevation (deg), distance, look-at point
  --record BASE         record events to BASE.jsonl (JSON Lines) and BASE.csv from the start
  --status-log FILE     append the viewer's state to FILE after every key and mouse button and
                        every 0.5 s (for tests and automation; format in viewer/README.md)
  --screenshot FILE     headless: run --frames frames of 1/60 s each, write FILE (PNG), exit
                        (exit 1 when the run stopped early: unstable or non-finite state)
  --frames N            frames in screenshot mode (default 60)
  --width W, --height H window size (default 1280x720)
  --select-last-event   screenshot mode: show the last event's Xi and DDelta
  --hide-panels         start with the panels hidden (Tab shows them)
  --render-effects      shadows, reflections and multisampling also on a software renderer
                        (llvmpipe; off there by default: they are most of a frame's cost)
  --history N           keep the last N events for the panels (default 1000; --record writes all)
  --geom-groups LIST    show exactly these geom groups, e.g. 0,1,2,3 (default: MuJoCo's 0,1,2,
                        and a model with no geom there shows the groups it has); keys 0-5 toggle
  --then-load FILE      screenshot mode: load FILE half way through (the reload path)
  -h, --help            this text
)";

int Fail(const std::string& message, int code) {
  std::fprintf(stderr, "saltation-viewer: %s\n", message.c_str());
  return code;
}

bool ParseInt(const std::string& text, int lo, int hi, int* out) {
  char* end = nullptr;
  const long v = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || v < lo || v > hi) return false;
  *out = static_cast<int>(v);
  return true;
}

// returns an error message, "" when fine, "help" for -h
std::string ParseArgs(int argc, char** argv, saltation_viewer::ViewerArgs* args) {
  for (int i = 1; i < argc; i++) {
    const std::string a = argv[i];
    auto value = [&](std::string* out) {
      if (i + 1 >= argc) return false;
      *out = argv[++i];
      return true;
    };
    std::string v;
    if (a == "-h" || a == "--help") return "help";
    if (a == "--keyframe" || a == "--screenshot" || a == "--frames" || a == "--width" ||
        a == "--height" || a == "--propagation" || a == "--then-load" || a == "--camera" ||
        a == "--record" || a == "--status-log" || a == "--geom-groups" || a == "--history") {
      if (!value(&v)) return "option " + a + " needs a value";
    }
    if (a == "--keyframe") {
      args->keyframe = v;
    } else if (a == "--screenshot") {
      args->screenshot = v;
    } else if (a == "--record") {
      args->record = v;
    } else if (a == "--status-log") {
      args->status_log = v;
    } else if (a == "--then-load") {
      args->then_load = v;
    } else if (a == "--frames") {
      if (!ParseInt(v, 1, 1000000, &args->frames)) return "--frames needs a positive integer";
    } else if (a == "--width") {
      if (!ParseInt(v, 64, 8192, &args->width)) return "--width needs an integer in [64, 8192]";
    } else if (a == "--height") {
      if (!ParseInt(v, 64, 8192, &args->height)) return "--height needs an integer in [64, 8192]";
    } else if (a == "--propagation") {
      using saltation::Propagation;
      if (v == "events") args->propagation = Propagation::kEvents;
      else if (v == "rigid") args->propagation = Propagation::kRigid;
      else if (v == "compliant") args->propagation = Propagation::kCompliant;
      else if (v == "both") args->propagation = Propagation::kBoth;
      else return "--propagation must be events, rigid, compliant or both, got '" + v + "'";
    } else if (a == "--camera") {
      args->camera.clear();
      size_t pos = 0;
      while (pos <= v.size()) {
        const size_t comma = std::min(v.find(',', pos), v.size());
        const std::string field = v.substr(pos, comma - pos);
        char* end = nullptr;
        const double x = std::strtod(field.c_str(), &end);
        if (field.empty() || *end != '\0' || !std::isfinite(x)) return "--camera needs numbers, got '" + v + "'";
        args->camera.push_back(x);
        pos = comma + 1;
      }
      if (args->camera.size() != 3 && args->camera.size() != 6) {
        return "--camera needs 3 or 6 numbers: azimuth,elevation,distance[,x,y,z]";
      }
    } else if (a == "--geom-groups") {
      args->geom_groups = 0;
      size_t pos = 0;
      while (pos <= v.size()) {
        const size_t comma = std::min(v.find(',', pos), v.size());
        int g = -1;
        if (!ParseInt(v.substr(pos, comma - pos), 0, 5, &g)) {
          return "--geom-groups needs a comma-separated list of groups 0-5, got '" + v + "'";
        }
        args->geom_groups |= 1 << g;
        pos = comma + 1;
      }
    } else if (a == "--history") {
      int n = 0;
      if (!ParseInt(v, 1, 100000000, &n)) return "--history needs a positive number of events, got '" + v + "'";
      args->history = static_cast<size_t>(n);
    } else if (a == "--render-effects") {
      args->render_effects = true;
    } else if (a == "--hide-panels") {
      args->hide_panels = true;
    } else if (a == "--select-last-event") {
      args->select_last_event = true;
    } else if (a.size() > 1 && a[0] == '-') {
      return "unknown option '" + a + "'";
    } else if (args->model.empty()) {
      args->model = a;
    } else {
      return "more than one model given: '" + a + "'";
    }
  }
  if (!args->status_log.empty() && !args->screenshot.empty()) {
    return "--status-log is for the interactive mode, not with --screenshot";
  }
  return "";
}

}  // namespace

int main(int argc, char** argv) {
  saltation::InstallMujocoHandlers();  // mju_error throws instead of waiting for Enter
  // the MuJoCo library loaded must be the one whose headers this program was compiled with
  if (const std::string e = saltation::MujocoVersionMismatch(); !e.empty()) {
    std::fprintf(stderr, "saltation-viewer: %s\n", e.c_str());
    return 3;
  }

  saltation_viewer::ViewerArgs args;
  const std::string parse_error = ParseArgs(argc, argv, &args);
  if (parse_error == "help") {
    std::fputs(kUsage, stdout);
    return 0;
  }
  if (!parse_error.empty()) {
    std::fputs(kUsage, stderr);
    return Fail(parse_error, 2);
  }
  const bool headless = !args.screenshot.empty();

  glfwSetErrorCallback([](int code, const char* text) {
    std::fprintf(stderr, "saltation-viewer: GLFW error %d: %s\n", code, text);
  });
  saltation_viewer::App app(args);
  // a bad model is fatal only in screenshot mode; in a window it is shown and another can be dropped
  const std::string load_error = app.LoadInitialModel();
  if (!load_error.empty()) {
    if (headless) return Fail(load_error, 1);
    std::fprintf(stderr, "saltation-viewer: %s\n", load_error.c_str());
  }
  const std::string window_error = app.OpenWindow();
  if (!window_error.empty()) return Fail(window_error, 1);
  if (headless) return app.RunScreenshot();
  auto stop = [](int) { saltation_viewer::g_stop_requested = 1; };
  std::signal(SIGINT, stop);
  std::signal(SIGTERM, stop);
  return app.RunInteractive();
}
