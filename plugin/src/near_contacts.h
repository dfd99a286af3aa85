// Near-contacts reported by MuJoCo itself: the hook's copy of the model has its gaps widened on
// the geoms for which that is exact, so MuJoCo 4 (which detects within margin + gap, summed over
// the two geoms, and activates within margin) lists every point within δ of touching with its
// distance, and the physics is unchanged.
//
//   GapWideningIsExact (type1, type2) => whether widening is exact for that pair of geom types
//   MayCollide         (m, g1, g2)    => whether MuJoCo's own filters let that geom pair collide
//   WidenNearContacts  (m, δ) => m's geom gaps and pair gaps changed, decided per pair (and the body
//                      margins raised to cover the bands: model.h's CoverBandsInBodyMargins); returns
//                                the pairs MuJoCo may collide whose band could not be widened
#ifndef SALTATION_NEAR_CONTACTS_H_
#define SALTATION_NEAR_CONTACTS_H_

#include <mujoco/mujoco.h>

#include <string>
#include <vector>

namespace saltation {

// A geom pair that MuJoCo may collide but whose near-contacts are not reported (its events are
// seen once it touches).
struct UntrackedPair {
  int geom1 = -1, geom2 = -1;
  std::string label;   // "geom1/geom2" (GeomLabel names)
  std::string reason;  // "capsule–cylinder", …: the pair of types whose collision the gap changes
};

// Per pair: every geom pair MuJoCo may collide whose types allow widening gets a band > 0 (δ when
// both geoms are widened, δ/2 when one is). Geom gaps are per geom, so a geom with a partner of a
// type whose collision a wider band changes (a capsule with a cylinder) is still widened by +δ/2
// when that partner can take −δ/2: the pair's summed gap is then unchanged, bit for bit (checked),
// and so is its physics; the partner's other pairs keep their band where their other geom is
// widened, and lose it (listed) where it is not. Explicit <pair>s get δ on their own pair gap when
// their types allow it, and are listed otherwise.
std::vector<UntrackedPair> WidenNearContacts(mjModel* m, double delta);

// One line for all of `pairs`: how many, why, and a few of them; "" when there are none.
std::string UntrackedSummary(const std::vector<UntrackedPair>& pairs);

// MuJoCo 4.0.1's filters for a dynamic (non-<pair>) geom pair, as mj_collision applies them:
// contact disabled, contype/conaffinity, same weld body, parent–child weld bodies (unless
// mjDSBL_FILTERPARENT), <exclude>, and a <pair> listing the same two geoms (which replaces it).
bool MayCollide(const mjModel* m, int g1, int g2);

// Widening the gaps of a pair of these geom types leaves MuJoCo 4.0.1's physics bitwise as it was
// and makes it report the pair's distance within the gap (MujocoFacts.GapWidening measures every
// pair): a plane against anything, spheres, capsules and boxes among themselves, a sphere and a
// cylinder. Not: cylinders with anything else, ellipsoids, meshes (their convex collision
// iterates differently with a wider band).
bool GapWideningIsExact(int type1, int type2);

}  // namespace saltation

#endif  // SALTATION_NEAR_CONTACTS_H_
