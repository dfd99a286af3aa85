#include "near_contacts.h"

#include <string>

namespace saltation {
namespace {

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

bool GapWideningIsExact(int t1, int t2) {
  auto is = [&](int a, int b) { return (t1 == a && t2 == b) || (t1 == b && t2 == a); };
  if (t1 == mjGEOM_PLANE || t2 == mjGEOM_PLANE) return true;
  auto primitive = [](int t) { return t == mjGEOM_SPHERE || t == mjGEOM_CAPSULE || t == mjGEOM_BOX; };
  return (primitive(t1) && primitive(t2)) || is(mjGEOM_SPHERE, mjGEOM_CYLINDER);
}

std::vector<std::string> WidenNearContacts(mjModel* m, double delta) {
  std::vector<std::string> untracked;
  // widen the detection band of the geoms whose every possible partner is an exact pair. MuJoCo 4
  // detects a pair within margin + gap and activates it within margin (includemargin = margin),
  // both summed over the two geoms (a <pair> has its own; Contact Override replaces the margin,
  // not the gap): growing the gaps alone leaves the physics bitwise as it was, whatever the
  // partner's margin and gap, and works under Contact Override too. δ/2 per geom: a pair of
  // widened geoms gets δ; a widened geom against one that is not, δ/2.
  // (MuJoCo 2.2.2 detected within max(margin) and activated within max(margin) − max(gap): margin
  // and gap had to grow together, only between geoms of the same margin and gap, never under
  // Contact Override.)
  std::vector<bool> enlarge(m->ngeom, true);
  for (int g = 0; g < m->ngeom; g++) {
    for (int h = 0; h < m->ngeom && enlarge[g]; h++) {
      if (h == g || !MayCollide(m, g, h)) continue;
      if (!GapWideningIsExact(m->geom_type[g], m->geom_type[h])) enlarge[g] = false;
    }
  }
  for (int g = 0; g < m->ngeom; g++) {
    for (int h = g + 1; h < m->ngeom; h++) {
      if (!MayCollide(m, g, h) || enlarge[g] || enlarge[h]) continue;
      untracked.push_back(GeomName(m, g) + "/" + GeomName(m, h));
    }
  }
  for (int g = 0; g < m->ngeom; g++) {
    if (enlarge[g]) m->geom_gap[g] += 0.5 * delta;
  }
  for (int p = 0; p < m->npair; p++) {
    if (!GapWideningIsExact(m->geom_type[m->pair_geom1[p]], m->geom_type[m->pair_geom2[p]])) continue;
    m->pair_gap[p] += delta;
  }

  return untracked;
}

}  // namespace saltation
