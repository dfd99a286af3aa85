// Registers the MuJoCo engine plugin `saltation.events` when the library is loaded
// (mj_loadPluginLibrary, simulate's plugin directory, or linking it). Each callback is a thin
// door into EventsInstance; C++ exceptions never cross into MuJoCo: they become mju_error with
// the same message.
//
// The instance's own hook steps private mjData of a copy of the model, which carry the plugin
// too: while an instance works (and while it is being made), plugin instances created on this
// thread are dormant (plugin_data 0), so the plugin never follows its own shadow.
#include <mujoco/mujoco.h>

#include <exception>
#include <string>

#include "events_instance.h"
#include "plugin_config.h"

namespace saltation {
namespace {

thread_local int busy = 0;  // > 0 while an instance works on this thread

struct Busy {
  Busy() { busy++; }
  ~Busy() { busy--; }
};

EventsInstance* InstanceOf(const mjData* d, int instance) {
  return reinterpret_cast<EventsInstance*>(d->plugin_data[instance]);
}

// Runs f; an exception becomes mju_error with its message, raised after f's scope (and the Busy
// count) is left: MuJoCo's error handler may longjmp, skipping destructors.
template <class F>
void Guarded(F&& f) {
  std::string error;
  try {
    f();
  } catch (const std::exception& e) {
    error = e.what();
  }
  if (!error.empty()) mju_error("%s", error.c_str());
}

int NumSensorValues(const mjModel* m, int instance, int sensor_id) {
  int n = kSensorSize;
  // compile time: a bad config is a load error naming the key
  Guarded([&] { ParsePluginConfig(m, instance); });
  return n;
}

int Init(const mjModel* m, mjData* d, int instance) {
  d->plugin_data[instance] = 0;
  if (busy) return 0;  // the instance's own shadow data: dormant
  Guarded([&] {
    Busy b;
    d->plugin_data[instance] = reinterpret_cast<uintptr_t>(new EventsInstance(m, instance));
  });
  return 0;
}

void Destroy(mjData* d, int instance) {
  delete InstanceOf(d, instance);
  d->plugin_data[instance] = 0;
}

void Copy(mjData* dest, const mjModel* m, const mjData* src, int instance) {
  if (EventsInstance* e = InstanceOf(dest, instance)) e->Restart();
}

void Reset(const mjModel* m, mjtNum* plugin_state, void* plugin_data, int instance) {
  if (auto* e = reinterpret_cast<EventsInstance*>(plugin_data)) e->Reset();
}

void Compute(const mjModel* m, mjData* d, int instance, int capability_bit) {
  EventsInstance* e = InstanceOf(d, instance);
  if (!e || busy) return;
  Guarded([&] {
    Busy b;
    e->Compute(m, d, instance);
  });
}

void Visualize(const mjModel* m, mjData* d, const mjvOption* opt, mjvScene* scn, int instance) {
  if (const EventsInstance* e = InstanceOf(d, instance)) e->Visualize(m, d, scn);
}

}  // namespace
}  // namespace saltation

mjPLUGIN_LIB_INIT(saltation_events) {
  mjpPlugin plugin;
  mjp_defaultPlugin(&plugin);
  plugin.name = saltation::kEventsPluginName;
  plugin.capabilityflags |= mjPLUGIN_SENSOR;
  plugin.nattribute = sizeof(saltation::kEventsPluginKeys) / sizeof(saltation::kEventsPluginKeys[0]);
  plugin.attributes = saltation::kEventsPluginKeys;
  plugin.needstage = mjSTAGE_ACC;  // after the constraint forces: the release guard reads them
  plugin.nstate = +[](const mjModel*, int) { return 0; };  // no state: physics untouched
  plugin.nsensordata = saltation::NumSensorValues;
  plugin.init = saltation::Init;
  plugin.destroy = saltation::Destroy;
  plugin.copy = saltation::Copy;
  plugin.reset = saltation::Reset;
  plugin.compute = saltation::Compute;
  plugin.visualize = saltation::Visualize;
  mjp_registerPlugin(&plugin);
}
