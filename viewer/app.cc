#include "app.h"

#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>
#include <imgui.h>

#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdio>

#include "scene_markers.h"
#include "screenshot.h"

namespace saltation_viewer {
namespace {

constexpr double kFrameSimTime = 1.0 / 60;   // screenshot mode: simulated time per frame
constexpr int kSceneGeoms = 6000;            // model geoms + contacts + event markers
constexpr double kDoubleClick = 0.3;         // s
constexpr double kStatusPeriod = 0.5;        // s of wall time between --status-log "tick" lines

// the process's resident memory (MB), from /proc/self/statm; 0 where that is not readable
double ResidentMegabytes() {
  std::FILE* f = std::fopen("/proc/self/statm", "r");
  if (!f) return 0;
  long size = 0, resident = 0;
  const int n = std::fscanf(f, "%ld %ld", &size, &resident);
  std::fclose(f);
  return n == 2 ? resident * (sysconf(_SC_PAGESIZE) / 1048576.0) : 0;
}

// --status-log: the key as the README names it ("space", "ctrl+p", "kp_add", …)
std::string KeyName(int key, int mods) {
  std::string name;
  switch (key) {
    case GLFW_KEY_SPACE: name = "space"; break;
    case GLFW_KEY_RIGHT: name = "right"; break;
    case GLFW_KEY_LEFT: name = "left"; break;
    case GLFW_KEY_UP: name = "up"; break;
    case GLFW_KEY_DOWN: name = "down"; break;
    case GLFW_KEY_BACKSPACE: name = "backspace"; break;
    case GLFW_KEY_ESCAPE: name = "escape"; break;
    case GLFW_KEY_TAB: name = "tab"; break;
    case GLFW_KEY_F1: name = "f1"; break;
    case GLFW_KEY_ENTER: name = "enter"; break;
    case GLFW_KEY_KP_ADD: name = "kp_add"; break;
    case GLFW_KEY_KP_SUBTRACT: name = "kp_subtract"; break;
    case GLFW_KEY_LEFT_SHIFT: name = "left_shift"; break;
    case GLFW_KEY_RIGHT_SHIFT: name = "right_shift"; break;
    case GLFW_KEY_LEFT_CONTROL: name = "left_ctrl"; break;
    case GLFW_KEY_RIGHT_CONTROL: name = "right_ctrl"; break;
    case GLFW_KEY_LEFT_ALT: name = "left_alt"; break;
    case GLFW_KEY_RIGHT_ALT: name = "right_alt"; break;
    default: {
      const char* printable = glfwGetKeyName(key, 0);
      name = printable && *printable ? printable : "key" + std::to_string(key);
    }
  }
  if (mods & GLFW_MOD_SHIFT) name = "shift+" + name;
  if (mods & GLFW_MOD_CONTROL) name = "ctrl+" + name;
  return name;
}

const char* ButtonName(int button) {
  switch (button) {
    case GLFW_MOUSE_BUTTON_LEFT: return "left";
    case GLFW_MOUSE_BUTTON_RIGHT: return "right";
    case GLFW_MOUSE_BUTTON_MIDDLE: return "middle";
    default: return "other";
  }
}

// a log field value without spaces
std::string Token(const char* text) {
  std::string s = text && *text ? text : "-";
  std::replace(s.begin(), s.end(), ' ', '_');
  return s;
}

}  // namespace

volatile std::sig_atomic_t g_stop_requested = 0;

App::App(const ViewerArgs& args) : args_(args) {
  mjv_defaultCamera(&cam_);
  mjv_defaultOption(&vopt_);
  mjv_defaultScene(&scn_);
  mjr_defaultContext(&con_);
  ui_.pending.propagation = args_.propagation;
  ui_.show_panels = !args_.hide_panels;
  sim_.SetHistory(args_.history);
}

App::~App() {
  sim_.StopThread();
  if (status_log_) std::fclose(status_log_);
  if (imgui_) {
    ImGui_ImplOpenGL3_Shutdown();
    ImGui_ImplGlfw_Shutdown();
    ImGui::DestroyContext();
  }
  mjv_freeScene(&scn_);
  if (window_) {
    mjr_freeContext(&con_);
    glfwDestroyWindow(window_);
    glfwTerminate();
  }
}

std::string App::StartDescription() {
  auto lock = sim_.Lock();
  if (sim_.keyframe() < 0) return "qpos0";
  const char* name = mj_id2name(sim_.m(), mjOBJ_KEY, sim_.keyframe());
  const std::string key = name && *name ? "'" + std::string(name) + "'" : std::to_string(sim_.keyframe());
  return "keyframe " + key + (args_.keyframe.empty() ? " (the model's first; --keyframe none for qpos0)" : "");
}

std::string App::LoadInitialModel() {
  // settings first, so the first hook is made with them
  {
    auto lock = sim_.Lock();
    sim_.Apply(ui_.pending);
  }
  ui_.load_error = sim_.Load(args_.model.empty() ? saltation::DefaultModelPath() : args_.model, args_.keyframe);
  if (ui_.load_error.empty()) std::printf("saltation-viewer: start: %s\n", StartDescription().c_str());
  if (ui_.load_error.empty() && !args_.record.empty()) {
    auto lock = sim_.Lock();
    std::snprintf(ui_.record_base, sizeof(ui_.record_base), "%s", args_.record.c_str());
    const std::string error = sim_.recorder().Open(args_.record);
    if (!error.empty()) return error;
  }
  return ui_.load_error;
}

std::string App::OpenWindow() {
  if (!glfwInit()) return "cannot initialise GLFW (no display? try xvfb-run)";
  // the default (compatibility) context: mjr_makeContext fails on a core profile
  const bool headless = !args_.screenshot.empty();
  glfwWindowHint(GLFW_SAMPLES, headless ? 0 : 4);  // llvmpipe multisampling is slow
  if (headless) glfwWindowHint(GLFW_RESIZABLE, GLFW_FALSE);
  window_ = glfwCreateWindow(args_.width, args_.height, "saltation-viewer", nullptr, nullptr);
  if (!window_) {
    glfwTerminate();
    return "cannot create a window with an OpenGL context (no display? try xvfb-run)";
  }
  glfwMakeContextCurrent(window_);
  // a software renderer (Mesa's llvmpipe under Xvfb): no multisampling, no shadows and no
  // reflections by default — they cost most of each frame there (viewer/README.md has figures)
  const char* renderer = reinterpret_cast<const char*>(glGetString(GL_RENDERER));
  ui_.renderer = renderer ? renderer : "?";
  software_renderer_ = ui_.renderer.find("llvmpipe") != std::string::npos ||
                       ui_.renderer.find("softpipe") != std::string::npos ||
                       ui_.renderer.find("swrast") != std::string::npos;
  if (software_renderer_ && !args_.render_effects) {
    ui_.shadows = ui_.reflections = false;
    if (!headless) {
      glfwDestroyWindow(window_);
      glfwWindowHint(GLFW_SAMPLES, 0);
      window_ = glfwCreateWindow(args_.width, args_.height, "saltation-viewer", nullptr, nullptr);
      if (!window_) {
        glfwTerminate();
        return "cannot create a window with an OpenGL context (no display? try xvfb-run)";
      }
      glfwMakeContextCurrent(window_);
    }
  }
  glfwSwapInterval(headless ? 0 : 1);
  glfwSetWindowUserPointer(window_, this);

  // our callbacks first: ImGui chains to them
  glfwSetKeyCallback(window_, [](GLFWwindow* w, int key, int, int action, int mods) {
    if (action == GLFW_RELEASE) return;
    App* app = From(w);
    app->Key(key, mods);
    app->LogStatus("key:" + KeyName(key, mods) + (action == GLFW_REPEAT ? ":repeat" : ""));
  });
  glfwSetMouseButtonCallback(window_, [](GLFWwindow* w, int button, int action, int mods) {
    App* app = From(w);
    const char* what = app->MouseButton(button, action, mods);
    app->LogStatus(std::string("mouse:") + ((mods & GLFW_MOD_CONTROL) ? "ctrl+" : "") +
                   ((mods & GLFW_MOD_SHIFT) ? "shift+" : "") + ButtonName(button) + ":" + what);
  });
  glfwSetCursorPosCallback(window_, [](GLFWwindow* w, double x, double y) {
    From(w)->CursorMoved(x, y);
  });
  glfwSetScrollCallback(window_, [](GLFWwindow* w, double, double dy) {
    App* app = From(w);
    if (ImGui::GetIO().WantCaptureMouse) return;
    auto lock = app->sim_.Lock();
    if (app->sim_.m()) mjv_moveCamera(app->sim_.m(), mjMOUSE_ZOOM, 0, -0.05 * dy, &app->cam_);
  });
  glfwSetDropCallback(window_, [](GLFWwindow* w, int count, const char** paths) {
    if (count > 0) From(w)->ui_.request_load = paths[0];
  });

  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGui::GetIO().IniFilename = nullptr;  // no imgui.ini in the user's directory
  ImGui::StyleColorsDark();
  ImGui_ImplGlfw_InitForOpenGL(window_, true);
  ImGui_ImplOpenGL3_Init("#version 130");
  imgui_ = true;

  auto lock = sim_.Lock();
  if (sim_.m()) MakeRenderContext();
  return "";
}

void App::MakeRenderContext() {
  const mjModel* m = sim_.m();
  mjv_freeScene(&scn_);
  mjv_makeScene(m, &scn_, kSceneGeoms);
  mjr_makeContext(m, &con_, mjFONTSCALE_100);
  // the model's free camera, a little further out and lower, so the motion stays in view
  mjv_defaultFreeCamera(m, &cam_);
  cam_.distance = 2.0 * m->stat.extent;
  cam_.elevation = -15;
  if (args_.camera.size() >= 3) {
    cam_.azimuth = args_.camera[0];
    cam_.elevation = args_.camera[1];
    cam_.distance = args_.camera[2];
  }
  if (args_.camera.size() == 6) mju_copy3(cam_.lookat, &args_.camera[3]);
  render_model_ = m;

  // geom groups: the command line's, else MuJoCo's default (0–2), plus whatever makes a model
  // that would show nothing visible
  mjvOption defaults;
  mjv_defaultOption(&defaults);
  for (int g = 0; g < mjNGROUP; g++) {
    vopt_.geomgroup[g] = args_.geom_groups >= 0 ? (g < kGeomGroups && (args_.geom_groups >> g & 1))
                                                : defaults.geomgroup[g];
  }
  if (args_.geom_groups < 0) {
    const int shown = ShowHiddenGeomGroups(m, &vopt_);
    if (shown) {
      std::string groups;
      for (int g = 0; g < kGeomGroups; g++) {
        if (shown >> g & 1) groups += (groups.empty() ? "" : ", ") + std::to_string(g);
      }
      const std::string text = "no geom in groups 0-2: showing group " + groups + " (keys 0-5)";
      std::fprintf(stderr, "saltation-viewer: %s\n", text.c_str());
      ShowMessage(ui_, text);
    }
  }
}

void App::LoadModel(const std::string& path, const std::string& keyframe) {
  const std::string error = sim_.Load(path, keyframe, false);
  if (!error.empty()) {
    ui_.load_error = error;
    std::fprintf(stderr, "saltation-viewer: %s\n", error.c_str());
    return;
  }
  ui_.load_error.clear();
  ui_.selected = -1;
  ui_.seen_events = 0;
  auto lock = sim_.Lock();
  MakeRenderContext();
  ShowMessage(ui_, "loaded " + path);
}

void App::HandleRequests() {
  if (!ui_.request_load.empty()) {
    const std::string path = ui_.request_load;
    ui_.request_load.clear();
    LoadModel(path, "");
  }
  if (ui_.request_reload) {
    ui_.request_reload = false;
    std::string path, key;
    {
      auto lock = sim_.Lock();
      path = sim_.path();
      if (sim_.m() && sim_.keyframe() >= 0) key = std::to_string(sim_.keyframe());
    }
    if (!path.empty()) LoadModel(path, key);
  }
}

void App::TakeWarnings() {
  for (std::string& w : saltation::TakeMujocoWarnings()) {
    std::fprintf(stderr, "saltation-viewer: MuJoCo warning: %s\n", w.c_str());
    ui_.warnings.push_back(std::move(w));
  }
  while (ui_.warnings.size() > 3) ui_.warnings.erase(ui_.warnings.begin());
}

void App::Frame() {
  // frame rate over half-second windows
  const double now = glfwGetTime();
  fps_frames_++;
  if (now - fps_since_ >= 0.5) {
    ui_.fps = static_cast<float>(fps_frames_ / (now - fps_since_));
    fps_since_ = now;
    fps_frames_ = 0;
  }
  TakeWarnings();

  times_.Switch(Phase::kPanels);
  ImGui_ImplOpenGL3_NewFrame();
  ImGui_ImplGlfw_NewFrame();
  ImGui::NewFrame();
  bool have_scene = false;
  {
    auto lock = sim_.Lock();
    times_.Switch(Phase::kScene);
    if (kSpeeds[ui_.speed_index] != sim_.speed()) sim_.SetSpeed(kSpeeds[ui_.speed_index]);
    FollowEventRing(sim_, ui_);
    mjModel* m = sim_.m();
    if (m && m == render_model_) {
      if (!sim_.running() && sim_.perturb().active) sim_.ForwardWhilePaused();
      mjv_updateScene(m, sim_.d(), &vopt_, &sim_.perturb(), &cam_, mjCAT_ALL, &scn_);
      AddEventMarkers(m, sim_.d()->time, sim_.events(), ui_.selected, ui_.marker_fade, &scn_);
      have_scene = true;
    }
    times_.Switch(Phase::kPanels);
    DrawPanels(sim_, ui_, vopt_, cam_, ImGui::GetIO().DisplaySize);
  }
  ImGui::Render();
  times_.Switch(Phase::kRender);

  int width = 0, height = 0;
  glfwGetFramebufferSize(window_, &width, &height);
  const mjrRect viewport = {0, 0, width, height};
  if (have_scene) {
    scn_.flags[mjRND_SHADOW] = ui_.shadows;
    scn_.flags[mjRND_REFLECTION] = ui_.reflections;
    mjr_setBuffer(mjFB_WINDOW, &con_);
    mjr_render(viewport, &scn_, &con_);
  } else {
    glViewport(0, 0, width, height);
    glClearColor(0.15f, 0.15f, 0.2f, 1);
    glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
  }
  if (ui_.fixed_frame_time > 0) glFinish();  // screenshot mode: the render's time counted here
  times_.Switch(Phase::kOverlay);
  ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
  if (ui_.fixed_frame_time > 0) glFinish();
  times_.Switch(Phase::kCount);

  if (ui_.request_screenshot) {
    ui_.request_screenshot = false;
    const std::string name = NextScreenshotName();
    const std::string error = SaveFramebufferPng(name, width, height);
    ShowMessage(ui_, error.empty() ? "saved " + name : error);
  }
}

void App::LogStatus(const std::string& input) {
  if (!status_log_) return;
  auto lock = sim_.Lock();
  const mjModel* m = sim_.m();
  const mjData* d = sim_.d();
  const mjvPerturb& pert = sim_.perturb();
  std::fprintf(status_log_, "wall=%.3f input=%s t=%.9f paused=%d speed=%g", glfwGetTime(),
               input.c_str(), d ? d->time : 0.0, sim_.running() ? 0 : 1, kSpeeds[ui_.speed_index]);
  if (m && d && pert.select > 0 && pert.select < m->nbody) {
    const mjtNum* x = d->xpos + 3 * pert.select;
    std::fprintf(status_log_, " selected=%d:%s pos=%.6f,%.6f,%.6f", pert.select,
                 Token(mj_id2name(m, mjOBJ_BODY, pert.select)).c_str(), x[0], x[1], x[2]);
  } else {
    std::fprintf(status_log_, " selected=0 pos=-");
  }
  const char* perturb = (pert.active & mjPERT_TRANSLATE) ? "translate"
                        : (pert.active & mjPERT_ROTATE)  ? "rotate"
                                                          : "none";
  std::string camera = "free";
  if (cam_.type == mjCAMERA_FIXED) camera = "fixed:" + std::to_string(cam_.fixedcamid);
  if (cam_.type == mjCAMERA_TRACKING) camera = "tracking:" + std::to_string(cam_.trackbodyid);
  std::string groups;
  for (int g = 0; g < kGeomGroups; g++) {
    if (vopt_.geomgroup[g]) groups += std::to_string(g);
  }
  std::fprintf(status_log_, " perturb=%s camera=%s contacts=%d forces=%d panels=%d groups=%s help=%d\n",
               perturb, camera.c_str(), vopt_.flags[mjVIS_CONTACTPOINT] ? 1 : 0,
               vopt_.flags[mjVIS_CONTACTFORCE] ? 1 : 0, ui_.show_panels ? 1 : 0,
               groups.empty() ? "-" : groups.c_str(), ui_.show_help ? 1 : 0);
  std::fflush(status_log_);
}

int App::RunInteractive() {
  if (!args_.status_log.empty()) {
    status_log_ = std::fopen(args_.status_log.c_str(), "a");
    if (!status_log_) {
      std::fprintf(stderr, "saltation-viewer: cannot open the status log '%s'\n",
                   args_.status_log.c_str());
      return 1;
    }
  }
  sim_.StartThread();
  LogStatus("start");
  status_next_ = glfwGetTime() + kStatusPeriod;
  const double start = glfwGetTime();
  long frames = 0;
  while (!glfwWindowShouldClose(window_) && !g_stop_requested) {
    glfwPollEvents();
    HandleRequests();
    Frame();
    glfwSwapBuffers(window_);
    frames++;
    if (status_log_ && glfwGetTime() >= status_next_) {
      LogStatus("tick");
      status_next_ = glfwGetTime() + kStatusPeriod;
    }
  }
  sim_.StopThread();
  LogStatus("exit");
  const double wall = glfwGetTime() - start;
  auto lock = sim_.Lock();
  std::printf("saltation-viewer: %ld frames in %.1f s (%.1f frames/s), simulated %.2f s\n", frames,
              wall, frames / std::max(wall, 1e-9), sim_.d() ? sim_.d()->time : 0.0);
  return 0;
}

int App::RunScreenshot() {
  ui_.fixed_frame_time = kFrameSimTime;
  double rss_early = 0;  // MB after a fifth of the frames (the ring's memory should stay flat)
  // fixed simulated time per frame, whatever the wall time
  const double start = glfwGetTime();
  for (int frame = 0; frame < args_.frames; frame++) {
    glfwPollEvents();
    if (frame == args_.frames / 2 && !args_.then_load.empty()) ui_.request_load = args_.then_load;
    HandleRequests();
    {
      auto lock = sim_.Lock();
      times_.Switch(Phase::kPhysics);
      sim_.Advance(kFrameSimTime);
      times_.Switch(Phase::kCount);
      if (frame == args_.frames / 5) rss_early = ResidentMegabytes();
      // a few frames before the end, so the auto-sized event window has its size
      if (frame == std::max(0, args_.frames - 3) && args_.select_last_event) {
        FollowEventRing(sim_, ui_);
        for (int i = static_cast<int>(sim_.events().size()) - 1; i >= 0; i--) {
          if (sim_.events()[i].has_xi) {
            ui_.selected = i;
            break;
          }
        }
      }
    }
    Frame();
    if (frame == args_.frames - 1) {
      int width = 0, height = 0;
      glfwGetFramebufferSize(window_, &width, &height);
      if (width != args_.width || height != args_.height) {
        std::fprintf(stderr, "saltation-viewer: the framebuffer is %dx%d, not the %dx%d asked for\n",
                     width, height, args_.width, args_.height);
      }
      const std::string error = SaveFramebufferPng(args_.screenshot, width, height);
      if (!error.empty()) {
        std::fprintf(stderr, "saltation-viewer: %s\n", error.c_str());
        return 1;
      }
    }
    glfwSwapBuffers(window_);
  }
  const double wall = glfwGetTime() - start;
  auto lock = sim_.Lock();
  int with_xi = 0;
  for (const EventRecord& e : sim_.events()) with_xi += e.has_xi;
  std::printf("saltation-viewer: %s: %d frames in %.2f s (%.1f frames/s), t = %.3f s, %zu events "
              "(%d with Xi); wrote %s\n",
              sim_.path().c_str(), args_.frames, wall, args_.frames / std::max(wall, 1e-9),
              sim_.d()->time, sim_.events().size(), with_xi, args_.screenshot.c_str());
  std::printf("saltation-viewer: %s\n", times_.Summary(args_.frames).c_str());
  std::printf("saltation-viewer: memory: resident %.1f MB after %d frames, %.1f MB at the end; "
              "%zu of %ld events kept (history %zu)\n",
              rss_early, args_.frames / 5 + 1, ResidentMegabytes(), sim_.events().size(),
              sim_.total_events(), sim_.history());
  if (!sim_.hook_error().empty()) std::printf("saltation-viewer: hook: %s\n", sim_.hook_error().c_str());
  if (!ui_.load_error.empty()) std::printf("saltation-viewer: load error shown: %s\n", ui_.load_error.c_str());
  if (!sim_.step_error().empty()) {
    // the picture is written, but the run did not get through its frames
    std::fprintf(stderr, "saltation-viewer: stopped: %s\n", sim_.step_error().c_str());
    return 1;
  }
  return 0;
}

// ---- keyboard and mouse (MuJoCo simulate's conventions) -------------------------------------------

void App::CycleCamera(int direction) {
  const mjModel* m = sim_.m();
  // order: free, then the model's fixed cameras
  int current = cam_.type == mjCAMERA_FIXED ? cam_.fixedcamid + 1 : 0;
  const int count = m->ncam + 1;
  current = ((current + direction) % count + count) % count;
  if (current == 0) {
    cam_.type = mjCAMERA_FREE;
  } else {
    cam_.type = mjCAMERA_FIXED;
    cam_.fixedcamid = current - 1;
  }
}

void App::Key(int key, int mods) {
  if (ImGui::GetIO().WantTextInput) return;
  const bool ctrl = mods & GLFW_MOD_CONTROL;
  if (ctrl && key == GLFW_KEY_L) ui_.request_reload = true;
  if (ctrl && key == GLFW_KEY_P) ui_.request_screenshot = true;
  if (ctrl && key == GLFW_KEY_Q) glfwSetWindowShouldClose(window_, 1);
  if (key == GLFW_KEY_TAB) ui_.show_panels = !ui_.show_panels;
  if (key == GLFW_KEY_F1) ui_.show_help = !ui_.show_help;
  if (ctrl) return;
  if (key >= GLFW_KEY_0 && key < GLFW_KEY_0 + kGeomGroups) {
    vopt_.geomgroup[key - GLFW_KEY_0] = !vopt_.geomgroup[key - GLFW_KEY_0];
    return;
  }
  auto lock = sim_.Lock();
  if (!sim_.m()) return;
  switch (key) {
    case GLFW_KEY_SPACE:
      sim_.SetRunning(!sim_.running());
      break;
    case GLFW_KEY_RIGHT:
      if (!sim_.running()) sim_.StepOnce();
      break;
    case GLFW_KEY_BACKSPACE:
      sim_.Reset();
      ui_.selected = -1;
      break;
    case GLFW_KEY_EQUAL:  // '+' without shift on most layouts
    case GLFW_KEY_KP_ADD:
      ui_.speed_index = std::max(ui_.speed_index - 1, 0);
      break;
    case GLFW_KEY_MINUS:
    case GLFW_KEY_KP_SUBTRACT:
      ui_.speed_index = std::min(ui_.speed_index + 1, kSpeedCount - 1);
      break;
    case GLFW_KEY_LEFT_BRACKET:
      CycleCamera(-1);
      break;
    case GLFW_KEY_RIGHT_BRACKET:
      CycleCamera(1);
      break;
    case GLFW_KEY_ESCAPE:
      cam_.type = mjCAMERA_FREE;
      break;
    case GLFW_KEY_C:
      vopt_.flags[mjVIS_CONTACTPOINT] = !vopt_.flags[mjVIS_CONTACTPOINT];
      break;
    case GLFW_KEY_F:
      vopt_.flags[mjVIS_CONTACTFORCE] = !vopt_.flags[mjVIS_CONTACTFORCE];
      break;
    default:
      break;
  }
}

const char* App::MouseButton(int button, int action, int mods) {
  glfwGetCursorPos(window_, &last_x_, &last_y_);
  if (action == GLFW_RELEASE) {
    if (button == GLFW_MOUSE_BUTTON_LEFT) drag_left_ = false;
    if (button == GLFW_MOUSE_BUTTON_RIGHT) drag_right_ = false;
    if (button == GLFW_MOUSE_BUTTON_MIDDLE) drag_middle_ = false;
    auto lock = sim_.Lock();
    sim_.perturb().active = 0;
    return "release";
  }
  if (ImGui::GetIO().WantCaptureMouse) return "panel";  // a press on a panel is the panel's
  if (button == GLFW_MOUSE_BUTTON_LEFT) drag_left_ = true;
  if (button == GLFW_MOUSE_BUTTON_RIGHT) drag_right_ = true;
  if (button == GLFW_MOUSE_BUTTON_MIDDLE) drag_middle_ = true;

  const double now = glfwGetTime();
  const bool double_click = button == last_click_button_ && now - last_click_ < kDoubleClick;
  last_click_ = double_click ? -1 : now;
  last_click_button_ = button;
  if (double_click) {
    Select(button, mods);
    return "double-click";
  }

  // Ctrl+drag on a selected body: left rotates, right translates
  auto lock = sim_.Lock();
  mjvPerturb& pert = sim_.perturb();
  if ((mods & GLFW_MOD_CONTROL) && pert.select > 0 && sim_.m()) {
    const int mode = button == GLFW_MOUSE_BUTTON_RIGHT ? mjPERT_TRANSLATE : mjPERT_ROTATE;
    if (!pert.active) mjv_initPerturb(sim_.m(), sim_.d(), &scn_, &pert);
    pert.active = mode;
  }
  return "press";
}

void App::CursorMoved(double x, double y) {
  const double dx = x - last_x_, dy = y - last_y_;
  last_x_ = x;
  last_y_ = y;
  if (!drag_left_ && !drag_right_ && !drag_middle_) return;
  int width = 1, height = 1;
  glfwGetWindowSize(window_, &width, &height);
  const bool shift = glfwGetKey(window_, GLFW_KEY_LEFT_SHIFT) == GLFW_PRESS ||
                     glfwGetKey(window_, GLFW_KEY_RIGHT_SHIFT) == GLFW_PRESS;
  int action = mjMOUSE_ZOOM;
  if (drag_right_) {
    action = shift ? mjMOUSE_MOVE_H : mjMOUSE_MOVE_V;
  } else if (drag_left_) {
    action = shift ? mjMOUSE_ROTATE_H : mjMOUSE_ROTATE_V;
  }
  auto lock = sim_.Lock();
  if (!sim_.m()) return;
  mjvPerturb& pert = sim_.perturb();
  if (pert.active) {
    mjv_movePerturb(sim_.m(), sim_.d(), action, dx / height, dy / height, &scn_, &pert);
  } else {
    mjv_moveCamera(sim_.m(), action, dx / height, dy / height, &cam_);  // MuJoCo 4: no scene argument
  }
}

// double-click: left selects a body (for Ctrl+drag), right looks at the point, Ctrl+right tracks
// the body
void App::Select(int button, int mods) {
  auto lock = sim_.Lock();
  const mjModel* m = sim_.m();
  mjData* d = sim_.d();
  if (!m) return;
  int width = 1, height = 1;
  glfwGetWindowSize(window_, &width, &height);
  mjtNum point[3];
  int geom = -1, flex = -1, skin = -1;
  const int body = mjv_select(m, d, &vopt_, static_cast<mjtNum>(width) / height, last_x_ / width,
                              (height - last_y_) / height, &scn_, point, &geom, &flex, &skin);
  mjvPerturb& pert = sim_.perturb();
  if (button == GLFW_MOUSE_BUTTON_LEFT) {
    pert.select = body > 0 ? body : 0;
    pert.skinselect = skin;
    pert.active = 0;
    if (body > 0) {
      mjtNum offset[3];
      mju_sub3(offset, point, d->xpos + 3 * body);
      mju_mulMatTVec(pert.localpos, d->xmat + 9 * body, offset, 3, 3);
    }
  } else if (button == GLFW_MOUSE_BUTTON_RIGHT && body >= 0) {
    if ((mods & GLFW_MOD_CONTROL) && body > 0) {
      cam_.type = mjCAMERA_TRACKING;
      cam_.trackbodyid = body;
      cam_.fixedcamid = -1;
    } else {
      mju_copy3(cam_.lookat, point);
    }
  }
}

}  // namespace saltation_viewer
