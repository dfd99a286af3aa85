// The viewer as a user runs it. ViewerWindow.* need an X display (ctest runs them under
// xvfb-run); ViewerCommandLine.* do not open a window. ViewerInput.* run the interactive viewer
// on the X display, drive it with xdotool and read its --status-log.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <stb_image.h>  // stbi_load is compiled into libstb
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "saltation/event_log_reader.h"

namespace {

struct RunResult {
  int status = -1;     // exit status
  std::string output;  // stdout and stderr
};

RunResult RunViewer(const std::string& args) {
  const std::string command = std::string(SALTATION_VIEWER) + " " + args + " 2>&1";
  RunResult run;
  std::FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return run;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof(buf), pipe)) > 0) run.output.append(buf, n);
  const int status = pclose(pipe);
  run.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return run;
}

std::string TempPath(const std::string& name) {
  const std::string path = ::testing::TempDir() + "saltation_viewer_" + std::to_string(getpid()) + "_" + name;
  std::remove(path.c_str());
  return path;
}

std::string Model(const std::string& name) { return std::string(SALTATION_SOURCE_DIR) + "/models/" + name; }

// "N events (M with Xi)" of the screenshot summary: M
int EventsWithXi(const std::string& output) {
  std::smatch match;
  if (!std::regex_search(output, match, std::regex("(\\d+) events \\((\\d+) with Xi\\)"))) return -1;
  return std::stoi(match[2]);
}

struct Image {
  int width = 0, height = 0;
  unsigned char* rgb = nullptr;
  ~Image() { stbi_image_free(rgb); }
};

// pixel statistics of the rectangle [x0, x1) × [y0, y1) (top-left origin)
struct RegionStats {
  size_t distinct_colours = 0;
  double luminance_variance = 0;
  double dark_fraction = 0;  // pixels with every channel below 48 (ImGui's dark panels)
};

RegionStats Stats(const Image& img, int x0, int y0, int x1, int y1) {
  std::set<unsigned> colours;
  double sum = 0, sum2 = 0;
  size_t dark = 0, count = 0;
  for (int y = y0; y < y1; y++) {
    for (int x = x0; x < x1; x++) {
      const unsigned char* p = img.rgb + 3 * (static_cast<size_t>(y) * img.width + x);
      colours.insert(p[0] << 16 | p[1] << 8 | p[2]);
      const double l = 0.299 * p[0] + 0.587 * p[1] + 0.114 * p[2];
      sum += l;
      sum2 += l * l;
      dark += p[0] < 48 && p[1] < 48 && p[2] < 48;
      count++;
    }
  }
  RegionStats s;
  s.distinct_colours = colours.size();
  const double mean = sum / count;
  s.luminance_variance = sum2 / count - mean * mean;
  s.dark_fraction = static_cast<double>(dark) / count;
  return s;
}

void PrintStats(const char* name, const RegionStats& s) {
  std::printf("%s: %zu colours, luminance variance %.1f, dark fraction %.2f\n", name,
              s.distinct_colours, s.luminance_variance, s.dark_fraction);
}

TEST(ViewerWindow, ScreenshotShowsTheSceneAndTheOverlayWithEvents) {
  ASSERT_NE(std::getenv("DISPLAY"), nullptr) << "run under xvfb-run (ctest does)";
  const std::string png = TempPath("ball_drop.png");
  const std::string record = TempPath("record");
  // 40 frames of 1/60 s: the ball's first touchdown is at 0.436 s
  const RunResult run = RunViewer(Model("ball_drop.xml") + " --keyframe throw --screenshot " + png +
                                  " --frames 40 --width 1280 --height 720 --select-last-event" +
                                  " --record " + record);
  std::printf("%s", run.output.c_str());
  ASSERT_EQ(run.status, 0) << run.output;
  EXPECT_GE(EventsWithXi(run.output), 1) << "the hook reported no touchdown with Xi";

  Image img;
  int channels = 0;
  img.rgb = stbi_load(png.c_str(), &img.width, &img.height, &channels, 3);
  ASSERT_NE(img.rgb, nullptr) << png << ": " << stbi_failure_reason();
  EXPECT_EQ(img.width, 1280);
  EXPECT_EQ(img.height, 720);

  // the control panel (top left): dark panel with text and widgets
  const RegionStats overlay = Stats(img, 20, 40, 320, 280);
  // the middle, between the panels and above the selected-event window: the rendered floor
  const RegionStats scene = Stats(img, 420, 250, 780, 380);
  PrintStats("overlay", overlay);
  PrintStats("scene", scene);
  EXPECT_GT(overlay.dark_fraction, 0.4);
  EXPECT_GE(overlay.distinct_colours, 8u);
  EXPECT_GT(overlay.luminance_variance, 100);
  EXPECT_LT(scene.dark_fraction, 0.2);
  EXPECT_GE(scene.distinct_colours, 20u);
  EXPECT_GT(scene.luminance_variance, 2);
  // and the two differ: the overlay is not drawn over everything, nor missing
  EXPECT_GT(overlay.dark_fraction, scene.dark_fraction + 0.3);

  // the recording: the log's header, then one JSON object per event (the touchdown through
  // EventToJson), a CSV row each; the library's reader takes it (docs/log-format.md)
  const saltation::EventLog log = saltation::ReadEventLog(record + ".jsonl");
  EXPECT_EQ(log.header.source, "viewer");
  EXPECT_NE(log.header.model.find("ball_drop.xml"), std::string::npos) << log.header.model;
  EXPECT_GE(log.records.size(), 1u);
  std::ifstream jsonl(record + ".jsonl"), csv(record + ".csv");
  std::string line, touchdown;
  std::getline(jsonl, line);
  EXPECT_EQ(line.rfind("{\"kind\":\"header\"", 0), 0u) << line.substr(0, 120);
  int lines = 0;
  while (std::getline(jsonl, line)) {
    lines++;
    EXPECT_EQ(line.front(), '{');
    EXPECT_EQ(line.back(), '}');
    if (line.find("\"kind\":\"touchdown\"") != std::string::npos) touchdown = line;
  }
  EXPECT_GE(lines, 1);
  EXPECT_NE(touchdown.find("\"xi\":{\"shape\":"), std::string::npos) << touchdown.substr(0, 200);  // compact (event_json.h)
  EXPECT_NE(touchdown.find("\"geom1\":\"floor\""), std::string::npos) << touchdown.substr(0, 200);
  int rows = 0;
  std::getline(csv, line);
  EXPECT_EQ(line.rfind("time,kind,", 0), 0u) << line;
  while (std::getline(csv, line)) rows++;
  EXPECT_EQ(rows, lines);
}

