// The rimless wheel on capsule feet (issue 14 item 1): each spoke's capsule (radius ρ = 0.02 m, its
// end cap centred at the spoke's end) touches the slope instead of a tip sphere of the same radius
// there, so the contact geometry — and the closed-form step-map multiplier r² of floquet_test.cc's
// RimlessWheelMultiplierMatchesAngularMomentumBalance — is that of the sphere feet, while MuJoCo's
// capsule–plane tangent (the axis projected on the plane) flips sign each time the stance spoke
// passes vertical, inside the bias stencil for every stance. With the bias taken in the centre's
// frame (mode_dynamics.h ConstraintBias) the return map converges and the multipliers hold.
// Measured with the per-point frames instead (the bias before): 401 return-map steps and 4 Newton
// steps, multiplier 0.617949 (4.1e-4 off r²), trivial 1.000439 — this test fails there.
#include <cmath>
#include <cstdio>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include "test_util.h"

namespace saltation::testing {
namespace {

class CapsuleWheel : public MujocoTest {};

struct Multipliers {
  bool converged = false;
  int iterations = 0;
  double r2 = 0, chain = 0, shooting = 0, trivial = 0, trivial_shooting = 0;
  double half_step = 0, trivial_half_step = 0;  // the cross-check's (FloquetResult::check_spectrum)
  bool consistent = false;
};

Multipliers Analyze(bool capsule_feet) {
  // the model file with the spokes' capsules colliding at the tips' radius, the tips not colliding
  std::ifstream file(ModelPath("rimless_wheel.xml"));
  std::stringstream text;
  text << file.rdbuf();
  std::string xml = text.str();
  const double L = 0.5, rho = 0.02, alpha = M_PI / 8;
  int capsules = 0, tips = 0;
  const std::string spoke = "size=\"0.01\" mass=\"0.02\"", tip = "contype=\"2\"\n            conaffinity=\"1\"";
  for (size_t at = 0; (at = xml.find(spoke, at)) != std::string::npos; capsules++) {
    xml.replace(at, spoke.size(), "size=\"0.02\" mass=\"0.02\" contype=\"2\" conaffinity=\"1\"");
  }
  for (size_t at = 0; (at = xml.find(tip, at)) != std::string::npos; tips++) {
    xml.replace(at, tip.size(), "contype=\"0\" conaffinity=\"0\"");
  }
  EXPECT_EQ(capsules, 8);
  EXPECT_EQ(tips, 8);
  ModelPtr mp = LoadModelFromString(capsule_feet ? xml : text.str());
  Multipliers out;
  if (!mp) return out;
  mjModel* m = mp.get();
  Model model(m);
  RigidSimulator sim(model);
  DataPtr d(mj_makeData(m));
  mj_resetDataKeyframe(m, d.get(), mj_name2id(m, mjOBJ_KEY, "start"));
  const HybridState start = sim.Initialize(StateFromData(m, d.get()));
  const FloquetResult result = AnalyzePeriodicOrbit(sim, start);
  const char* feet = capsule_feet ? "capsule" : "sphere ";
  std::printf("[ %s feet ] converged %d after %d return-map steps (+%d Newton), residual %.1e, period %.6f s\n",
              feet, result.converged, result.iterations, result.newton_iterations, result.residual, result.period);
  out.converged = result.converged;
  out.iterations = result.iterations;
  if (!result.converged || result.constrained_multipliers.size() != 2) return out;

  const int body = mj_name2id(m, mjOBJ_BODY, "wheel");
  const double mass = m->body_mass[body];
  double R[9];
  mju_quat2Mat(R, m->body_iquat + 4 * body);
  double I = 0;
  for (int k = 0; k < 3; k++) I += R[3 + k] * R[3 + k] * m->body_inertia[3 * body + k];
  const double r = (I + mass * (L * L * std::cos(2 * alpha) + 2 * L * rho * std::cos(alpha) + rho * rho)) /
                   (I + mass * (L * L + 2 * L * rho * std::cos(alpha) + rho * rho));
  // the split spectrum: the trivial multiplier on the flow direction, the other one apart
  const FloquetSpectrum& c = result.constrained_spectrum;
  const FloquetSpectrum& s = result.constrained_shooting_spectrum;
  const FloquetSpectrum& h = result.check_spectrum;
  if (!c.has_trivial || c.rest.size() != 1 || s.rest.size() != 1 || h.rest.size() != 1) {
    ADD_FAILURE() << "expected the trivial multiplier and one other";
    return out;
  }
  for (const std::string& f : result.check_failures) std::printf("[ %s feet ] check failed: %s\n", feet, f.c_str());
  std::printf("[ %s feet ] r² = %.9f; chain %.9f (trivial %.10f), shooting %.9f (trivial %.10f), half step %.9f "
              "(trivial %.10f)\n",
              feet, r * r, c.rest(0).real(), c.trivial, s.rest(0).real(), s.trivial, h.rest(0).real(), h.trivial);
  out.r2 = r * r;
  out.chain = c.rest(0).real();
  out.shooting = s.rest(0).real();
  out.trivial = c.trivial;
  out.trivial_shooting = s.trivial;
  out.half_step = h.rest(0).real();
  out.trivial_half_step = h.trivial;
  out.consistent = result.consistent;
  return out;
}

TEST_F(CapsuleWheel, ReturnMapConvergesAndMultiplierMatchesClosedForm) {
  const Multipliers capsule = Analyze(true), sphere = Analyze(false);
  ASSERT_TRUE(capsule.converged);
  ASSERT_TRUE(sphere.converged);
  // measured (fd_eps 1e-5, the trivial multiplier on the flow direction, not the eigenvalue
  // nearest 1): capsule chain 2.2e-8, shooting 3.4e-8, half step 2.6e-8 from r²; trivial 3.0e-8,
  // 8.5e-9, 5.7e-8 from 1 (sphere feet: trivial 6.1e-8, 1.1e-8, 5.7e-8). Before (fd_eps 1e-6, the
  // eigenvalue nearest 1) the trivial ones were 6.1e-7 and 8.8e-7 from 1: this test failed there
  EXPECT_NEAR(capsule.chain, capsule.r2, 1e-6);
  EXPECT_NEAR(capsule.shooting, capsule.r2, 1e-6);
  EXPECT_NEAR(capsule.half_step, capsule.r2, 1e-6);
  EXPECT_NEAR(capsule.trivial, 1, 1e-7);
  EXPECT_NEAR(capsule.trivial_shooting, 1, 1e-7);
  EXPECT_NEAR(capsule.trivial_half_step, 1, 1e-7);
  EXPECT_TRUE(capsule.consistent);
  EXPECT_TRUE(sphere.consistent);
  EXPECT_LE(capsule.iterations, sphere.iterations + 2);
}

}  // namespace
}  // namespace saltation::testing
