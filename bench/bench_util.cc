#include "bench_util.h"

#include <malloc.h>
#include <time.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "bench_families.h"

namespace bench {
namespace {
bool g_quick = false;
bool g_twenty_two = false;

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

saltation::ModelPtr LoadFile(const std::string& path) {
  char error[1000] = "";
  saltation::ModelPtr m(mj_loadXML(path.c_str(), nullptr, error, sizeof(error)));
  if (!m) throw std::runtime_error("cannot load " + path + ": " + error);
  return m;
}
}  // namespace

saltation::ModelPtr LoadXmlText(const std::string& xml) {
  const std::string path = "/tmp/saltation_bench_" + std::to_string(getpid()) + ".xml";
  std::ofstream(path) << xml;
  saltation::ModelPtr m = LoadFile(path);
  std::remove(path.c_str());
  return m;
}

saltation::ModelPtr LoadNamed(const std::string& name) {
  const std::string humanoids = SALTATION_MUJOCO_MODELS "/humanoid/";
  if (name == "humanoid") return LoadFile(humanoids + "humanoid.xml");
  if (name == "22_humanoids") return LoadFile(humanoids + "22_humanoids.xml");
  if (name == "humanoid100") return LoadXmlText(families::HumanoidWithObjects(ReadFile(humanoids + "humanoid.xml"), 100));
  if (name.rfind("level_balls", 0) == 0) return LoadXmlText(families::Balls(std::stoi(name.substr(11)), 0.0));
  if (name.rfind("balls", 0) == 0) return LoadXmlText(families::Balls(std::stoi(name.substr(5))));
  return LoadFile(SALTATION_SOURCE_DIR "/models/" + name + ".xml");
}

double Seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

double ThreadCpuSeconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

void ResetToStart(const mjModel* m, mjData* d) {
  const int key = mj_name2id(m, mjOBJ_KEY, "throw");
  if (key >= 0) {
    mj_resetDataKeyframe(m, d, key);
  } else {
    mj_resetData(m, d);
  }
}

double HeapInUse() {
  const struct mallinfo2 info = mallinfo2();
  return static_cast<double>(info.uordblks) + static_cast<double>(info.hblkhd);
}

double Resident() {
  std::ifstream statm("/proc/self/statm");
  double size = 0, resident = 0;
  if (!(statm >> size >> resident)) return 0;
  return resident * static_cast<double>(sysconf(_SC_PAGESIZE));
}

bool Quick() { return g_quick; }
void SetQuick(bool quick) { g_quick = quick; }
bool TwentyTwo() { return g_twenty_two; }
void SetTwentyTwo(bool on) { g_twenty_two = on; }

}  // namespace bench
