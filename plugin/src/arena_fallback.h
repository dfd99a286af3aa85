// The hook's step when the widened detection band does not fit MuJoCo's arena.
//
// The hook steps a copy of the user's model whose gaps are widened (near_contacts.h): MuJoCo then
// also lists the contacts within the band, excluded from the physics. In a crowded scene (a pile of
// 200 bodies) that list can fill the arena the user's model sized for its own contacts, and MuJoCo
// drops contacts and warns "Too many contacts" where the user's model does not. So:
//
//   ArenaFallback (user model)      keeps its geom and pair gaps (the narrow model differs from the
//                                   wide one in those only: near_contacts.h)
//   Step (wide model, d)            one mj_step(wide, d); when it filled the arena (contacts or
//                                   constraints: ArenaMark, private_arena.h), d is put back to its
//                                   state before the step and the step retaken with the user's gaps
//                                   in the wide model (put back after): d is then bitwise what a bare
//                                   mj_step(user model, d) gives, warnings included. Returns whether
//                                   it was retaken.
//   narrow_steps ()                 how many steps were retaken
//
// Reads and writes d (state, warnings) and, during a retaken step, the wide model's gaps; the
// widened attempt's arena warnings are not printed.
#ifndef SALTATION_ARENA_FALLBACK_H_
#define SALTATION_ARENA_FALLBACK_H_

#include <mujoco/mujoco.h>

#include <vector>

#include "saltation/model.h"

namespace saltation {

class ArenaFallback {
 public:
  explicit ArenaFallback(const mjModel* user_model);
  bool Step(mjModel* wide, mjData* d);
  long narrow_steps() const { return narrow_steps_; }

 private:
  std::vector<mjtNum> geom_gap_, pair_gap_;  // the user's
  std::vector<mjtNum> state_;
  long narrow_steps_ = 0;
};

}  // namespace saltation

#endif  // SALTATION_ARENA_FALLBACK_H_