// pixels of [x0, x1) × [y0, y1) for which `pred(r, g, b)` holds
size_t CountPixels(const Image& img, int x0, int y0, int x1, int y1,
                   const std::function<bool(int, int, int)>& pred) {
  size_t n = 0;
  for (int y = y0; y < y1; y++) {
    for (int x = x0; x < x1; x++) {
      const unsigned char* p = img.rgb + 3 * (static_cast<size_t>(y) * img.width + x);
      n += pred(p[0], p[1], p[2]);
    }
  }
  return n;
}

// the fraction of [x0, x1) × [y0, y1) where two images of the same size agree (every channel
// within `tolerance`)
double FractionSame(const Image& a, const Image& b, int x0, int y0, int x1, int y1, int tolerance) {
  size_t same = 0, count = 0;
  for (int y = y0; y < y1; y++) {
    for (int x = x0; x < x1; x++) {
      const size_t i = 3 * (static_cast<size_t>(y) * a.width + x);
      same += std::abs(a.rgb[i] - b.rgb[i]) <= tolerance && std::abs(a.rgb[i + 1] - b.rgb[i + 1]) <= tolerance &&
              std::abs(a.rgb[i + 2] - b.rgb[i + 2]) <= tolerance;
      count++;
    }
  }
  return static_cast<double>(same) / count;
}

bool LoadImage(const std::string& png, Image* img) {
  int channels = 0;
  img->rgb = stbi_load(png.c_str(), &img->width, &img->height, &channels, 3);
  return img->rgb != nullptr;
}

// At 1280×720, with the panels and the last event's window open, the middle third of the window
// (all its height) is the scene's: it is the same picture as with the panels hidden, and it holds
// the model (pixels of the model's colour).
TEST(ViewerWindow, LayoutLeavesTheCentreThirdToTheScene) {
  ASSERT_NE(std::getenv("DISPLAY"), nullptr) << "run under xvfb-run (ctest does)";
  struct Case {
    const char* name;
    std::string args;
    std::function<bool(int, int, int)> model_colour;
    size_t min_model_pixels;
  };
  const std::vector<Case> cases = {
      // the default model (ball_drop, keyframe throw) just after its first touchdown: the red ball
      {"ball_drop", "--frames 40",
       [](int r, int g, int b) { return r > 90 && r > 2 * g && r > 2 * b; }, 1000},
      // the humanoid falling on its feet: its orange-brown body (rgba 0.8 0.6 0.4, textured)
      {"humanoid", std::string(SALTATION_SOURCE_DIR) + "/tests/models/humanoid/humanoid.xml --frames 30",
       [](int r, int g, int b) { return r > 100 && r > g + 40 && g > b + 15; }, 4000},
  };
  const int w = 1280, h = 720, x0 = w / 3, x1 = 2 * w / 3;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const std::string shown_png = TempPath(std::string(c.name) + "_panels.png");
    const std::string hidden_png = TempPath(std::string(c.name) + "_hidden.png");
    const std::string common = c.args + " --width 1280 --height 720 --select-last-event --screenshot ";
    RunResult run = RunViewer(common + shown_png);
    std::printf("%s", run.output.c_str());
    ASSERT_EQ(run.status, 0) << run.output;
    EXPECT_GE(EventsWithXi(run.output), 1) << "no event to show in the selected-event window";
    run = RunViewer(common + hidden_png + " --hide-panels");
    ASSERT_EQ(run.status, 0) << run.output;
    Image shown, hidden;
    ASSERT_TRUE(LoadImage(shown_png, &shown)) << shown_png;
    ASSERT_TRUE(LoadImage(hidden_png, &hidden)) << hidden_png;
    ASSERT_EQ(shown.width, w);
    ASSERT_EQ(shown.height, h);
    ASSERT_EQ(hidden.width, w);
    ASSERT_EQ(hidden.height, h);

    // the panels are there (left and right columns differ from the bare scene) …
    const double left_same = FractionSame(shown, hidden, 20, 40, 300, 380, 6);
    const double right_same = FractionSame(shown, hidden, w - 390, 40, w - 20, 380, 6);
    // … and none of them reaches into the middle third
    const double centre_same = FractionSame(shown, hidden, x0, 0, x1, h, 6);
    const size_t model_pixels = CountPixels(shown, x0, 0, x1, h, c.model_colour);
    std::printf("%s: same as without panels: left column %.3f, right column %.3f, centre third "
                "%.4f; model-coloured pixels in the centre third: %zu\n",
                c.name, left_same, right_same, centre_same, model_pixels);
    EXPECT_LT(left_same, 0.7) << "no control panel on the left";
    EXPECT_LT(right_same, 0.7) << "no event panel on the right";
    EXPECT_GT(centre_same, 0.995) << "a panel covers part of the centre third";
    EXPECT_GE(model_pixels, c.min_model_pixels) << "the model is not in the centre third";
  }
}

