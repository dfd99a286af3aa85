// Small MJCF models used by several tests, inline so each test shows what it runs on.
#ifndef SALTATION_TESTS_TEST_MODELS_H_
#define SALTATION_TESTS_TEST_MODELS_H_

#include <string>

namespace saltation::testing {

// Vertical ball on a slide joint above a plane; restitution set by the caller's <custom>.
inline std::string VerticalBall(double restitution) {
  return R"(
<mujoco>
  <option gravity="0 0 -9.81"/>
  <custom><numeric name="saltation_restitution" data=")" +
         std::to_string(restitution) + R"("/></custom>
  <worldbody>
    <geom name="floor" type="plane" size="2 2 0.1"/>
    <body name="ball" pos="0 0 1">
      <joint name="z" type="slide" axis="0 0 1"/>
      <geom name="ball" type="sphere" size="0.1" mass="1"/>
    </body>
  </worldbody>
</mujoco>)";
}

// A one-legged robot's bodies (for a <worldbody>): a free trunk (box, 2 kg) at (0, 0, 1), a knee hinge
// about y, a shin capsule that collides with nothing and a sphere foot of radius 0.03 whose centre
// is 0.25 m below the trunk's origin (and 0.15 m ahead) at knee angle 0.
inline const char* kOneLeggedRobot = R"(
    <body name="trunk" pos="0 0 1">
      <freejoint/>
      <geom name="trunk" type="box" size="0.1 0.05 0.05" mass="2"/>
      <body name="shin" pos="0.1 0 -0.05">
        <joint name="knee" type="hinge" axis="0 1 0" damping="0.1"/>
        <geom name="shin" type="capsule" fromto="0 0 0 0.05 0 -0.17" size="0.02" mass="0.3" contype="0" conaffinity="0"/>
        <geom name="foot" type="sphere" pos="0.05 0 -0.2" size="0.03" mass="0.1"/>
      </body>
    </body>)";

// Two spheres of mass 2 and 1 on one line, no gravity, frictionless (theory.md §9 item 1). The
// second joint's axis points along −x, so J = −[1 1] as in the worked example.
inline const char* kTwoBlocks = R"(
<mujoco>
  <option gravity="0 0 0"/>
  <worldbody>
    <body name="a">
      <joint name="xa" type="slide" axis="1 0 0"/>
      <geom name="a" type="sphere" size="0.1" mass="2" condim="1"/>
    </body>
    <body name="b" pos="0.5 0 0">
      <joint name="xb" type="slide" axis="-1 0 0"/>
      <geom name="b" type="sphere" size="0.1" mass="1" condim="1"/>
    </body>
  </worldbody>
</mujoco>)";

// A frictionless ball (slide x, slide z) on top of a fixed sphere of radius 1 (curved surface:
// the constraint bias J̇v carries the centripetal term).
inline const char* kBallOnDome = R"(
<mujoco>
  <option gravity="0 0 -9.81"/>
  <worldbody>
    <geom name="dome" type="sphere" size="1" condim="1"/>
    <body name="ball">
      <joint name="x" type="slide" axis="1 0 0"/>
      <joint name="z" type="slide" axis="0 0 1"/>
      <geom name="ball" type="sphere" size="0.1" mass="1" condim="1"/>
    </body>
  </worldbody>
</mujoco>)";

// Free-joint ball with friction (condim 3) thrown onto a plane; bounces with e = 0.5.
inline const char* kFreeBall = R"(
<mujoco>
  <option gravity="0 0 -9.81"/>
  <custom><numeric name="saltation_restitution" data="0.5"/></custom>
  <worldbody>
    <geom name="floor" type="plane" size="3 3 0.1"/>
    <body name="ball" pos="0 0 0.5">
      <freejoint/>
      <geom name="ball" type="sphere" size="0.1" mass="1"/>
    </body>
  </worldbody>
</mujoco>)";

// Planar two-link arm (hinges about y) whose tip sphere strikes a frictionless plane; e = 0.3.
inline const char* kTwoLinkArm = R"(
<mujoco>
  <option gravity="0 0 -9.81"/>
  <custom><numeric name="saltation_restitution" data="0.3"/></custom>
  <worldbody>
    <geom name="floor" type="plane" size="3 3 0.1" condim="1"/>
    <body name="upper" pos="0 0 0.6">
      <joint name="shoulder" type="hinge" axis="0 1 0"/>
      <geom type="capsule" fromto="0 0 0 0.5 0 0" size="0.04" mass="1" contype="0" conaffinity="0"/>
      <body name="lower" pos="0.5 0 0">
        <joint name="elbow" type="hinge" axis="0 1 0"/>
        <geom type="capsule" fromto="0 0 0 0.5 0 0" size="0.035" mass="0.6" contype="0"
              conaffinity="0"/>
        <geom name="tip" type="sphere" pos="0.5 0 0" size="0.05" mass="0.2" condim="1"/>
      </body>
    </body>
  </worldbody>
