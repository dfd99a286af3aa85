#include "saltation/islands.h"

#include <algorithm>
#include <numeric>

namespace saltation {
namespace {

// union–find over the kinematic trees, in storage the caller keeps
class TreeUnion {
 public:
  TreeUnion(std::vector<int>& parent, int n) : parent_(parent) {
    parent_.resize(n);
    std::iota(parent_.begin(), parent_.end(), 0);
  }
  int Find(int t) {
    while (parent_[t] != t) t = parent_[t] = parent_[parent_[t]];
    return t;
  }
  void Join(int a, int b) {
    if (a >= 0 && b >= 0) parent_[Find(a)] = Find(b);
  }

 private:
  std::vector<int>& parent_;
};

int BodyTree(const mjModel* m, int body) { return body >= 0 && body < m->nbody ? m->body_treeid[body] : -1; }

// the body an equality object is attached to (−2: an object this analysis cannot place)
int EqualityBody(const mjModel* m, int objtype, int id) {
  if (id < 0) return -1;
  if (objtype == mjOBJ_BODY) return id;
  if (objtype == mjOBJ_SITE) return m->site_bodyid[id];
  return -2;
}

// the trees of equality constraint i (−1 entries: static); false when it cannot be placed
bool EqualityTrees(const mjModel* m, int i, int trees[2]) {
  trees[0] = trees[1] = -1;
  const int ids[2] = {m->eq_obj1id[i], m->eq_obj2id[i]};
  switch (m->eq_type[i]) {
    case mjEQ_CONNECT:
    case mjEQ_WELD:
      for (int s = 0; s < 2; s++) {
        const int b = EqualityBody(m, m->eq_objtype[i], ids[s]);
        if (b == -2) return false;
        trees[s] = BodyTree(m, b);
      }
      return true;
    case mjEQ_JOINT:
      for (int s = 0; s < 2; s++) trees[s] = ids[s] >= 0 ? BodyTree(m, m->jnt_bodyid[ids[s]]) : -1;
      return true;
    case mjEQ_TENDON:
      for (int s = 0; s < 2; s++) {
        if (ids[s] < 0) continue;
        if (m->tendon_treenum[ids[s]] > 1) return false;  // spans trees itself
        trees[s] = m->tendon_treenum[ids[s]] == 1 ? m->tendon_treeid[2 * ids[s]] : -1;
      }
      return true;
    default:
      return false;  // flex constraints
  }
}

// joins the trees along tendon i's path (its joints', sites' and wrapping geoms' bodies)
void JoinTendonTrees(const mjModel* m, int i, TreeUnion& trees) {
  int first = -1;
  for (int w = m->tendon_adr[i]; w < m->tendon_adr[i] + m->tendon_num[i]; w++) {
    const int id = m->wrap_objid[w];
    if (id < 0) continue;
    int body = -1;
    switch (m->wrap_type[w]) {
      case mjWRAP_JOINT: body = m->jnt_bodyid[id]; break;
      case mjWRAP_SITE: body = m->site_bodyid[id]; break;
      case mjWRAP_SPHERE:
      case mjWRAP_CYLINDER: body = m->geom_bodyid[id]; break;
      default: break;
    }
    const int t = BodyTree(m, body);
    if (t < 0) continue;
    if (first < 0) first = t;
    else trees.Join(first, t);
  }
}

// joins the trees of the two sites of actuator i's transmission (a slider-crank's crank and
// slider, a site's reference site)
void JoinActuatorSiteTrees(const mjModel* m, int i, TreeUnion& trees) {
  const int type = m->actuator_trntype[i];
  if (type != mjTRN_SLIDERCRANK && type != mjTRN_SITE && type != mjTRN_SO3) return;
  const int a = m->actuator_trnid[2 * i], b = m->actuator_trnid[2 * i + 1];
  if (a < 0 || b < 0 || a >= m->nsite || b >= m->nsite) return;
  trees.Join(BodyTree(m, m->site_bodyid[a]), BodyTree(m, m->site_bodyid[b]));
}

int GeomTree(const mjModel* m, int geom) { return BodyTree(m, m->geom_bodyid[geom]); }

bool GeomsInModel(const mjModel* m, const ContactId& id) {
  return id.geom1 >= 0 && id.geom2 >= 0 && id.geom1 < m->ngeom && id.geom2 < m->ngeom;
}

}  // namespace

Island WholeIsland(const mjModel* m) {
  Island island;
  island.dofs.resize(m->nv);
  std::iota(island.dofs.begin(), island.dofs.end(), 0);
  return island;
}

bool Island::Contains(const mjModel* m, const ContactId& id) const {
  if (whole) return true;
  for (int g : {id.geom1, id.geom2}) {
    if (g < 0 || g >= m->ngeom) return false;
    const int t = GeomTree(m, g);
    if (t >= 0 && !tree[t]) return false;
  }
  return true;
}

Island IslandOf(const Model& model, const std::vector<ContactId>& links, const std::vector<ContactId>& seeds) {
  const mjModel* m = model.mj();
  const int ntree = static_cast<int>(m->ntree);
  if (m->nflex > 0 || ntree <= 1) return WholeIsland(m);
  std::vector<int> parent;
  TreeUnion trees(parent, ntree);
  std::vector<char> always(ntree, 0);  // trees every island holds (equality-constrained)
  for (int i = 0; i < m->neq; i++) {
    int t[2];
    if (!EqualityTrees(m, i, t)) return WholeIsland(m);
    trees.Join(t[0], t[1]);
    for (int s = 0; s < 2; s++) {
      if (t[s] >= 0) always[t[s]] = 1;
    }
  }
  // a tendon spanning trees couples them through its armature (M), its damping (F reads both
  // trees' velocities: an impact on one changes the other's acceleration), its stiffness and its
  // actuators; so does an actuator between sites on two trees
  for (int i = 0; i < m->ntendon; i++) {
    if (m->tendon_treenum[i] >= 2) JoinTendonTrees(m, i, trees);
  }
  for (int i = 0; i < m->nu; i++) JoinActuatorSiteTrees(m, i, trees);
  for (const ContactId& id : links) {
    if (!GeomsInModel(m, id)) return WholeIsland(m);
    trees.Join(GeomTree(m, id.geom1), GeomTree(m, id.geom2));
  }
  std::vector<char> root_in(ntree, 0);
  for (int t = 0; t < ntree; t++) {
    if (always[t]) root_in[trees.Find(t)] = 1;
  }
  for (const ContactId& id : seeds) {
    if (!GeomsInModel(m, id)) return WholeIsland(m);
    for (int g : {id.geom1, id.geom2}) {
      const int t = GeomTree(m, g);
      if (t >= 0) root_in[trees.Find(t)] = 1;
    }
  }
  Island island;
  island.whole = false;
  island.tree.assign(ntree, 0);
  int count = 0;
  for (int t = 0; t < ntree; t++) {
    island.tree[t] = root_in[trees.Find(t)];
    count += island.tree[t];
  }
  if (count == ntree) return WholeIsland(m);
  for (int t = 0; t < ntree; t++) {
    if (!island.tree[t]) continue;
    for (int j = 0; j < m->tree_dofnum[t]; j++) island.dofs.push_back(m->tree_dofadr[t] + j);
  }
  std::sort(island.dofs.begin(), island.dofs.end());
  return island;
}

Mode RestrictMode(const mjModel* m, const Mode& mode, const Island& island, Mode* rest) {
  Mode inside;
  if (rest) rest->contacts.clear();
  for (const ContactId& id : mode.contacts) {
    if (island.Contains(m, id)) {
      inside.contacts.push_back(id);
    } else if (rest) {
      rest->contacts.push_back(id);
    }
  }
  return inside;
}

int IndexInIsland(const mjModel* m, const Mode& mode, int k, const Island& island) {
  int local = 0;
  for (int i = 0; i < k; i++) local += island.Contains(m, mode.contacts[i]);
  return local;
}

Mode MergeModes(const Mode& rest, const Mode& island_mode) {
  Mode merged = rest;
  merged.contacts.insert(merged.contacts.end(), island_mode.contacts.begin(), island_mode.contacts.end());
  return merged;
}

void GroupRows(const mjModel* m, const RowMatrix& J, RowGroups& out) {
  const int nrow = static_cast<int>(J.rows());
  const int ntree = static_cast<int>(m->ntree);
  bool whole = m->nflex > 0 || ntree <= 1;
  // group ids: trees, then one pseudo-tree for entries on dofs outside every tree
  TreeUnion trees(out.parent, ntree + 1);
  for (int i = 0; i < m->ntendon && !whole; i++) {
    if (m->tendon_armature[i] == 0 || m->tendon_treenum[i] < 2) continue;
    if (m->tendon_treenum[i] > 2) whole = true;
    else trees.Join(m->tendon_treeid[2 * i], m->tendon_treeid[2 * i + 1]);
  }
  auto tree_of_dof = [&](int j) { return whole ? 0 : (m->dof_treeid[j] >= 0 ? m->dof_treeid[j] : ntree); };
  // each row joins the trees of its non-zero entries; its representative tree (−1: an empty row)
  std::vector<int>& row_tree = out.row_tree;
  row_tree.assign(nrow, -1);
  for (int r = 0; r < nrow; r++) {
    for (int j = 0; j < m->nv; j++) {
      if (J(r, j) == 0) continue;
      const int t = tree_of_dof(j);
      if (row_tree[r] < 0) row_tree[r] = t;
      else trees.Join(row_tree[r], t);
    }
  }
  // number the groups by first row; empty rows each make a group of their own
  std::vector<int>& group_of_root = out.group_of_root;
  group_of_root.assign(ntree + 1, -1);
  out.count = 0;
  auto next_group = [&]() {
    if (static_cast<int>(out.rows.size()) <= out.count) {
      out.rows.emplace_back();
      out.dofs.emplace_back();
    }
    out.rows[out.count].clear();
    out.dofs[out.count].clear();
    return out.count++;
  };
  for (int r = 0; r < nrow; r++) {
    int g;
    if (row_tree[r] < 0) {
      g = next_group();
    } else {
      const int root = trees.Find(row_tree[r]);
      if (group_of_root[root] < 0) group_of_root[root] = next_group();
      g = group_of_root[root];
    }
    out.rows[g].push_back(r);
  }
  for (int j = 0; j < m->nv; j++) {
    const int g = group_of_root[trees.Find(tree_of_dof(j))];
    if (g >= 0) out.dofs[g].push_back(j);
  }
}

}  // namespace saltation
