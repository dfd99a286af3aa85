#include "near_contacts.h"

#include <string>

namespace saltation {
namespace {

bool ExactType(int t) {
  return t == mjGEOM_PLANE || t == mjGEOM_SPHERE || t == mjGEOM_CAPSULE || t == mjGEOM_BOX;
}

// margin = gap enlargement is exact (bitwise-identical physics) for this pair of geom types
bool ExactPair(int t1, int t2) {
  if (t1 == mjGEOM_PLANE || t2 == mjGEOM_PLANE) return true;
  return ExactType(t1) && ExactType(t2);
}

// MuJoCo may generate contacts between these two geoms
bool MayCollide(const mjModel* m, int g1, int g2) {
  const int b1 = m->geom_bodyid[g1], b2 = m->geom_bodyid[g2];
  if (b1 == b2) return false;
  if (m->body_weldid[b1] == m->body_weldid[b2]) return false;
  return (m->geom_contype[g1] & m->geom_conaffinity[g2]) || (m->geom_contype[g2] & m->geom_conaffinity[g1]);
}

std::string GeomName(const mjModel* m, int g) {
  const char* name = mj_id2name(m, mjOBJ_GEOM, g);
  return name && name[0] ? name : "#" + std::to_string(g);
}

}  // namespace

std::vector<std::string> WidenNearContacts(mjModel* m, double delta) {
  std::vector<std::string> untracked;
  // enlarge margin and gap together on the geoms whose every possible partner is an exact pair
  const bool override_margin = m->opt.enableflags & mjENBL_OVERRIDE;
  std::vector<bool> enlarge(m->ngeom, !override_margin);
  for (int g = 0; g < m->ngeom; g++) {
    for (int h = 0; h < m->ngeom && enlarge[g]; h++) {
      if (h == g || !MayCollide(m, g, h)) continue;
      const bool same_surface = m->geom_margin[h] == m->geom_margin[g] && m->geom_gap[h] == m->geom_gap[g];
      if (!ExactPair(m->geom_type[g], m->geom_type[h]) || !same_surface) enlarge[g] = false;
    }
  }
  for (int g = 0; g < m->ngeom; g++) {
    for (int h = g + 1; h < m->ngeom; h++) {
      if (!MayCollide(m, g, h) || enlarge[g] || enlarge[h]) continue;
      const std::string name = std::string(override_margin ? "(contact override) " : "") +
                               GeomName(m, g) + "/" + GeomName(m, h);
      untracked.push_back(name);
    }
  }
  for (int g = 0; g < m->ngeom; g++) {
    if (!enlarge[g]) continue;
    m->geom_margin[g] += delta;
    m->geom_gap[g] += delta;
  }
  for (int p = 0; p < m->npair; p++) {
    if (!ExactPair(m->geom_type[m->pair_geom1[p]], m->geom_type[m->pair_geom2[p]])) continue;
    m->pair_margin[p] += delta;
    m->pair_gap[p] += delta;
  }

  return untracked;
}

}  // namespace saltation