// A robot as MuJoCo Menagerie writes them, with its visual meshes gone: the floor in group 0, the
// body's only geom (a red box) a collision geom in group 3, hidden by MuJoCo's default.
const char* kGroup3Model = R"(<mujoco model="group3">
  <worldbody>
    <light pos="0 0 3" dir="0 0 -1"/>
    <geom name="floor" type="plane" size="3 3 0.1" rgba="0.8 0.8 0.8 1"/>
    <body name="robot" pos="0 0 0.3">
      <freejoint/>
      <geom name="collision" type="box" size="0.2 0.2 0.2" group="3" rgba="0.9 0.1 0.1 1"/>
    </body>
  </worldbody>
</mujoco>
)";

TEST(ViewerWindow, GeomGroupsShowAModelWhoseGeomsAreAllInGroup3) {
  ASSERT_NE(std::getenv("DISPLAY"), nullptr) << "run under xvfb-run (ctest does)";
  const std::string model = TempPath("group3.xml");
  std::ofstream(model) << kGroup3Model;
  auto red = [](int r, int g, int b) { return r > 90 && r > 3 * g && r > 3 * b; };
  auto red_pixels = [&](const std::string& name, const std::string& groups, std::string* output) {
    const std::string png = TempPath(name + ".png");
    const RunResult run = RunViewer(model + " --frames 3 --width 640 --height 480 --hide-panels" +
                                    " --camera 90,-30,2.5,0,0,0.2 --screenshot " + png + groups);
    *output = run.output;
    EXPECT_EQ(run.status, 0) << run.output;
    Image img;
    if (!LoadImage(png, &img)) return size_t{0};
    return CountPixels(img, 0, 0, img.width, img.height, red);
  };
  std::string automatic_output, output;
  const size_t automatic = red_pixels("group3_auto", "", &automatic_output);
  const size_t hidden = red_pixels("group3_off", " --geom-groups 0,1,2", &output);
  const size_t shown = red_pixels("group3_on", " --geom-groups 0,1,2,3", &output);
  std::printf("red pixels: default %zu, groups 0-2 %zu, groups 0-3 %zu\n", automatic, hidden, shown);
  EXPECT_NE(automatic_output.find("no geom in groups 0-2: showing group 3"), std::string::npos)
      << automatic_output;
  EXPECT_GT(automatic, 5000u) << "the model is invisible by default";
  EXPECT_LT(hidden, 50u) << "group 3 is drawn although it is off";
  EXPECT_GT(shown, 5000u);
  EXPECT_EQ(shown, automatic);
}

// Twenty 1-dof balls bouncing on an elastic floor (zero damping) under 40 g: ~1,000 contact
// events per simulated second.
std::string BouncingBallsModel() {
  std::string xml = R"(<mujoco model="bouncing_balls">
  <option timestep="0.0005" gravity="0 0 -400"/>
  <worldbody>
    <light pos="0 0 3" dir="0 0 -1"/>
    <geom name="floor" type="plane" size="1 1 0.1" rgba="0.8 0.8 0.8 1"/>
)";
  for (int i = 0; i < 20; i++) {
    char body[400];
    std::snprintf(body, sizeof(body),
                  "    <body name=\"b%d\" pos=\"%.1f %.1f %.4f\">\n"
                  "      <joint name=\"z%d\" type=\"slide\" axis=\"0 0 1\"/>\n"
                  "      <geom name=\"ball%d\" type=\"sphere\" size=\"0.01\" mass=\"0.01\" "
                  "solref=\"-100000 0\"/>\n    </body>\n",
                  i, 0.1 * (i % 5), 0.1 * (i / 5), 0.011 + 0.0003 * i, i, i);
    xml += body;
  }
  return xml + "  </worldbody>\n</mujoco>\n";
}

// "resident A MB after N frames, B MB at the end; K of T events kept"
struct Memory {
  double early = -1, end = -1;
  long kept = -1, total = -1;
};
Memory ParseMemory(const std::string& output) {
  Memory m;
  std::smatch match;
  if (std::regex_search(output, match, std::regex("resident ([0-9.]+) MB after \\d+ frames, ([0-9.]+) MB "
                                                  "at the end; (\\d+) of (\\d+) events kept"))) {
    m.early = std::stod(match[1]);
    m.end = std::stod(match[2]);
    m.kept = std::stol(match[3]);
    m.total = std::stol(match[4]);
  }
  return m;
}

// issue 17: the viewer's memory grew ≈0.27 MB per event without bound. Over 10,000 events the
// panels keep a ring of the last --history events and the resident memory stays flat from a fifth
// of the run to its end (without the ring, and with the hook keeping its own copies, it grew by
// ~50 MB per 5,000 events on this model).
TEST(ViewerWindow, EventHistoryIsARingAndMemoryStaysFlatOver10000Events) {
  ASSERT_NE(std::getenv("DISPLAY"), nullptr) << "run under xvfb-run (ctest does)";
  const std::string model = TempPath("bouncing_balls.xml");
  std::ofstream(model) << BouncingBallsModel();
  const RunResult run = RunViewer(model + " --frames 500 --width 160 --height 120 --hide-panels" +
                                  " --history 200 --screenshot " + TempPath("bouncing.png"));
  std::printf("%s", run.output.c_str());
  ASSERT_EQ(run.status, 0) << run.output;
  const Memory m = ParseMemory(run.output);
  ASSERT_GE(m.early, 0) << "no memory line in: " << run.output;
  EXPECT_GE(m.total, 10000) << "the model gave fewer events than the test needs";
  EXPECT_EQ(m.kept, 200);
  std::printf("resident memory grew by %.1f MB over the last four fifths of %ld events\n",
              m.end - m.early, m.total);
  EXPECT_LT(m.end - m.early, 5.0) << "memory grows with the number of events";
}

