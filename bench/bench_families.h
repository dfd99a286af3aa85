// Generated model families of the benchmarks and of the scale tests (header only, no state):
//   Balls(n, stagger)        n balls (radius 0.1, mass 1) dropped onto a floor on a grid 0.3 m
//                            apart, ball i from 0.3 + i·stagger m: independent trees; the default
//                            stagger keeps any two touchdowns apart, stagger 0 makes them all one
//                            simultaneous group; restitution 0.6 for the rigid model
//   HumanoidWithObjects(x,n) MuJoCo's humanoid (its MJCF text x) with n free objects (spheres and
//                            boxes alternately) dropped beside it: n = 100 is the humanoid100 scale
//                            (nv = 27 + 6n)
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

}  // namespace families

#endif  // SALTATION_BENCH_BENCH_FAMILIES_H_
