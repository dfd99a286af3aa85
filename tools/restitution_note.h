// The line `saltation rigid` prints under its table to say why MuJoCo's own simulation of the same
// model may bounce differently: MuJoCo's soft contact measured against the rigid model's
// restitution, e.g. "MuJoCo's contact measured e=0.00 here (floor/ball at 0.412 s); the rigid model
// uses e=0.6 from the MJCF".
#ifndef SALTATION_TOOLS_RESTITUTION_NOTE_H_
#define SALTATION_TOOLS_RESTITUTION_NOTE_H_

#include <mujoco/mujoco.h>

#include <string>

namespace saltation::cli {

// Steps MuJoCo's simulation through the hook from the start `key` (ctrl held at the keyframe's)
// until its first measured restitution, at most `duration` s of simulated time and 20000 steps;
// `restitution` is rigid's --restitution ("model" or a number). Returns the explanation, which
// names both values, or a general one when MuJoCo measured none in that time.
std::string RestitutionNote(const mjModel* m, const std::string& key, const std::string& restitution, double duration);

}  // namespace saltation::cli

#endif  // SALTATION_TOOLS_RESTITUTION_NOTE_H_
