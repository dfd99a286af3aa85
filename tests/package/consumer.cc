// Uses the installed library: the vertical ball's bounce has Ξ₁₁ = −e.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>

#include <saltation/saltation.h>

int main() {
  saltation::InstallMujocoHandlers();
  if (const std::string e = saltation::MujocoVersionMismatch(); !e.empty()) {
    return std::printf("consumer: %s\n", e.c_str()), 1;
  }
  const char* xml = R"(<mujoco><custom><numeric name="saltation_restitution" data="0.5"/></custom>
    <worldbody><geom type="plane" size="1 1 0.1"/>
    <body pos="0 0 1"><joint type="slide" axis="0 0 1"/><geom type="sphere" size="0.1"/></body>
    </worldbody></mujoco>)";
  mjVFS vfs;
  mj_defaultVFS(&vfs);
  mj_addBufferVFS(&vfs, "m.xml", xml, static_cast<int>(std::string(xml).size()));
  char err[500];
  saltation::ModelPtr m(mj_loadXML("m.xml", &vfs, err, sizeof(err)));
  mj_deleteVFS(&vfs);
  if (!m) return std::printf("load failed: %s\n", err), 1;
  saltation::Model model(m.get());
  saltation::RigidSimulator sim(model);
  saltation::State x{0, Eigen::VectorXd::Zero(1), Eigen::VectorXd::Zero(1), Eigen::VectorXd()};
  saltation::HybridState s = sim.Initialize(x);
  const auto events = sim.Advance(s, 0.6);
  if (events.size() != 1) return std::printf("expected one event\n"), 1;
  const double xi11 = events[0].xi.Dense()(0, 0);
  std::printf("consumer: %s, Xi(0,0) = %.12f\n", saltation::VersionLine().c_str(), xi11);
  return std::abs(xi11 + 0.5) < 1e-9 ? 0 : 1;
}
