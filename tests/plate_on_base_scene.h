// The scene of the held-anchor tests (held_anchor_test.cc for the exact reference,
// hook_mode_matching_test.cc for the engine hook): a frictionless 0.1 × 0.1 × 0.008 m plate (mass 1,
// free joint) lying flat on a 0.6 × 0.6 m box top at z = 0, its centre at x = kPlateStartX; sliding
// at 1 m/s along x its four bottom corners move 0.1 m in 0.1 s, far further than the corners are
// apart, so a held corner must keep matching its own point.
#ifndef SALTATION_TESTS_PLATE_ON_BASE_SCENE_H_
#define SALTATION_TESTS_PLATE_ON_BASE_SCENE_H_

namespace saltation::testing {

constexpr double kPlateHalf = 0.05, kPlateThick = 0.004, kPlateStartX = -0.2;

inline constexpr const char* kPlateOnBase = R"(
<mujoco>
  <option timestep="0.001"/>
  <worldbody>
    <body name="plate" pos="-0.2 0 0.004"><freejoint/>
      <geom name="plate" type="box" size="0.05 0.05 0.004" mass="1" condim="1"/>
    </body>
    <body name="base" pos="0 0 -0.05"><geom name="base" type="box" size="0.3 0.3 0.05" condim="1"/></body>
  </worldbody>
</mujoco>)";

}  // namespace saltation::testing

#endif  // SALTATION_TESTS_PLATE_ON_BASE_SCENE_H_
