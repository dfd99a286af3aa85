// Near-contacts reported by MuJoCo itself: the hook's copy of the model has its gaps widened by
// δ/2 per geom (δ the detection margin) on the geoms for which that is exact, so MuJoCo 4 (which
// detects within margin + gap and activates within margin) lists every point within δ of
// touching with its distance, and the physics is unchanged.
//
//   GapWideningIsExact (type1, type2) => whether widening is exact for that pair of geom types
//   WidenNearContacts  (m, δ) => m's geom gaps (δ/2) and pair gaps (δ) widened where exact;
//                                returns the geom pairs that may collide but are not tracked
//                                exactly ("name1/name2": a geom with a partner of a type whose
//                                collision does not honour the gap)
#ifndef SALTATION_NEAR_CONTACTS_H_
#define SALTATION_NEAR_CONTACTS_H_

#include <mujoco/mujoco.h>

#include <string>
#include <vector>

namespace saltation {

std::vector<std::string> WidenNearContacts(mjModel* m, double delta);

// Widening the gaps of a pair of these geom types leaves MuJoCo 4.0.1's physics bitwise as it was
// and makes it report the pair's distance within the gap (MujocoFacts.GapWidening measures every
// pair): a plane against anything, spheres, capsules and boxes among themselves, a sphere and a
// cylinder. Not: cylinders with anything else, ellipsoids, meshes (their convex collision
// iterates differently with a wider band).
bool GapWideningIsExact(int type1, int type2);

}  // namespace saltation

#endif  // SALTATION_NEAR_CONTACTS_H_
