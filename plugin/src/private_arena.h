// The hook's private mjData, sized by what they need instead of the user's whole arena.
//
// mjData's arena holds the contacts, the constraint rows and MuJoCo's stack. The user's model
// sizes it for the user's worst case (13–14 MiB by default, whatever the model), and the hook keeps
// three private mjData (the rigid model's main and aux, the re-simulator's): three full arenas
// were 42 MiB for the humanoid, which uses 0.05 MiB of one. So a private mjData starts small and
// grows to the full size when MuJoCo reports the arena full or when half of it has been used:
//
//   SmallArenaBytes (m)     => the starting size: 1 MiB, room for the broad phase's pairs, the
//                              band's contacts (16 per geom) and 4 KiB per dof; never more than
//                              m->narena (humanoid: 1.3 MiB of 14)
//   MakeSizedData (m, bytes) => mj_makeData(m) with an arena of `bytes` (0: SmallArenaBytes(m);
//                              m itself is not edited); the arena-full warnings are pre-counted
//                              so that filling the small arena prints nothing (ArenaMark sees it)
//   ArenaMark (d)           => the counts of d's arena-full warnings (contacts, constraints) now;
//     Filled (d)            => whether d's arena filled since: MuJoCo dropped contacts or rows
//     Quiet (d)             => pre-counts the arena-full warnings (mj_warning prints only a kind's
//                              first), as MakeSizedData does
//   GrowArena (d, bytes)    => d's arena replaced by one of `bytes` (its full size): what was in it is
//                              gone (contacts, rows), so the caller re-runs the stage that
//                              filled it; d's other fields, its state and the buffer's contents
//                              are kept. Only between MuJoCo calls (an empty stack). The warnings'
//                              pre-count is removed: a full-size arena that fills warns as MuJoCo
//                              does for the user's data.
//   GrowIfHalfUsed (d, bytes) => GrowArena when d's high-water mark (maxuse_arena, stack included)
//                              passed half the small arena: MuJoCo's stack cannot report a
//                              shortage (it is mju_error), so the arena grows before one can occur.
//                              Call it where the arena's contents are about to be rebuilt (before
//                              a collision pass): it drops them as GrowArena does
//
// Reads m; writes only d. GrowArena does nothing to an arena of `bytes` or more. The in-place replacement relies on MuJoCo 4 allocating the arena apart
// from the rest of mjData (mju_malloc'd d->arena, freed by mj_deleteData), checked by the tests.
#ifndef SALTATION_PRIVATE_ARENA_H_
#define SALTATION_PRIVATE_ARENA_H_

#include <mujoco/mujoco.h>

#include "saltation/model.h"

namespace saltation {

mjtSize SmallArenaBytes(const mjModel* m);
DataPtr MakeSizedData(const mjModel* m, mjtSize bytes = 0);

class ArenaMark {
 public:
  explicit ArenaMark(const mjData* d);
  bool Filled(const mjData* d) const;
  static void Quiet(mjData* d);

 private:
  int contacts_ = 0, rows_ = 0;
};

void GrowArena(mjData* d, mjtSize bytes);
void GrowIfHalfUsed(mjData* d, mjtSize bytes);

}  // namespace saltation

#endif  // SALTATION_PRIVATE_ARENA_H_