// issue 17: the screenshot mode exited 0 after the run had stopped on a non-finite state. A stiff
// spring integrated with a large explicit step blows up within a few steps.
TEST(ViewerWindow, ScreenshotModeExitsNonZeroWhenTheRunGoesUnstable) {
  ASSERT_NE(std::getenv("DISPLAY"), nullptr) << "run under xvfb-run (ctest does)";
  const std::string model = TempPath("unstable.xml");
  std::ofstream(model) << R"(<mujoco model="unstable">
  <option timestep="0.01" integrator="Euler"/>
  <worldbody>
    <body name="mass" pos="0 0 1">
      <joint name="spring" type="slide" axis="1 0 0" stiffness="1e12" ref="-1"/>
      <geom type="sphere" size="0.1" mass="1"/>
    </body>
  </worldbody>
</mujoco>
)";
  const RunResult run = RunViewer(model + " --frames 30 --width 160 --height 120 --screenshot " +
                                  TempPath("unstable.png"));
  std::printf("%s", run.output.c_str());
  EXPECT_EQ(run.status, 1) << run.output;
  EXPECT_NE(run.output.find("saltation-viewer: stopped: "), std::string::npos) << run.output;
}

// issue 16: the viewer starts where every saltation command starts — the model's first keyframe
// when it has one (here a ball held at 0.5 m by keyframe "lifted"), qpos0 with --keyframe none —
// and says which.
TEST(ViewerWindow, StartsFromTheModelsFirstKeyframeAsTheCommandsDo) {
  ASSERT_NE(std::getenv("DISPLAY"), nullptr) << "run under xvfb-run (ctest does)";
  const std::string model = TempPath("keyed.xml");
  std::ofstream(model) << R"(<mujoco model="keyed">
  <worldbody>
    <geom name="floor" type="plane" size="1 1 .1"/>
    <body name="ball" pos="0 0 1"><freejoint/><geom name="ball" size="0.05"/></body>
  </worldbody>
  <keyframe><key name="lifted" qpos="0 0 0.5 1 0 0 0"/></keyframe>
</mujoco>
)";
  const std::string args = " --frames 2 --width 160 --height 120 --screenshot " + TempPath("keyed.png");
  const RunResult first = RunViewer(model + args);
  EXPECT_EQ(first.status, 0) << first.output;
  EXPECT_NE(first.output.find("saltation-viewer: start: keyframe 'lifted' (the model's first; --keyframe none for qpos0)"),
            std::string::npos) << first.output;
  const RunResult none = RunViewer(model + " --keyframe none" + args);
  EXPECT_EQ(none.status, 0) << none.output;
  EXPECT_NE(none.output.find("saltation-viewer: start: qpos0"), std::string::npos) << none.output;
}

TEST(ViewerWindow, BadModelLoadedMidRunIsShownAndThePreviousModelKeepsRunning) {
  ASSERT_NE(std::getenv("DISPLAY"), nullptr) << "run under xvfb-run (ctest does)";
  const std::string bad = TempPath("broken.xml");
  std::ofstream(bad) << "<mujoco><worldbody><geom type=\"sphere\"/></worldbod></mujoco>\n";
  const std::string png = TempPath("then_load.png");
  const RunResult run = RunViewer(Model("ball_drop.xml") + " --keyframe throw --screenshot " + png +
                            " --frames 40 --width 640 --height 480 --then-load " + bad);
  std::printf("%s", run.output.c_str());
  ASSERT_EQ(run.status, 0) << run.output;
  EXPECT_NE(run.output.find("load error shown: could not load '" + bad + "'"), std::string::npos);
  EXPECT_NE(run.output.find("ball_drop.xml: 40 frames"), std::string::npos) << "model replaced";
  EXPECT_GE(EventsWithXi(run.output), 1) << "the simulation did not go on";
  EXPECT_EQ(access(png.c_str(), R_OK), 0);
}

TEST(ViewerCommandLine, MissingModelFileExitsNonZeroWithTheMessage) {
  const std::string png = TempPath("never.png");
  const RunResult run = RunViewer("/nonexistent/dir/model.xml --screenshot " + png + " --frames 2");
  EXPECT_EQ(run.status, 1) << run.output;
  EXPECT_NE(run.output.find("cannot read model file '/nonexistent/dir/model.xml'"), std::string::npos)
      << run.output;
  EXPECT_NE(access(png.c_str(), F_OK), 0) << "no screenshot for a model that did not load";
}

TEST(ViewerCommandLine, MalformedModelExitsNonZeroWithMujocosMessage) {
  const std::string bad = TempPath("malformed.xml");
  std::ofstream(bad) << "<mujoco><worldbody><geom type=\"sphere\"/></worldbod></mujoco>\n";
  const RunResult run = RunViewer(bad + " --screenshot " + TempPath("never2.png") + " --frames 2");
  EXPECT_EQ(run.status, 1) << run.output;
  EXPECT_NE(run.output.find("could not load '" + bad + "'"), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("XML"), std::string::npos) << "MuJoCo's parser message: " << run.output;
}

TEST(ViewerCommandLine, MissingKeyframeAndBadOptionsAreErrors) {
  RunResult run = RunViewer(Model("ball_drop.xml") + " --keyframe nope --screenshot " +
                      TempPath("never3.png"));
  EXPECT_EQ(run.status, 1) << run.output;
  EXPECT_NE(run.output.find("has no keyframe 'nope'"), std::string::npos) << run.output;
  run = RunViewer("--frames zero --screenshot x.png");
  EXPECT_EQ(run.status, 2) << run.output;
  EXPECT_NE(run.output.find("--frames needs a positive integer"), std::string::npos) << run.output;
  run = RunViewer("--propagation sideways");
  EXPECT_EQ(run.status, 2) << run.output;
  run = RunViewer("--history 0 --screenshot x.png");
  EXPECT_EQ(run.status, 2) << run.output;
  EXPECT_NE(run.output.find("--history needs a positive number of events, got '0'"), std::string::npos) << run.output;
  run = RunViewer("--geom-groups 0,7 --screenshot x.png");
  EXPECT_EQ(run.status, 2) << run.output;
  EXPECT_NE(run.output.find("--geom-groups needs a comma-separated list of groups 0-5, got '0,7'"),
            std::string::npos) << run.output;
}

