#include "force_island.h"

#include <mujoco/mujoco.h>

#include <algorithm>
#include <numeric>
#include <utility>
#include <vector>

namespace saltation {
namespace {

Island Whole(const mjModel* m) {
  Island island;
  island.dofs.resize(m->nv);
  std::iota(island.dofs.begin(), island.dofs.end(), 0);
  return island;
}

int SiteTree(const mjModel* m, int site) { return site >= 0 ? m->body_treeid[m->site_bodyid[site]] : -1; }

// whether something outside the model's arrays may add smooth forces between any trees
bool HasOpaqueForces(const mjModel* m) {
  if (mjcb_passive || mjcb_control || mjcb_act_dyn || mjcb_act_gain || mjcb_act_bias) return true;
  for (int i = 0; i < m->nplugin; i++) {
    const mjpPlugin* plugin = mjp_getPluginAtSlot(m->plugin[i]);
    if (!plugin || (plugin->capabilityflags & (mjPLUGIN_ACTUATOR | mjPLUGIN_PASSIVE))) return true;
  }
  return false;
}

}  // namespace

Island ForceIsland(const Model& model, const Island& island) {
  const mjModel* m = model.mj();
  if (island.whole) return island;
  // (a control law, Options::control, reads the whole state: the controls of any tree may change)
  if (m->neq || m->na || HasOpaqueForces(m) || model.options().control) return Whole(m);
  const int ntree = m->ntree;
  // pairs of trees one force links (−1: static or none)
  std::vector<std::pair<int, int>> links;
  for (int i = 0; i < m->ntendon; i++) {
    if (m->tendon_treenum[i] > 2) return Whole(m);
    if (m->tendon_treenum[i] == 2) links.emplace_back(m->tendon_treeid[2 * i], m->tendon_treeid[2 * i + 1]);
  }
  for (int i = 0; i < m->nu; i++) {
    const int* id = m->actuator_trnid + 2 * i;
    switch (m->actuator_trntype[i]) {
      case mjTRN_JOINT:
      case mjTRN_JOINTINPARENT:
        break;  // one joint: its own tree
      case mjTRN_TENDON:
        break;  // the tendon's trees are linked above
      case mjTRN_SITE:
      case mjTRN_SLIDERCRANK:
        links.emplace_back(SiteTree(m, id[0]), SiteTree(m, id[1]));
        break;
      default:
        return Whole(m);  // adhesion (body) transmissions read the contacts
    }
  }
  std::vector<char> in = island.tree;
  for (bool grew = true; grew;) {  // transitive closure (few links: repeat until nothing joins)
    grew = false;
    for (const auto& [a, b] : links) {
      if (a < 0 || b < 0 || in[a] == in[b]) continue;
      in[a] = in[b] = 1;
      grew = true;
    }
  }
  Island out;
  out.whole = false;
  out.tree = in;
  for (int t = 0; t < ntree; t++) {
    if (!in[t]) continue;
    for (int j = 0; j < m->tree_dofnum[t]; j++) out.dofs.push_back(m->tree_dofadr[t] + j);
  }
  if (static_cast<int>(out.dofs.size()) == m->nv) return Whole(m);
  std::sort(out.dofs.begin(), out.dofs.end());
  return out;
}

}  // namespace saltation
