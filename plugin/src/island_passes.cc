#include "island_passes.h"

namespace saltation {
namespace {

// The world body's frame and its geoms and sites, as MuJoCo's whole mj_kinematics places them
// (mj_local2Global from the world's identity frame): its passes with sleeping never place them
// (their loops start at body 1), and they never move. O(the world body's geoms, the sites).
void PlaceWorldBody(const mjModel* m, mjData* d) {
  mju_zero3(d->xpos);
  mju_unit4(d->xquat);
  mju_zero3(d->xipos);
  mju_zero(d->xmat, 9);
  mju_zero(d->ximat, 9);
  d->xmat[0] = d->xmat[4] = d->xmat[8] = 1;
  d->ximat[0] = d->ximat[4] = d->ximat[8] = 1;
  const int geom_end = m->body_geomadr[0] + m->body_geomnum[0];
  for (int g = m->body_geomadr[0]; g >= 0 && g < geom_end; g++) {
    mj_local2Global(d, d->geom_xpos + 3 * g, d->geom_xmat + 9 * g, m->geom_pos + 3 * g, m->geom_quat + 4 * g, 0,
                    m->geom_sameframe[g]);
  }
  for (int s = 0; s < m->nsite; s++) {
    if (m->site_bodyid[s] != 0) continue;
    mj_local2Global(d, d->site_xpos + 3 * s, d->site_xmat + 9 * s, m->site_pos + 3 * s, m->site_quat + 4 * s, 0,
                    m->site_sameframe[s]);
  }
}

}  // namespace

const mjModel* SleepOutside(const Model& model, mjData* d, const Island& island) {
  if (island.whole) return model.mj();
  const mjModel* m = model.mj_island_passes();
  PlaceWorldBody(m, d);
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

void ZeroOutside(const Island& island, Eigen::Ref<Eigen::VectorXd> v) {
  if (island.whole) return;
  int next = 0;
  for (const int i : island.dofs) {
    v.segment(next, i - next).setZero();
    next = i + 1;
  }
  v.tail(v.size() - next).setZero();
}

}  // namespace saltation
