// The MJCF configuration of a `saltation.events` instance:
//
//   <extension><plugin plugin="saltation.events">
//     <instance name="events">
//       <config key="restitution" value="auto"/>       <!-- a number in [0, 1], or "auto" -->
//       <config key="grazing" value="0.01"/>           <!-- grazing threshold (dimensionless) -->
//       <config key="log" value="events.jsonl"/>       <!-- JSON Lines, appended as events happen -->
//       <config key="propagation" value="events"/>     <!-- events | rigid | compliant | both -->
//     </instance>
//   </plugin></extension>
//
// Every key is optional: without `restitution` the per-geom <custom> fields (or the model-wide
// default) apply, as for the hook. (model, instance) => PluginConfig; ConfigError naming the key
// and the value on a bad value.
#ifndef SALTATION_PLUGIN_ENGINE_PLUGIN_CONFIG_H_
#define SALTATION_PLUGIN_ENGINE_PLUGIN_CONFIG_H_

#include <mujoco/mujoco.h>

#include <string>

#include "saltation/hook_event.h"

namespace saltation {

inline constexpr const char* kEventsPluginName = "saltation.events";
inline constexpr const char* kEventsPluginKeys[] = {"restitution", "grazing", "log", "propagation"};

struct PluginConfig {
  HookOptions hook;      // what the instance's hook is given
  std::string log_path;  // empty: no log
};

PluginConfig ParsePluginConfig(const mjModel* m, int instance);

}  // namespace saltation

#endif  // SALTATION_PLUGIN_ENGINE_PLUGIN_CONFIG_H_
