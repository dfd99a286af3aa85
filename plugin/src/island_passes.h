// MuJoCo's passes restricted to an island's kinematic trees (issue 15: a probe of an event among
// many bodies costs the island, not the model).
//
// MuJoCo 4 skips sleeping trees in mj_makeM (its composite inertias) and mj_factorM when the
// model enables sleeping (mjENBL_SLEEP) — not in mj_kinematics or mj_comPos (4.0.1 rewrites a
// sleeping tree's poses, subtree centres and inertias there: those passes still cost every body;
// docs/performance.md) — and reads which trees sleep from mjData alone
// (tree_asleep and the arrays MuJoCo derives from it). Model::mj_island_passes() is the rigid
// model with sleeping enabled and nothing else changed.
//
//   SleepOutside (the model, d, an island) => every tree of d outside the island asleep (one sleep
//                cycle in tree_asleep; tree_awake, body_awake, body_awake_ind, parent_awake_ind,
//                dof_awake_ind and their counts as MuJoCo's own update sets them, static bodies
//                counted awake so that they are placed too: the mocap bodies at d's mocap_pos and
//                mocap_quat), and the world body with its geoms and sites placed (MuJoCo's passes
//                with sleeping never place them; they never move); returns the model to run
//                MuJoCo's passes on d with: Model::mj_island_passes(), or Model::mj() (and d
//                untouched) for a whole island. Costs O(trees + bodies + dofs) of integer
//                bookkeeping and the world's geoms, no pass over the other trees' bodies.
//   ZeroOutside  (an island, v with one entry per dof) => v's entries off the island's dofs set to
//                0 (nothing when the island is whole): what passes on the island leave unevaluated
//
// After passes with the returned model, only the island's bodies and dofs (and static bodies) hold
// values of d's configuration: a caller reads nothing else (MuJoCo's collision with the returned
// model tests only pairs with an island body, island or static against anything; pairs against
// another tree's body read its stale place: callers drop them, Island::Contains). The sleep arrays
// are ignored by the model without sleeping (Model::mj()), so d serves every other caller
// unchanged. Writes d's sleep arrays and the world body's frames; reads the model.
#ifndef SALTATION_ISLAND_PASSES_H_
#define SALTATION_ISLAND_PASSES_H_

#include <mujoco/mujoco.h>

#include <Eigen/Dense>

#include "saltation/islands.h"
#include "saltation/model.h"

namespace saltation {

const mjModel* SleepOutside(const Model& model, mjData* d, const Island& island);

void ZeroOutside(const Island& island, Eigen::Ref<Eigen::VectorXd> v);

}  // namespace saltation

#endif  // SALTATION_ISLAND_PASSES_H_