// ---- ViewerInput: the interactive viewer in a real window, driven with xdotool ----------------

double Now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

void Sleep(double seconds) { std::this_thread::sleep_for(std::chrono::duration<double>(seconds)); }

// one --status-log line: "wall=… input=… t=… paused=… speed=… selected=… pos=… perturb=…
// camera=… contacts=… forces=… panels=…"
struct Status {
  std::map<std::string, std::string> field;
  std::string line;
  std::string operator[](const std::string& key) const {
    auto it = field.find(key);
    return it == field.end() ? "" : it->second;
  }
  double Num(const std::string& key) const { return std::atof((*this)[key].c_str()); }
  bool Paused() const { return (*this)["paused"] == "1"; }
  // the selected body's position (x, y, z); empty when nothing is selected
  std::vector<double> Pos() const {
    std::vector<double> p;
    std::stringstream in((*this)["pos"]);
    std::string v;
    while (std::getline(in, v, ',')) p.push_back(std::atof(v.c_str()));
    return p.size() == 3 ? p : std::vector<double>{};
  }
};

Status ParseStatus(const std::string& line) {
  Status s;
  s.line = line;
  std::stringstream in(line);
  std::string token;
  while (in >> token) {
    const size_t eq = token.find('=');
    if (eq != std::string::npos) s.field[token.substr(0, eq)] = token.substr(eq + 1);
  }
  return s;
}

double HorizontalDistance(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != 3 || b.size() != 3) return NAN;
  return std::hypot(a[0] - b[0], a[1] - b[1]);
}

// The viewer as a child process (working directory `dir`, output to dir/viewer.out), with its
// status log; killed when this goes out of scope.
class InteractiveViewer {
 public:
  ~InteractiveViewer() { Kill(); }

  bool Start(const std::string& dir, const std::vector<std::string>& args) {
    log_path_ = dir + "/status.log";
    out_path_ = dir + "/viewer.out";
    std::vector<std::string> argv = {SALTATION_VIEWER};
    argv.insert(argv.end(), args.begin(), args.end());
    argv.push_back("--status-log");
    argv.push_back(log_path_);
    pid_ = fork();
    if (pid_ < 0) return false;
    if (pid_ == 0) {
      const int fd = open(out_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (fd >= 0) {
        dup2(fd, 1);
        dup2(fd, 2);
      }
      if (chdir(dir.c_str()) != 0) _exit(126);
      std::vector<char*> cargv;
      for (std::string& a : argv) cargv.push_back(&a[0]);
      cargv.push_back(nullptr);
      execv(cargv[0], cargv.data());
      _exit(127);
    }
    return true;
  }

  // waits up to `timeout` s for the viewer to exit; its exit status, or -1
  int WaitExit(double timeout) {
    const double end = Now() + timeout;
    while (pid_ > 0 && Now() < end) {
      int status = 0;
      if (waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
      }
      Sleep(0.05);
    }
    return -1;
  }

  void Kill() {
    if (pid_ <= 0) return;
    kill(pid_, SIGTERM);  // the viewer ends its loop cleanly on SIGTERM
    if (WaitExit(3) < 0 && pid_ > 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
      pid_ = -1;
    }
  }

  bool Running() {
    return pid_ > 0 && waitpid(pid_, nullptr, WNOHANG) == 0;
  }

  std::string Output() const {
    std::ifstream in(out_path_);
    std::stringstream all;
    all << in.rdbuf();
    return all.str();
  }

  // every complete line of the status log so far
  const std::vector<Status>& Lines() {
    std::ifstream in(log_path_);
    in.seekg(static_cast<std::streamoff>(offset_));
    std::string chunk((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    size_t start = 0, newline;
    while ((newline = chunk.find('\n', start)) != std::string::npos) {
      lines_.push_back(ParseStatus(chunk.substr(start, newline - start)));
      start = newline + 1;
    }
    offset_ += start;
    return lines_;
  }

  // the first line at index >= from that satisfies `accept`, waiting up to `timeout` s
  bool WaitFor(size_t from, const std::function<bool(const Status&)>& accept, double timeout,
               Status* out) {
    const double end = Now() + timeout;
    do {
      const std::vector<Status>& lines = Lines();
      for (size_t i = from; i < lines.size(); i++) {
        if (accept(lines[i])) {
          *out = lines[i];
          return true;
        }
      }
      Sleep(0.02);
    } while (Now() < end);
    return false;
  }

  // the first "tick" line (every 0.5 s) written at least `seconds` of the viewer's wall time
  // after the line `after`
  bool WaitTick(const Status& after, double seconds, Status* out) {
    const double wall = after.Num("wall") + seconds;
    return WaitFor(0, [&](const Status& s) { return s["input"] == "tick" && s.Num("wall") >= wall; },
                   seconds + 3, out);
  }

 private:
  pid_t pid_ = -1;
  std::string log_path_, out_path_;
  size_t offset_ = 0;
  std::vector<Status> lines_;
};

// runs xdotool (bounded by timeout(1)); true when it succeeded
bool Xdo(const std::string& args) {
  const std::string command = "timeout 10 xdotool " + args + " 2>&1 >/dev/null";
  std::string err;
  std::FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return false;
  char buf[256];
  while (std::fgets(buf, sizeof(buf), pipe)) err += buf;
  const int status = pclose(pipe);
  if (status != 0) std::fprintf(stderr, "xdotool %s: exit %d %s\n", args.c_str(), status, err.c_str());
  return status == 0;
}

std::string XdoOutput(const std::string& args) {
  std::string out;
  std::FILE* pipe = popen(("timeout 10 xdotool " + args + " 2>/dev/null").c_str(), "r");
  if (!pipe) return out;
  char buf[256];
  while (std::fgets(buf, sizeof(buf), pipe)) out += buf;
  pclose(pipe);
  return out;
}

bool LoadPng(const std::string& path, Image* img, double timeout) {
  const double end = Now() + timeout;
  do {
    int channels = 0;
    img->rgb = stbi_load(path.c_str(), &img->width, &img->height, &channels, 3);
    if (img->rgb) return true;
    Sleep(0.05);
  } while (Now() < end);
  return false;
}

// A ball at rest on a lit floor, seen from above at 45° (the floor fills the picture), a fixed
// camera, and a keyframe at t = 3 s.
constexpr double kTimestep = 0.002;
constexpr double kKeyTime = 3;
const char* kInputModel = R"(<mujoco model="input_test">
  <option timestep="0.002"/>
  <worldbody>
    <light pos="0 0 3" dir="0 0 -1"/>
    <geom name="floor" type="plane" size="6 6 0.1" rgba="0.8 0.8 0.8 1"/>
    <camera name="above" pos="0 0 3"/>
    <body name="ball" pos="0 0 0.1">
      <freejoint name="ball"/>
      <geom name="ball" type="sphere" size="0.1" mass="1" rgba="0.9 0.3 0.2 1"/>
    </body>
  </worldbody>
  <keyframe>
    <key name="rest" time="3" qpos="0 0 0.1 1 0 0 0"/>
  </keyframe>
</mujoco>
)";

class ViewerInput : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_NE(std::getenv("DISPLAY"), nullptr) << "run under xvfb-run (ctest does)";
    ASSERT_EQ(std::system("command -v xdotool >/dev/null"), 0)
        << "xdotool is not installed (scripts/bootstrap installs it)";
    char dir_template[] = "/tmp/saltation_viewer_input_XXXXXX";
    ASSERT_NE(mkdtemp(dir_template), nullptr);
    dir_ = dir_template;
    model_ = dir_ + "/input_test.xml";
    std::ofstream(model_) << kInputModel;
  }

