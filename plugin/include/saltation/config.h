// Configuration of the rigid hybrid model, read from MJCF <custom> numeric fields.
//
//   <custom>
//     <numeric name="saltation_restitution" data="0.5"/>            model default (0 if absent)
//     <numeric name="saltation_restitution:ball" data="0.8"/>       per geom, by geom name
//   </custom>
//
// A geom without its own field uses the model default. A contact between two geoms uses the
// larger of the two geoms' values (the more elastic surface wins, as MuJoCo combines margins).
// Every value must be a single finite number in [0, 1]; anything else is a ConfigError naming
// the field. Other fields whose names start with "saltation_" are rejected too, so a typo does
// not silently fall back to a default.
#ifndef SALTATION_CONFIG_H_
#define SALTATION_CONFIG_H_

#include <mujoco/mujoco.h>

#include <vector>

namespace saltation {

inline constexpr const char* kRestitutionField = "saltation_restitution";

// Per-geom restitution (ngeom) from the model's <custom> fields; throws ConfigError.
std::vector<double> ReadRestitution(const mjModel* m);

}  // namespace saltation

#endif  // SALTATION_CONFIG_H_
