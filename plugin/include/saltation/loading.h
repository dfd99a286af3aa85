// Loading a model and choosing its start state, shared by the command line and the viewer.
//
//   (path)                 => LoadModel        => an mjModel the caller owns, or ConfigError
//   (working directory)    => DefaultModelPath => models/ball_drop.xml here, else in the source tree
//   (mjModel, name|index)  => FindKeyframe     => the keyframe's index, or −1
//   (mjModel, name|index)  => InitialState     => (time, qpos, qvel, act) of qpos0 or the keyframe
//   (mjModel, name|index)  => InitialControl   => the keyframe's ctrl (nu), or mj_resetData's
//
// A keyframe also holds mocap poses, which neither returns: to apply all of a keyframe to an
// mjData, call MuJoCo's mj_resetDataKeyframe(m, d, FindKeyframe(m, key)) (the viewer does).
#ifndef SALTATION_LOADING_H_
#define SALTATION_LOADING_H_

#include <mujoco/mujoco.h>

#include <string>

#include "saltation/model.h"
#include "saltation/tangent.h"

namespace saltation {

// An MJCF (.xml) or MuJoCo binary (.mjb) model. ConfigError "cannot read model file 'PATH'" when
// the file cannot be read, "could not load 'PATH': MESSAGE" with MuJoCo's message when MuJoCo
// rejects it. Reads the file only; the <custom> fields are checked by Model (or ReadRestitution).
ModelPtr LoadModel(const std::string& path);

// models/ball_drop.xml when the working directory has it, else ball_drop.xml in the source tree's
// models/ (its path fixed when the library is built).
std::string DefaultModelPath();

// The keyframe named `key`, else the one whose index `key` is (a decimal in [0, nkey)); −1 when
// the model has neither, or key is empty.
int FindKeyframe(const mjModel* m, const std::string& key);

// The state the model starts from: mj_resetData's (qpos0, zero velocity, t = 0), or keyframe
// `key` (name or index) when key is not empty. ConfigError "model has no keyframe 'KEY' (it has N
// keyframes)" when there is no such keyframe. The keyframe's ctrl and mocap are not part of it.
State InitialState(const mjModel* m, const std::string& key);

// The controls the model starts with: the keyframe's ctrl (a robot's position targets: without them
// it collapses), or mj_resetData's when key is empty. The same ConfigError as InitialState.
Eigen::VectorXd InitialControl(const mjModel* m, const std::string& key);

}  // namespace saltation

#endif  // SALTATION_LOADING_H_
