#include "model_forces.h"

namespace saltation {

bool ModelForcesSplitByTree(const mjModel* m, const Options& options) {
  if (m->neq || m->na || options.control) return false;
  for (int i = 0; i < m->nplugin; i++) {
    const mjpPlugin* plugin = mjp_getPluginAtSlot(m->plugin[i]);
    if (!plugin || (plugin->capabilityflags & (mjPLUGIN_ACTUATOR | mjPLUGIN_PASSIVE))) return false;
  }
  for (int i = 0; i < m->nu; i++) {
    switch (m->actuator_trntype[i]) {
      case mjTRN_JOINT:
      case mjTRN_JOINTINPARENT:
      case mjTRN_TENDON:
      case mjTRN_SITE:
      case mjTRN_SLIDERCRANK:
      case mjTRN_SO3:
        break;  // one tree, or the trees IslandOf joins
      default:
        return false;  // adhesion (body) transmissions read the contacts
    }
  }
  return true;
}

}  // namespace saltation
