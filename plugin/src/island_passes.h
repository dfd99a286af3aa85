// MuJoCo's passes restricted to an island's kinematic trees (issue 15: a probe of an event among
// many bodies costs the island, not the model).
//
// MuJoCo 4 skips sleeping trees in mj_comPos, mj_makeM (its composite inertias) and mj_factorM when
// the model enables sleeping (mjENBL_SLEEP), and reads which trees sleep from mjData alone
// (tree_asleep and the arrays MuJoCo derives from it). Model::mj_island_passes() is the rigid
// model with sleeping enabled and nothing else changed.
//
//   SleepOutside (the model, d, an island) => every tree of d outside the island asleep (one sleep
//                cycle in tree_asleep; tree_awake, body_awake, body_awake_ind, parent_awake_ind,
//                dof_awake_ind and their counts as MuJoCo's own update sets them, static bodies
//                counted awake so that they are placed too, after one whole mj_kinematics:
//                MuJoCo's passes with sleeping never place the world body's geoms); returns the model
//                to run MuJoCo's passes on d with: Model::mj_island_passes(), or Model::mj() (and d
//                untouched) for a whole island.
//
// After passes with the returned model, only the island's bodies and dofs (and static bodies) hold
// values of d's configuration: a caller reads nothing else. The sleep arrays are ignored by the
// model without sleeping (Model::mj()), so d serves every other caller unchanged. Writes d's sleep
// arrays and kinematics; reads the model.
#ifndef SALTATION_ISLAND_PASSES_H_
#define SALTATION_ISLAND_PASSES_H_

#include <mujoco/mujoco.h>

#include "saltation/islands.h"
#include "saltation/model.h"

namespace saltation {

const mjModel* SleepOutside(const Model& model, mjData* d, const Island& island);

}  // namespace saltation

#endif  // SALTATION_ISLAND_PASSES_H_
