// The engine plugin saltation.events: mj_step of the model with the plugin's instance and sensor
// against the model without it and against hook.Step (events only), 1000 steps each from the same
// state, side by side in every iteration. PluginOverhead/<model>: ratio_plugin_to_plain,
// ratio_hook_to_plain, plugin_events (not in the quick mode).
#include <benchmark/benchmark.h>

#include <fstream>
#include <sstream>
#include <stdexcept>

#include "bench_util.h"

namespace bench {
namespace {

// the model's MJCF text with the engine plugin's instance and sensor added
saltation::ModelPtr LoadWithPlugin(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  std::string xml = text.str();
  const size_t end = xml.rfind("</mujoco>");
  if (end == std::string::npos) throw std::runtime_error("not an MJCF file: " + path);
  xml.insert(end, R"(<extension><plugin plugin="saltation.events"><instance name="events"/></plugin></extension>
<sensor><plugin name="saltation" instance="events"/></sensor>
)");
  return LoadXmlText(xml);
}

std::string ModelPath(const std::string& name) {
  if (name == "humanoid") return SALTATION_MUJOCO_MODELS "/humanoid/humanoid.xml";
  return SALTATION_SOURCE_DIR "/models/" + name + ".xml";
}

void PluginOverhead(benchmark::State& state, const std::string& name) {
  mj_loadPluginLibrary(SALTATION_PLUGIN_LIBRARY);
  saltation::ModelPtr plain = LoadNamed(name), with = LoadWithPlugin(ModelPath(name)), hooked = LoadNamed(name);
  saltation::Hook hook(hooked.get());
  saltation::DataPtr d1(mj_makeData(plain.get())), d2(mj_makeData(with.get())), d3(mj_makeData(hooked.get()));
  double t_plain = 0, t_plugin = 0, t_hook = 0;
  for (auto _ : state) {
    const std::pair<const mjModel*, mjData*> runs[] = {{plain.get(), d1.get()}, {with.get(), d2.get()},
                                                       {hooked.get(), d3.get()}};
    for (const auto& [m, d] : runs) ResetToStart(m, d);
    hook.Reset(d3.get());
    auto t0 = Clock::now();
    for (int k = 0; k < 1000; k++) mj_step(plain.get(), d1.get());
    auto t1 = Clock::now();
    for (int k = 0; k < 1000; k++) mj_step(with.get(), d2.get());
    auto t2 = Clock::now();
    for (int k = 0; k < 1000; k++) hook.Step(d3.get());
    auto t3 = Clock::now();
    t_plain += Seconds(t1 - t0);
    t_plugin += Seconds(t2 - t1);
    t_hook += Seconds(t3 - t2);
  }
  state.counters["plain_us_per_step"] = 1e6 * t_plain / (1000.0 * state.iterations());
  state.counters["ratio_plugin_to_plain"] = t_plugin / t_plain;
  state.counters["ratio_hook_to_plain"] = t_hook / t_plain;
  state.counters["plugin_events"] = d2->sensordata[with->sensor_adr[with->nsensor - 1]];
}

}  // namespace

void RegisterPlugin() {
  if (Quick()) return;
  for (const char* name : {"humanoid", "ball_drop"}) {
    const std::string n = name;
    benchmark::RegisterBenchmark(("PluginOverhead/" + n).c_str(), [=](benchmark::State& s) { PluginOverhead(s, n); })
        ->Unit(benchmark::kMillisecond)
        ->Iterations(n == "humanoid" ? 5 : 20);
  }
}

}  // namespace bench
