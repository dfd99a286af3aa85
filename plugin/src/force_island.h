// The island on which a mode's smooth dynamics (qacc_smooth: gravity, Coriolis, passive and
// actuator forces) can be evaluated alone: MuJoCo's passes with every other tree asleep
// (island_passes.h) give the island's qacc_smooth exactly when no force outside the model's arrays
// reaches across trees (issue 15: a mode evaluation of an event among many bodies costs its
// island, not the model). IslandOf (islands.h) already joins the trees tendons and site actuators
// tie together.
//
//   ForceIsland (the model, an island from IslandOf) => the island itself, or the whole model
//               (Island::whole) when the smooth forces cannot be split: MuJoCo's equality
//               constraints (the position stage then runs whole, contacts.h), adhesion or other
//               transmissions that read contacts, activation states (act_dot is kept per
//               actuator), a control law (Options::control), a passive or actuator plugin or a
//               user callback for passive forces, controls or actuator dynamics (they may read
//               any tree).
//
// The model's own part of the verdict (model_forces.h) is computed once, when the Model is made;
// the callbacks are read on every call.
// Reads the model (Model::forces_split_by_tree) and MuJoCo's global callbacks only.
#ifndef SALTATION_FORCE_ISLAND_H_
#define SALTATION_FORCE_ISLAND_H_

#include "saltation/islands.h"
#include "saltation/model.h"

namespace saltation {

Island ForceIsland(const Model& model, const Island& island);

}  // namespace saltation

#endif  // SALTATION_FORCE_ISLAND_H_