</mujoco>)";

// A box on a free joint, tilted so that one corner lands first; plastic, sticking (condim 3).
inline const char* kTiltedBox = R"(
<mujoco>
  <option gravity="0 0 -9.81"/>
  <worldbody>
    <geom name="floor" type="plane" size="3 3 0.1"/>
    <body name="box" pos="0 0 0.6" euler="20 30 10">
      <freejoint/>
      <geom name="box" type="box" size="0.1 0.15 0.2" mass="1"/>
    </body>
  </worldbody>
</mujoco>)";

// A box on a free joint landing flat: four corners at once. condim is the caller's.
inline std::string FlatBox(int condim) {
  return R"(
<mujoco>
  <option gravity="0 0 -9.81"/>
  <default><geom condim=")" + std::to_string(condim) + R"("/></default>
  <worldbody>
    <geom name="floor" type="plane" size="3 3 0.1"/>
    <body name="box" pos="0 0 0.5">
      <freejoint/>
      <geom name="box" type="box" size="0.1 0.15 0.2" mass="1"/>
    </body>
  </worldbody>
</mujoco>)";
}

// A planar box (slide x, slide z, hinge y) landing on an edge with sticking friction (condim 3):
// the y tangent rows are identically zero and the edge's two corners give dependent rows.
inline const char* kPlanarBox = R"(
<mujoco>
  <option gravity="0 0 -9.81"/>
  <worldbody>
    <geom name="floor" type="plane" size="3 3 0.1"/>
    <body name="box" pos="0 0 0.5">
      <joint name="x" type="slide" axis="1 0 0"/>
      <joint name="z" type="slide" axis="0 0 1"/>
      <joint name="pitch" type="hinge" axis="0 1 0"/>
      <geom name="box" type="box" size="0.1 0.15 0.2" mass="1"/>
    </body>
  </worldbody>
</mujoco>)";

// Two balls on slide joints coupled by a joint equality (z_b = z_a, a MuJoCo equality
// constraint, rigid in every mode); only ball a reaches the floor. Restitution 0.5.
inline const char* kCoupledBalls = R"(
<mujoco>
  <option gravity="0 0 -9.81"/>
  <custom><numeric name="saltation_restitution" data="0.5"/></custom>
  <worldbody>
    <geom name="floor" type="plane" size="3 3 0.1"/>
    <body name="a" pos="0 0 0.5">
      <joint name="za" type="slide" axis="0 0 1"/>
      <geom name="a" type="sphere" size="0.1" mass="1"/>
    </body>
    <body name="b" pos="1 0 1.5">
      <joint name="zb" type="slide" axis="0 0 1"/>
      <geom name="b" type="sphere" size="0.1" mass="3"/>
    </body>
  </worldbody>
  <equality>
    <joint joint1="za" joint2="zb" polycoef="0 1 0 0 0"/>
  </equality>
</mujoco>)";

// A damped pendulum (hinge damping 0.3: tr ∂F/∂x ≠ 0) whose tip strikes a frictionless wall
// (normal −x) with restitution 0.5.
inline const char* kDampedPendulum = R"(
<mujoco>
  <option gravity="0 0 -9.81"/>
  <custom><numeric name="saltation_restitution" data="0.5"/></custom>
  <worldbody>
    <geom name="wall" type="plane" pos="0.35 0 0.6" euler="0 -90 0" size="1 1 0.1" condim="1"/>
    <body name="arm" pos="0 0 0.6">
      <joint name="hinge" type="hinge" axis="0 1 0" damping="0.3"/>
      <geom type="capsule" fromto="0 0 0 -0.5 0 0" size="0.02" mass="0.5" contype="0" conaffinity="0"/>
      <geom name="tip" type="sphere" pos="-0.5 0 0" size="0.05" mass="0.5" condim="1"/>
    </body>
  </worldbody>
</mujoco>)";

// A pendulum without any contact.
inline const char* kPendulum = R"(
<mujoco>
  <worldbody>
    <body name="arm" pos="0 0 1">
      <joint name="hinge" type="hinge" axis="0 1 0"/>
      <geom type="capsule" fromto="0 0 0 0.5 0 0" size="0.05" contype="0" conaffinity="0"/>
    </body>
  </worldbody>
</mujoco>)";

}  // namespace saltation::testing

#endif  // SALTATION_TESTS_TEST_MODELS_H_
