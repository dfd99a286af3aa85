// The trees whose smooth dynamics (qacc_smooth: gravity, Coriolis, passive and actuator forces)
// depend only on themselves: an island (islands.h) closed under the couplings MuJoCo's smooth
// forces make between kinematic trees, so that MuJoCo's passes with every other tree asleep
// (island_passes.h) give the island's qacc_smooth exactly (issue 15: a mode evaluation of an
// event among many bodies costs its island, not the model).
//
//   ForceIsland (the model, an island) => the island joined with every tree a tendon or an
//               actuator's transmission links to it (a tendon spring or damper across two trees,
//               a site actuator with a reference site on another tree), transitively; the whole
//               model (Island::whole) when it cannot be split that way: MuJoCo's equality
//               constraints or adhesion actuators (the position stage then runs whole,
//               contacts.h), activation states (act_dot is kept per actuator), a tendon over more
//               than two trees, a control law (Options::control), a passive or actuator plugin or
//               a user callback for passive forces, controls or actuator dynamics (they may read
//               any tree), or a closure that covers every tree.
//
// Reads the model, its options and MuJoCo's global callbacks only.
#ifndef SALTATION_FORCE_ISLAND_H_
#define SALTATION_FORCE_ISLAND_H_

#include "saltation/islands.h"
#include "saltation/model.h"

namespace saltation {

Island ForceIsland(const Model& model, const Island& island);

}  // namespace saltation

#endif  // SALTATION_FORCE_ISLAND_H_
