#include "force_island.h"

#include <mujoco/mujoco.h>

namespace saltation {
namespace {

// whether something outside the model's arrays may add smooth forces between any trees
bool HasOpaqueForces(const mjModel* m) {
  if (mjcb_passive || mjcb_control || mjcb_act_dyn || mjcb_act_gain || mjcb_act_bias) return true;
  for (int i = 0; i < m->nplugin; i++) {
    const mjpPlugin* plugin = mjp_getPluginAtSlot(m->plugin[i]);
    if (!plugin || (plugin->capabilityflags & (mjPLUGIN_ACTUATOR | mjPLUGIN_PASSIVE))) return true;
  }
  return false;
}

}  // namespace

Island ForceIsland(const Model& model, const Island& island) {
  const mjModel* m = model.mj();
  if (island.whole) return island;
  // (a control law, Options::control, reads the whole state: the controls of any tree may change)
  if (m->neq || m->na || HasOpaqueForces(m) || model.options().control) return WholeIsland(m);
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
        return WholeIsland(m);  // adhesion (body) transmissions read the contacts
    }
  }
  return island;
}

}  // namespace saltation
