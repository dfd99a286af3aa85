#include "island_passes.h"

namespace saltation {

const mjModel* SleepOutside(const Model& model, mjData* d, const Island& island) {
  if (island.whole) return model.mj();
  // MuJoCo's passes with sleeping never place the world body's geoms (its loops start at body 1):
  // one whole pass places them (they never move) before the other trees go to sleep
  mj_kinematics(model.mj(), d);
  const mjModel* m = model.mj_island_passes();
  // tree_asleep: −(1 + mjMINAWAKE) for an awake tree (MuJoCo's fully awake value), and the
  // sleeping trees linked in one cycle (each names the next)
  constexpr int kAwake = -(1 + mjMINAWAKE);
  int first = -1, previous = -1;
  for (int t = 0; t < m->ntree; t++) {
    d->tree_asleep[t] = kAwake;
    if (island.tree[t]) continue;
    if (previous >= 0) d->tree_asleep[previous] = t;
    if (first < 0) first = t;
    previous = t;
  }
  if (previous >= 0) d->tree_asleep[previous] = first;
  int ntree_awake = 0;
  for (int t = 0; t < m->ntree; t++) {
    d->tree_awake[t] = d->tree_asleep[t] < 0;
    ntree_awake += d->tree_awake[t];
  }
  d->ntree_awake = ntree_awake;
  int nbody_awake = 0, nparent_awake = 0;
  for (int b = 0; b < m->nbody; b++) {
    if (m->body_treeid[b] < 0) {
      // static bodies awake (MuJoCo's mj_updateSleepInit with flg_staticawake): MuJoCo places
      // mjS_STATIC bodies once, at its first pass, and d's may never have had one
      d->body_awake[b] = mjS_AWAKE;
    } else {
      d->body_awake[b] = d->tree_awake[m->body_treeid[b]] ? mjS_AWAKE : mjS_ASLEEP;
    }
    if (d->body_awake[b] != mjS_ASLEEP) d->body_awake_ind[nbody_awake++] = b;
    if (b && d->body_awake[m->body_parentid[b]] != mjS_ASLEEP) d->parent_awake_ind[nparent_awake++] = b;
  }
  d->nbody_awake = nbody_awake;
  d->nparent_awake = nparent_awake;
  int nv_awake = 0;
  for (int i = 0; i < m->nv; i++) {
    const int b = m->dof_bodyid[i];
    if (m->body_treeid[b] >= 0 && d->body_awake[b] == mjS_AWAKE) d->dof_awake_ind[nv_awake++] = i;
  }
  d->nv_awake = nv_awake;
  return m;
}

}  // namespace saltation
