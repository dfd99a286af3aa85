// Generated model families of the benchmarks and of the scale tests (header only, no state):
//   Balls(n, stagger)        n balls (radius 0.1, mass 1) dropped onto a floor on a grid 0.3 m
//                            apart, ball i from 0.3 + i·stagger m: independent trees; the default
//                            stagger keeps any two touchdowns apart, stagger 0 makes them all one
//                            simultaneous group; restitution 0.6 for the rigid model
//   HumanoidWithObjects(x,n) MuJoCo's humanoid (its MJCF text x) with n free objects (spheres and
//                            boxes alternately) dropped beside it: n = 100 is the humanoid100 scale
//                            (nv = 27 + 6n)
//   Pile(n)                  n free bodies (spheres, capsules and boxes in turn, mass 1) in four
//                            layers of ⌈n/4⌉ on a grid 0.3 m apart, layer k at 0.2 + 0.3·k m, each
//                            body shifted by a few cm so the layers land on one another off centre
//                            and no two touchdowns coincide: islands that merge as the pile settles
//                            (n = 200 is issue 17's 200-body pile, nv = 6n); restitution 0.3
//   BoxPile(n)               Pile(n)'s layout with boxes only: the box-on-box landings (faces lying
//                            flat on faces, turned alike, offset by a few cm) that stopped the rigid
//                            reference before the box–box points were our own
//   Stool(feet)              a free body, a seat (cylinder, mass 1, off its centre) on `feet` sphere
//                            feet (radius 0.03, mass 0.1 + 0.2·k, 0.2 m from its axis at angle
//                            2πk/feet + 0.3), level 0.27 m above the floor: every foot lands at
//                            the same instant (√(2·0.27/g) = 0.235 s), one simultaneous group
//                            whose orders differ; feet named foot0, foot1, …; restitution 0.3
#ifndef SALTATION_BENCH_BENCH_FAMILIES_H_
#define SALTATION_BENCH_BENCH_FAMILIES_H_

#include <cmath>
#include <stdexcept>
#include <string>

namespace families {

inline std::string Balls(int n, double stagger = 0.0173) {
  if (n < 1) throw std::invalid_argument("Balls: n must be at least 1");
  const int columns = static_cast<int>(std::ceil(std::sqrt(static_cast<double>(n))));
  std::string xml = R"(<mujoco model="balls">
  <option timestep="0.002"/>
  <custom><numeric name="saltation_restitution" data="0.6"/></custom>
  <worldbody>
    <geom name="floor" type="plane" size="10 10 0.1"/>
)";
  for (int i = 0; i < n; i++) {
    const double x = 0.3 * (i % columns), y = 0.3 * (i / columns), z = 0.3 + stagger * i;
    xml += "    <body name=\"ball" + std::to_string(i) + "\" pos=\"" + std::to_string(x) + " " + std::to_string(y) +
           " " + std::to_string(z) + "\"><freejoint/><geom type=\"sphere\" size=\"0.1\" mass=\"1\"/></body>\n";
  }
  return xml + "  </worldbody>\n</mujoco>\n";
}

inline std::string HumanoidWithObjects(std::string humanoid_xml, int n) {
  const size_t end = humanoid_xml.rfind("</worldbody>");
  if (end == std::string::npos) throw std::invalid_argument("HumanoidWithObjects: no </worldbody>");
  std::string objects;
  for (int i = 0; i < n; i++) {
    const double x = 1.0 + 0.4 * (i % 10), y = -1.8 + 0.4 * (i / 10), z = 0.3 + 0.011 * i;
    const std::string geom = i % 2 ? R"(<geom type="box" size="0.06 0.06 0.06" mass="0.5"/>)"
                                   : R"(<geom type="sphere" size="0.08" mass="0.5"/>)";
    objects += "    <body name=\"object" + std::to_string(i) + "\" pos=\"" + std::to_string(x) + " " +
               std::to_string(y) + " " + std::to_string(z) + "\"><freejoint/>" + geom + "</body>\n";
  }
  humanoid_xml.insert(end, objects);
  return humanoid_xml;
}

// the pile's layout with the bodies in turn from `kinds` (0 sphere, 1 capsule, 2 box)
inline std::string PileOf(int n, const std::string& name, const std::string& kinds) {
  if (n < 1) throw std::invalid_argument(name + ": n must be at least 1");
  const int per_layer = (n + 3) / 4;
  const int columns = static_cast<int>(std::ceil(std::sqrt(static_cast<double>(per_layer))));
  std::string xml = "<mujoco model=\"" + name + "\">" + R"(
  <option timestep="0.002"/>
  <custom><numeric name="saltation_restitution" data="0.3"/></custom>
  <worldbody>
    <geom name="floor" type="plane" size="10 10 0.1"/>
)";
  static const char* const kGeoms[3] = {R"(<geom type="sphere" size="0.08" mass="1"/>)",
                                        R"(<geom type="capsule" size="0.05 0.06" euler="0 90 0" mass="1"/>)",
                                        R"(<geom type="box" size="0.07 0.07 0.07" euler="0 0 20" mass="1"/>)"};
  for (int i = 0; i < n; i++) {
    const int layer = i / per_layer, cell = i % per_layer;
    const double x = 0.3 * (cell % columns) + 0.037 * layer + 0.0011 * (i % 7);
    const double y = 0.3 * (cell / columns) + 0.029 * layer + 0.0013 * (i % 5);
    const double z = 0.2 + 0.3 * layer + 0.0007 * cell;
    xml += "    <body name=\"b" + std::to_string(i) + "\" pos=\"" + std::to_string(x) + " " + std::to_string(y) + " " +
           std::to_string(z) + "\"><freejoint/>" + kGeoms[kinds[i % kinds.size()] - '0'] + "</body>\n";
  }
  return xml + "  </worldbody>\n</mujoco>\n";
}

inline std::string Pile(int n) { return PileOf(n, "pile", "012"); }
inline std::string BoxPile(int n) { return PileOf(n, "box_pile", "2"); }

inline std::string Stool(int feet) {
  if (feet < 1) throw std::invalid_argument("Stool: feet must be at least 1");
  std::string xml = R"(<mujoco model="stool">
  <option gravity="0 0 -9.81"/>
  <custom><numeric name="saltation_restitution" data="0.3"/></custom>
  <worldbody>
    <geom name="floor" type="plane" size="5 5 0.1"/>
    <body name="stool" pos="0 0 0.4"><freejoint/>
      <geom type="cylinder" size="0.2 0.02" mass="1" pos="0.03 -0.02 0"/>
)";
  for (int k = 0; k < feet; k++) {
    const double a = 2 * M_PI * k / feet + 0.3;
    xml += "      <geom name=\"foot" + std::to_string(k) + "\" type=\"sphere\" size=\"0.03\" pos=\"" +
           std::to_string(0.2 * std::cos(a)) + " " + std::to_string(0.2 * std::sin(a)) + " -0.1\" mass=\"" +
           std::to_string(0.1 + 0.2 * k) + "\"/>\n";
  }
  return xml + "    </body>\n  </worldbody>\n</mujoco>\n";
}

}  // namespace families

#endif  // SALTATION_BENCH_BENCH_FAMILIES_H_
