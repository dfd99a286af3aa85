#include "plugin_config.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>

#include "saltation/errors.h"

namespace saltation {
namespace {

// the value of a key, "" when not given
std::string Value(const mjModel* m, int instance, const char* key) {
  const char* v = mj_getPluginConfig(m, instance, key);
  return v ? std::string(v) : std::string();
}

double Number(const std::string& key, const std::string& text) {
  char* end = nullptr;
  errno = 0;
  const double x = std::strtod(text.c_str(), &end);
  while (end && (*end == ' ' || *end == '\t')) end++;
  if (text.empty() || errno != 0 || !end || *end != '\0' || !std::isfinite(x)) {
    throw ConfigError(std::string(kEventsPluginName) + ": config '" + key + "' must be a number, not '" +
                      text + "'");
  }
  return x;
}

}  // namespace

PluginConfig ParsePluginConfig(const mjModel* m, int instance) {
  PluginConfig config;
  HookOptions& o = config.hook;
  const std::string restitution = Value(m, instance, "restitution");
  if (restitution == "auto") {
    o.restitution = RestitutionSource::kAuto;
  } else if (!restitution.empty()) {
    const double e = Number("restitution", restitution);
    if (!(e >= 0 && e <= 1)) {
      throw ConfigError(std::string(kEventsPluginName) + ": config 'restitution' must be in [0, 1] or 'auto', not '" +
                        restitution + "'");
    }
    o.restitution = RestitutionSource::kOverride;
    o.restitution_override = e;
  }
  const std::string grazing = Value(m, instance, "grazing");
  if (!grazing.empty()) {
    o.grazing_threshold = Number("grazing", grazing);
    if (!(o.grazing_threshold >= 0 && o.grazing_threshold <= 1)) {
      throw ConfigError(std::string(kEventsPluginName) + ": config 'grazing' must be in [0, 1], not '" +
                        grazing + "'");
    }
  }
  const std::string propagation = Value(m, instance, "propagation");
  if (!propagation.empty()) {
    try {
      o.propagation = ParsePropagation(propagation);
    } catch (const ConfigError&) {
      throw ConfigError(std::string(kEventsPluginName) +
                        ": config 'propagation' must be events, rigid, compliant or both, not '" + propagation + "'");
    }
  }
  config.log_path = Value(m, instance, "log");
  return config;
}

}  // namespace saltation