  void TearDown() override {
    viewer_.Kill();
    if (HasFailure()) {
      std::printf("---- viewer output ----\n%s---- status log ----\n", viewer_.Output().c_str());
      for (const Status& s : viewer_.Lines()) std::printf("%s\n", s.line.c_str());
    }
    if (!dir_.empty()) std::system(("rm -rf '" + dir_ + "'").c_str());
  }

  // sends `xdo` (xdotool commands) and returns the status line of the input `input`
  Status Send(const std::string& xdo, const std::string& input) {
    const size_t from = viewer_.Lines().size();
    EXPECT_TRUE(Xdo(xdo)) << "xdotool " << xdo;
    Status s;
    EXPECT_TRUE(viewer_.WaitFor(from, [&](const Status& l) { return l["input"] == input; }, 5, &s))
        << "no status line with input=" << input << " after xdotool " << xdo;
    return s;
  }
  Status Key(const std::string& keysym, const std::string& input) {
    return Send("key --clearmodifiers " + keysym, input);
  }
  // xdotool commands that put the pointer at (x, y) of the window, then wait a quarter second: the
  // viewer draws a few frames before the next input, so Dear ImGui's hover state is the new
  // position's (a click sent at once after closing the F1 overlay went to the overlay under load)
  std::string At(int x, int y) const {
    return "mousemove --window " + window_ + " " + std::to_string(x) + " " + std::to_string(y) + " sleep 0.25";
  }

  // the viewer's mapped window (its id in window_): GLFW may create and destroy a window of the
  // same name first, which a plain search can return (BadWindow afterwards)
  bool FindWindow() {
    window_ = XdoOutput("search --sync --onlyvisible --name '^saltation-viewer$'");
    window_ = window_.substr(0, window_.find('\n'));
    return !window_.empty();
  }
  // the pointer on the scene and the focus on the window (no window manager: keys go to the
  // window under the pointer), the window looked up again while it cannot take the focus
  bool FocusWindow(double seconds) {
    const double end = Now() + seconds;
    while (!Xdo(At(640, 360) + " windowfocus " + window_)) {
      if (Now() > end) return false;
      usleep(100000);
      FindWindow();
    }
    return true;
  }

  std::string dir_, model_, window_;
  InteractiveViewer viewer_;
};

