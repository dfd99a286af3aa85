// Whether the smooth forces a model and its options define (qacc_smooth: gravity, Coriolis,
// passive and actuator forces) act within the trees IslandOf (islands.h) joins, so that an
// island's qacc_smooth is evaluated exactly with every other tree asleep (force_island.h). They
// do not when the model has MuJoCo equality constraints (the position stage then runs whole,
// contacts.h), activation states (act_dot is kept per actuator), an actuator whose transmission
// reads the contacts (adhesion: a body transmission), a passive or actuator plugin (it may read any
// tree), or a control law (Options::control reads the whole state: the controls of any tree may
// change).
//
//   ModelForcesSplitByTree (the model, its options) => that verdict
//
// Model computes it once (Model::forces_split_by_tree: none of it changes after construction);
// ForceIsland adds MuJoCo's global callbacks, which may change between evaluations.
// Reads the model, the options and MuJoCo's plugin table.
#ifndef SALTATION_MODEL_FORCES_H_
#define SALTATION_MODEL_FORCES_H_

#include <mujoco/mujoco.h>

#include "saltation/model.h"

namespace saltation {

bool ModelForcesSplitByTree(const mjModel* m, const Options& options);

}  // namespace saltation

#endif  // SALTATION_MODEL_FORCES_H_
