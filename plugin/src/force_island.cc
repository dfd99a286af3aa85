#include "force_island.h"

#include <mujoco/mujoco.h>

namespace saltation {
namespace {

// whether a user callback may add smooth forces between any trees (MuJoCo's globals: they may be
// set or cleared between evaluations, so they are read each time)
bool CallbackForces() { return mjcb_passive || mjcb_control || mjcb_act_dyn || mjcb_act_gain || mjcb_act_bias; }

}  // namespace

Island ForceIsland(const Model& model, const Island& island) {
  if (island.whole) return island;
  if (!model.forces_split_by_tree() || CallbackForces()) return WholeIsland(model.mj());
  return island;
}

}  // namespace saltation