TEST_F(ViewerInput, KeysAndMouseFollowMujocoSimulateConventions) {
  const double test_start = Now();
  // the free camera looks at the ball (at rest at the origin, centre 0.1 m up) from 45° above
  ASSERT_TRUE(viewer_.Start(dir_, {model_, "--keyframe", "rest", "--width", "1280", "--height",
                                   "720", "--camera", "90,-45,1.2,0,0,0.1"}));
  ASSERT_TRUE(FindWindow()) << "no window named saltation-viewer within 10 s";
  Status s;
  ASSERT_TRUE(viewer_.WaitFor(0, [](const Status& l) { return l["input"] == "start"; }, 10, &s));
  EXPECT_EQ(s["paused"], "0");
  EXPECT_EQ(s.Num("speed"), 1);
  EXPECT_GE(s.Num("t"), kKeyTime);
  EXPECT_EQ(s["camera"], "free");
  EXPECT_EQ(s["selected"], "0");
  EXPECT_EQ(s["contacts"], "0");
  EXPECT_EQ(s["forces"], "0");
  EXPECT_EQ(s["panels"], "1");
  // keys go to the window under the pointer (no window manager): the pointer on the scene
  ASSERT_TRUE(FocusWindow(10)) << "the window cannot take the focus";

  // running: simulated time advances
  Status running;
  ASSERT_TRUE(viewer_.WaitTick(s, 0.5, &running));
  EXPECT_GT(running.Num("t"), s.Num("t")) << "the simulation does not run";

  // Space pauses: the time stays where it was
  const Status paused = Key("space", "key:space");
  EXPECT_EQ(paused["paused"], "1");
  Status later;
  ASSERT_TRUE(viewer_.WaitTick(paused, 0.6, &later));
  EXPECT_EQ(later["paused"], "1");
  EXPECT_EQ(later["t"], paused["t"]) << "time advanced while paused";

  // Right (while paused): exactly one step of the model's timestep each
  const Status step1 = Key("Right", "key:right");
  EXPECT_NEAR(step1.Num("t") - paused.Num("t"), kTimestep, 1e-9);
  const Status step2 = Key("Right", "key:right");
  EXPECT_NEAR(step2.Num("t") - step1.Num("t"), kTimestep, 1e-9);
  EXPECT_EQ(step2["paused"], "1");

  // Backspace: back to the keyframe's time, still paused
  const Status reset = Key("BackSpace", "key:backspace");
  EXPECT_EQ(reset.Num("t"), kKeyTime);
  EXPECT_EQ(reset["paused"], "1");

  // Space again: runs from there
  const Status resumed = Key("space", "key:space");
  EXPECT_EQ(resumed["paused"], "0");
  ASSERT_TRUE(viewer_.WaitTick(resumed, 0.5, &later));
  EXPECT_GT(later.Num("t"), kKeyTime) << "time does not advance after resuming";

  // + / − and = / keypad: the slow-motion factor steps through 4, 2, 1, ½, ¼, 0.1, …
  EXPECT_EQ(Key("plus", "key:shift+=").Num("speed"), 2);
  EXPECT_EQ(Key("plus", "key:shift+=").Num("speed"), 4);
  EXPECT_EQ(Key("plus", "key:shift+=").Num("speed"), 4) << "4x is the fastest";
  EXPECT_EQ(Key("minus", "key:-").Num("speed"), 2);
  EXPECT_EQ(Key("KP_Subtract", "key:kp_subtract").Num("speed"), 1);
  EXPECT_EQ(Key("minus", "key:-").Num("speed"), 0.5);
  EXPECT_EQ(Key("minus", "key:-").Num("speed"), 0.25);
  const Status slow = Key("minus", "key:-");
  EXPECT_EQ(slow.Num("speed"), 0.1);
  // at 0.1× the physics follows: about 0.1 s of simulated time per second
  ASSERT_TRUE(viewer_.WaitTick(slow, 1.0, &later));
  const double slow_rate = (later.Num("t") - slow.Num("t")) / (later.Num("wall") - slow.Num("wall"));
  std::printf("simulated seconds per wall second at 0.1x: %.3f\n", slow_rate);
  EXPECT_GT(slow_rate, 0.02);
  EXPECT_LT(slow_rate, 0.2);
  EXPECT_EQ(Key("KP_Add", "key:kp_add").Num("speed"), 0.25);
  EXPECT_EQ(Key("equal", "key:=").Num("speed"), 0.5);
  EXPECT_EQ(Key("equal", "key:=").Num("speed"), 1);

  // C and F: contact points and forces on and off
  EXPECT_EQ(Key("c", "key:c")["contacts"], "1");
  EXPECT_EQ(Key("f", "key:f")["forces"], "1");
  s = Key("c", "key:c");
  EXPECT_EQ(s["contacts"], "0");
  EXPECT_EQ(s["forces"], "1");
  EXPECT_EQ(Key("f", "key:f")["forces"], "0");

  // F1: the help overlay on and off; 0–5: geom groups (MuJoCo's default shows 0, 1, 2)
  EXPECT_EQ(s["groups"], "012");
  EXPECT_EQ(s["help"], "0");
  EXPECT_EQ(Key("F1", "key:f1")["help"], "1");
  EXPECT_EQ(Key("F1", "key:f1")["help"], "0");
  EXPECT_EQ(Key("3", "key:3")["groups"], "0123");
  EXPECT_EQ(Key("0", "key:0")["groups"], "123");
  EXPECT_EQ(Key("0", "key:0")["groups"], "0123");
  EXPECT_EQ(Key("3", "key:3")["groups"], "012");

  // Tab hides the panels: Ctrl+P screenshots (in the working directory) before and after
  Key("ctrl+p", "key:ctrl+p");
  Image shown, hidden;
  ASSERT_TRUE(LoadPng(dir_ + "/saltation-screenshot-1.png", &shown, 5)) << "Ctrl+P wrote nothing";
  EXPECT_EQ(Key("Tab", "key:tab")["panels"], "0");
  Key("ctrl+p", "key:ctrl+p");
  ASSERT_TRUE(LoadPng(dir_ + "/saltation-screenshot-2.png", &hidden, 5)) << "Ctrl+P wrote nothing";
  ASSERT_EQ(shown.width, 1280);
  ASSERT_EQ(hidden.width, 1280);
  ASSERT_EQ(shown.height, 720);
  ASSERT_EQ(hidden.height, 720);
  // the control panel (top left) and the events panel (top right): dark panels, then the floor
  for (const int x0 : {20, 850}) {
    const RegionStats before = Stats(shown, x0, 40, x0 + 300, 280);
    const RegionStats after = Stats(hidden, x0, 40, x0 + 300, 280);
    PrintStats(x0 < 640 ? "control panel, shown" : "events panel, shown", before);
    PrintStats(x0 < 640 ? "control panel region, hidden" : "events panel region, hidden", after);
    EXPECT_GT(before.dark_fraction, 0.4);
    EXPECT_LT(after.dark_fraction, 0.05) << "the panel region is not the scene";
  }
  // the middle is the scene in both (the panels never covered it)
  EXPECT_LT(Stats(shown, 560, 300, 720, 420).dark_fraction, 0.05);
  EXPECT_EQ(Key("Tab", "key:tab")["panels"], "1");

  // F1 draws the help overlay in the middle of the window (over the scene), F1 again removes it
  EXPECT_EQ(Key("F1", "key:f1")["help"], "1");
  Key("ctrl+p", "key:ctrl+p");
  Image help;
  ASSERT_TRUE(LoadPng(dir_ + "/saltation-screenshot-3.png", &help, 5)) << "Ctrl+P wrote nothing";
  const RegionStats help_centre = Stats(help, 560, 300, 720, 420);
  PrintStats("centre with the F1 help", help_centre);
  EXPECT_GT(help_centre.dark_fraction, 0.4) << "no help overlay in the middle";
  EXPECT_EQ(Key("F1", "key:f1")["help"], "0");

  // double-click left on the ball selects it; on the floor deselects
  s = Send(At(640, 360) + " click --repeat 2 --delay 60 1", "mouse:left:double-click");
  EXPECT_EQ(s["selected"], "1:ball");
  s = Send(At(640, 640) + " click --repeat 2 --delay 60 1", "mouse:left:double-click");
  EXPECT_EQ(s["selected"], "0");
  s = Send(At(640, 360) + " click --repeat 2 --delay 60 1", "mouse:left:double-click");
  EXPECT_EQ(s["selected"], "1:ball");

  // Ctrl + double-click right on the ball tracks it; Esc returns to the free camera
  s = Send(At(640, 360) + " keydown ctrl click --repeat 2 --delay 60 3 keyup ctrl",
           "mouse:ctrl+right:double-click");
  EXPECT_EQ(s["camera"], "tracking:1");
  EXPECT_EQ(Key("Escape", "key:escape")["camera"], "free");
  // ] and [ cycle free → the model's camera → free; Esc from a fixed camera
  EXPECT_EQ(Key("bracketright", "key:]")["camera"], "fixed:0");
  EXPECT_EQ(Key("bracketright", "key:]")["camera"], "free");
  EXPECT_EQ(Key("bracketleft", "key:[")["camera"], "fixed:0");
  EXPECT_EQ(Key("Escape", "key:escape")["camera"], "free");

  // unperturbed, the selected ball stays where it rests
  ASSERT_TRUE(viewer_.WaitTick(s, 0, &s));
  Status unperturbed;
  ASSERT_TRUE(viewer_.WaitTick(s, 0.6, &unperturbed));
  ASSERT_EQ(s.Pos().size(), 3u) << s.line;
  EXPECT_LT(HorizontalDistance(s.Pos(), unperturbed.Pos()), 1e-4) << "the ball moves by itself";
  EXPECT_GT(unperturbed.Num("t"), s.Num("t") + 0.1) << "not running";

  // track the ball, so that it stays under the pointer (the middle of the window) when it moves
  s = Send(At(640, 360) + " keydown ctrl click --repeat 2 --delay 60 3 keyup ctrl",
           "mouse:ctrl+right:double-click");
  EXPECT_EQ(s["camera"], "tracking:1");

  // Ctrl + right drag on it while running: a force pulls it sideways
  size_t from = viewer_.Lines().size();
  std::string drag = At(640, 360) + " keydown ctrl mousedown 3";
  for (int x = 660; x <= 780; x += 20) drag += " sleep 0.03 " + At(x, 360);
  drag += " sleep 1 mouseup 3 keyup ctrl";
  Status released = Send(drag, "mouse:ctrl+right:release");
  Status pressed;
  ASSERT_TRUE(viewer_.WaitFor(from, [](const Status& l) { return l["input"] == "mouse:ctrl+right:press"; },
                              0, &pressed));
  EXPECT_EQ(pressed["perturb"], "translate");
  EXPECT_EQ(released["perturb"], "none");
  EXPECT_EQ(released["paused"], "0");
  double moved = HorizontalDistance(unperturbed.Pos(), released.Pos());
  std::printf("running: the perturbation moved the ball by %.3f m in %.2f s\n", moved,
              released.Num("wall") - pressed.Num("wall"));
  EXPECT_GT(moved, 0.03) << "Ctrl+right drag did not move the ball";

  // paused, the same drag moves the body itself (its pose), and the time stays
  ASSERT_TRUE(viewer_.WaitTick(released, 0.3, &s));  // the tracking camera has caught up
  const Status before_pose = Key("space", "key:space");
  EXPECT_EQ(before_pose["paused"], "1");
  from = viewer_.Lines().size();
  drag = At(640, 360) + " keydown ctrl mousedown 3";
  for (int x = 620; x >= 500; x -= 20) drag += " sleep 0.03 " + At(x, 360);
  drag += " sleep 0.3 mouseup 3 keyup ctrl";
  released = Send(drag, "mouse:ctrl+right:release");
  ASSERT_TRUE(viewer_.WaitFor(from, [](const Status& l) { return l["input"] == "mouse:ctrl+right:press"; },
                              0, &pressed));
  EXPECT_EQ(pressed["perturb"], "translate");
  EXPECT_EQ(released["t"], before_pose["t"]) << "time advanced while paused";
  moved = HorizontalDistance(before_pose.Pos(), released.Pos());
  std::printf("paused: the perturbation moved the ball by %.3f m\n", moved);
  EXPECT_GT(moved, 0.03) << "Ctrl+right drag while paused did not move the ball";

  // Esc: back to the free camera
  EXPECT_EQ(Key("Escape", "key:escape")["camera"], "free");

  // Ctrl+Q quits: the log's last line, exit status 0
  const size_t before_quit = viewer_.Lines().size();
  EXPECT_TRUE(Xdo("key --clearmodifiers ctrl+q"));
  EXPECT_EQ(viewer_.WaitExit(5), 0) << "Ctrl+Q did not end the viewer";
  EXPECT_TRUE(viewer_.WaitFor(before_quit, [](const Status& l) { return l["input"] == "exit"; }, 1, &s));
  std::printf("ViewerInput took %.1f s\n", Now() - test_start);
}

}  // namespace
