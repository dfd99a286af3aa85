// The viewer as a user runs it. ViewerWindow.* need an X display (ctest runs them under
// xvfb-run); ViewerCommandLine.* do not open a window.
#include <gtest/gtest.h>
#include <stb_image.h>  // stbi_load is compiled into libstb
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <set>
#include <string>

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

  // the recording: one JSON object per event (the touchdown through EventToJson), a CSV row each
  std::ifstream jsonl(record + ".jsonl"), csv(record + ".csv");
  std::string line, touchdown;
  int lines = 0;
  while (std::getline(jsonl, line)) {
    lines++;
    EXPECT_EQ(line.front(), '{');
    EXPECT_EQ(line.back(), '}');
    if (line.find("\"kind\":\"touchdown\"") != std::string::npos) touchdown = line;
  }
  EXPECT_GE(lines, 1);
  EXPECT_NE(touchdown.find("\"xi\":[["), std::string::npos) << touchdown.substr(0, 200);
  EXPECT_NE(touchdown.find("\"geom1\":\"floor\""), std::string::npos) << touchdown.substr(0, 200);
  int rows = 0;
  std::getline(csv, line);
  EXPECT_EQ(line.rfind("time,kind,", 0), 0u) << line;
  while (std::getline(csv, line)) rows++;
  EXPECT_EQ(rows, lines);
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
}

}  // namespace
