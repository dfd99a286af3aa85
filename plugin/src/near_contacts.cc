#include "near_contacts.h"

#include <algorithm>
#include <map>
#include <string>

#include "saltation/model.h"

namespace saltation {
namespace {

const char* TypeName(int type) {
  switch (type) {
    case mjGEOM_PLANE: return "plane";
    case mjGEOM_HFIELD: return "hfield";
    case mjGEOM_SPHERE: return "sphere";
    case mjGEOM_CAPSULE: return "capsule";
    case mjGEOM_ELLIPSOID: return "ellipsoid";
    case mjGEOM_CYLINDER: return "cylinder";
    case mjGEOM_BOX: return "box";
    case mjGEOM_MESH: return "mesh";
    case mjGEOM_SDF: return "sdf";
    default: return "geom";
  }
}

std::string TypePair(const mjModel* m, int g, int h) {
  std::string a = TypeName(m->geom_type[g]), b = TypeName(m->geom_type[h]);
  if (b < a) std::swap(a, b);
  return a + "–" + b;
}

// index of the <pair> listing geoms g and h (either order), or −1
int ExplicitPair(const mjModel* m, int g, int h) {
  for (int p = 0; p < m->npair; p++) {
    if ((m->pair_geom1[p] == g && m->pair_geom2[p] == h) || (m->pair_geom1[p] == h && m->pair_geom2[p] == g)) return p;
  }
  return -1;
}

}  // namespace

bool MayCollide(const mjModel* m, int g1, int g2) {
  if (m->opt.disableflags & mjDSBL_CONTACT) return false;
  if (g1 == g2) return false;
  if (!((m->geom_contype[g1] & m->geom_conaffinity[g2]) || (m->geom_contype[g2] & m->geom_conaffinity[g1]))) {
    return false;
  }
  const int b1 = m->geom_bodyid[g1], b2 = m->geom_bodyid[g2];
  const int w1 = m->body_weldid[b1], w2 = m->body_weldid[b2];
  if (w1 == w2) return false;
  // MuJoCo's filterBodyPair: a weld body and its parent's weld body do not collide (world aside)
  const int p1 = m->body_weldid[m->body_parentid[w1]], p2 = m->body_weldid[m->body_parentid[w2]];
  if (!(m->opt.disableflags & mjDSBL_FILTERPARENT) && w1 != 0 && w2 != 0 && (w1 == p2 || w2 == p1)) return false;
  // <exclude body1 body2>: signature (lower body id << 16) + higher body id, sorted
  if (m->nexclude > 0) {
    const int signature = (std::min(b1, b2) << 16) + std::max(b1, b2);
    const int* begin = m->exclude_signature;
    const int* end = begin + m->nexclude;
    if (std::find(begin, end, signature) != end) return false;
  }
  // a <pair> of the same two geoms replaces the dynamic pair
  return ExplicitPair(m, g1, g2) < 0;
}

bool GapWideningIsExact(int t1, int t2) {
  auto is = [&](int a, int b) { return (t1 == a && t2 == b) || (t1 == b && t2 == a); };
  if (t1 == mjGEOM_PLANE || t2 == mjGEOM_PLANE) return true;
  auto primitive = [](int t) { return t == mjGEOM_SPHERE || t == mjGEOM_CAPSULE || t == mjGEOM_BOX; };
  return (primitive(t1) && primitive(t2)) || is(mjGEOM_SPHERE, mjGEOM_CYLINDER);
}

std::vector<UntrackedPair> WidenNearContacts(mjModel* m, double delta) {
  // MuJoCo 4 detects a pair within margin + gap and activates it within margin (includemargin =
  // margin), both summed over the two geoms (a <pair> has its own; Contact Override replaces the
  // margin, not the gap): changing the gaps alone leaves the physics of a pair bitwise as it was
  // as long as the pair's summed gap is unchanged, or the pair's types are ones whose collision
  // honours the gap (GapWideningIsExact). So each geom g gets a step a_g ∈ {+1, 0, −1} (× δ/2):
  //   every pair whose types are not exact needs a_g + a_h = 0 (and its summed gap bitwise equal);
  //   every pair needs a_g + a_h ≥ 0 (a band is never narrowed);
  //   a pair is tracked when a_g + a_h > 0.
  // Start from +1 for every geom. A geom with a non-exact partner is made −1 when all its partners
  // can stay +1 (so a lone cylinder among capsules costs only its own pairs), or 0 otherwise
  // (then each of its non-exact partners must be 0 too); repeat until nothing changes.
  // (MuJoCo 2.2.2 detected within max(margin) and activated within max(margin) − max(gap): margin
  // and gap had to grow together, only between geoms of the same margin and gap.)
  const int n = m->ngeom;
  std::vector<std::vector<int>> partners(n);
  for (int g = 0; g < n; g++) {
    for (int h = g + 1; h < n; h++) {
      if (!MayCollide(m, g, h)) continue;
      partners[g].push_back(h);
      partners[h].push_back(g);
    }
  }
  auto exact = [&](int g, int h) { return GapWideningIsExact(m->geom_type[g], m->geom_type[h]); };
  const double half = 0.5 * delta;
  auto gap_after = [&](int g, int a) { return m->geom_gap[g] + a * half; };
  // the pair's summed gap after the steps is bitwise the one before
  auto same_sum = [&](int g, int ag, int h, int ah) {
    return gap_after(g, ag) + gap_after(h, ah) == m->geom_gap[g] + m->geom_gap[h];
  };
  std::vector<int> a(n, 1);
  std::vector<bool> inexact(n, false);
  for (int g = 0; g < n; g++) {
    for (int h : partners[g]) inexact[g] = inexact[g] || !exact(g, h);
  }
  // geoms with a non-exact partner: the fewest of them take −1, so that their partners stay +1.
  // One of two non-exact partners must then stay +1: the geom with more non-exact partners goes
  // first (a cylinder among capsules), the rest stay +1 where that balances the pairs.
  std::vector<int> order;
  for (int g = 0; g < n; g++) {
    if (inexact[g]) order.push_back(g);
  }
  auto inexact_count = [&](int g) {
    int c = 0;
    for (int h : partners[g]) c += !exact(g, h);
    return c;
  };
  std::stable_sort(order.begin(), order.end(), [&](int x, int y) { return inexact_count(x) > inexact_count(y); });
  for (int g : order) {
    bool balanced = true;
    for (int h : partners[g]) {
      if (!exact(g, h) && a[h] == -1) balanced = false;  // a non-exact partner already took −1
    }
    if (balanced) a[g] = -1;
  }
  // enforce the constraints: any violation sets both geoms of the pair to 0, until none is left
  for (bool changed = true; changed;) {
    changed = false;
    for (int g = 0; g < n; g++) {
      for (int h : partners[g]) {
        if (h < g) continue;
        const bool ok = exact(g, h) ? a[g] + a[h] >= 0 : (a[g] + a[h] == 0 && same_sum(g, a[g], h, a[h]));
        if (ok) continue;
        // (0 + 0 satisfies both: the loop ends)
        for (int x : {g, h}) {
          if (a[x] != 0) a[x] = 0, changed = true;
        }
      }
    }
  }
  std::vector<UntrackedPair> untracked;
  for (int g = 0; g < n; g++) {
    for (int h : partners[g]) {
      if (h < g || a[g] + a[h] > 0) continue;
      untracked.push_back({g, h, GeomLabel(m, g) + "/" + GeomLabel(m, h),
                           exact(g, h) ? TypePair(m, g, h) + " held back by a non-exact pair" : TypePair(m, g, h)});
    }
  }
  for (int g = 0; g < n; g++) m->geom_gap[g] = gap_after(g, a[g]);
  for (int p = 0; p < m->npair; p++) {
    const int g = m->pair_geom1[p], h = m->pair_geom2[p];
    if (exact(g, h)) {
      m->pair_gap[p] += delta;
    } else {
      untracked.push_back({g, h, GeomLabel(m, g) + "/" + GeomLabel(m, h), TypePair(m, g, h) + " <pair>"});
    }
  }
  // MuJoCo's midphase culls bodies of several geoms by the body margins compiled before the gaps
  // were widened: they must cover the band too, or such a body's near-contacts are cut back to the
  // compiled margins (only the culling changes: inactive contacts are added, the physics is not)
  CoverBandsInBodyMargins(m);
  return untracked;
}

std::string UntrackedSummary(const std::vector<UntrackedPair>& pairs) {
  if (pairs.empty()) return "";
  std::map<std::string, int> reasons;
  for (const UntrackedPair& p : pairs) reasons[p.reason]++;
  std::string out = std::to_string(pairs.size()) + " geom pair" + (pairs.size() == 1 ? "" : "s") +
                    " not tracked exactly (their events are seen once they touch):";
  bool first = true;
  for (const auto& [reason, count] : reasons) {
    out += (first ? " " : ", ") + std::to_string(count) + " " + reason;
    first = false;
  }
  out += "; e.g.";
  for (size_t i = 0; i < pairs.size() && i < 3; i++) out += (i ? ", " : " ") + pairs[i].label;
  if (pairs.size() > 3) out += ", …";
  return out;
}

}  // namespace saltation
