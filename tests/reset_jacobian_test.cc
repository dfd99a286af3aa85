// DΔ's configuration block ∂v⁺/∂q from the impact's equations (ConfigurationBlockMethod::kEquations,
// impact.h) against the central differences of the whole impact map with S fixed (kImpactMaps, the
// reference), on impacts whose J M⁻¹ Jᵀ is rank deficient (several contacts of one body landing
// flat), and the fallback to the impact maps when the targets are inconsistent.
#include <cmath>

#include "test_models.h"
#include "test_util.h"

namespace saltation::testing {
namespace {

// A box on a free joint, e = 0.5, sticking (condim 3): flat on four corners.
const char* kBouncyFlatBox = R"(
<mujoco>
  <option gravity="0 0 -9.81"/>
  <custom><numeric name="saltation_restitution" data="0.5"/></custom>
  <worldbody>
    <geom name="floor" type="plane" size="3 3 0.1"/>
    <body name="box" pos="0 0 0.3">
      <freejoint/>
      <geom name="box" type="box" size="0.1 0.15 0.2" mass="1"/>
    </body>
  </worldbody>
</mujoco>)";

// A capsule on a free joint lying along x, e = 0.5, sticking: two end contacts, the axial tangent
// rows alike.
const char* kBouncyCapsule = R"(
<mujoco>
  <option gravity="0 0 -9.81"/>
  <custom><numeric name="saltation_restitution" data="0.5"/></custom>
  <worldbody>
    <geom name="floor" type="plane" size="3 3 0.1"/>
    <body name="rod" pos="0 0 0.3">
      <freejoint/>
      <geom name="rod" type="capsule" fromto="-0.2 0 0 0.2 0 0" size="0.05" mass="1"/>
    </body>
  </worldbody>
</mujoco>)";

// A planar leg (slide x, slide z, hip, knee and ankle hinges about y; M turns with the hip and
// the knee) with a box foot, e = 0.4, sticking: the foot flat on four corners (hip a, knee −2a,
// ankle a, the ankle 0.6 cos a below the hip), twelve rows of rank three.
const char* kFlatFootLeg = R"(
<mujoco>
  <option gravity="0 0 -9.81"/>
  <custom><numeric name="saltation_restitution" data="0.4"/></custom>
  <worldbody>
    <geom name="floor" type="plane" size="3 3 0.1"/>
    <body name="thigh" pos="0 0 0.8">
      <joint name="x" type="slide" axis="1 0 0"/>
      <joint name="z" type="slide" axis="0 0 1"/>
      <joint name="hip" type="hinge" axis="0 1 0"/>
      <geom type="capsule" fromto="0 0 0 0 0 -0.3" size="0.04" mass="3" contype="0" conaffinity="0"/>
      <body name="shank" pos="0 0 -0.3">
        <joint name="knee" type="hinge" axis="0 1 0"/>
        <geom type="capsule" fromto="0 0 0 0 0 -0.3" size="0.03" mass="2" contype="0" conaffinity="0"/>
        <body name="foot" pos="0 0 -0.3">
          <joint name="ankle" type="hinge" axis="0 1 0"/>
          <geom name="foot" type="box" pos="0.03 0 -0.02" size="0.1 0.05 0.02" mass="0.5"/>
        </body>
      </body>
    </body>
  </worldbody>
</mujoco>)";

struct Landing {
  const char* name;
  const char* xml;
  std::vector<double> qpos;  // touching (gap 0 at every contact listed)
  std::vector<double> qvel;
  int nrow, rank;
};

// the contacts touching at x (gap within 1e-9)
std::vector<ContactId> Touching(const Model& model, Data& data, const State& x) {
  EvaluatePosition(model, data.main(), x.qpos.data());
  std::vector<ContactPoint> points;
  ListContacts(model, data.main(), points);
  std::vector<ContactId> ids;
  for (const ContactPoint& p : points) {
    if (std::abs(p.gap) <= 1e-9) ids.push_back(p.id);
  }
  return ids;
}

class ResetJacobianEquations : public MujocoTest {};

TEST_F(ResetJacobianEquations, MatchTheImpactMapsOnRankDeficientLandings) {
  const std::vector<Landing> cases = {
      {"flat box", kBouncyFlatBox, {0.1, -0.2, 0.2, 1, 0, 0, 0}, {0.3, -0.2, -1.5, 0, 0, 2}, 12, 6},
      {"capsule", kBouncyCapsule, {0, 0.1, 0.05, 1, 0, 0, 0}, {0.2, 0.1, -1.2, 0, 0, 1}, 6, 5},
      {"flat foot", kFlatFootLeg, {0.05, 0.6 * std::cos(0.3) + 0.04 - 0.8, 0.3, -0.6, 0.3}, {0.4, -1.3, 1, -1.5, 2.5}, 12, 3},
  };
  for (const Landing& c : cases) {
    SCOPED_TRACE(c.name);
    ModelPtr m = LoadModelFromString(c.xml);
    Model model(m.get());
    Data data(model);
    const RestitutionTable restitution(model);
    State x;
    x.qpos = Eigen::Map<const Eigen::VectorXd>(c.qpos.data(), c.qpos.size());
    x.qvel = Eigen::Map<const Eigen::VectorXd>(c.qvel.data(), c.qvel.size());
    x.act = Eigen::VectorXd::Zero(m->na);
    const std::vector<ContactId> touching = Touching(model, data, x);
    const ImpactResult impact = SolveImpact(model, data, restitution, x, touching);
    EXPECT_EQ(impact.nrow, c.nrow);
    EXPECT_EQ(impact.rank, c.rank);  // rank deficient
    const std::vector<ContactId> S = impact.ImpulseSet();
    ASSERT_EQ(S.size(), touching.size());
    const ResetJacobian fast = ImpactResetJacobian(model, data, restitution, x, S);
    const ResetJacobian maps =
        ImpactResetJacobian(model, data, restitution, x, S, ConfigurationBlockMethod::kImpactMaps);
    EXPECT_EQ(fast.dv_dq_method, ConfigurationBlockMethod::kEquations);
    EXPECT_EQ(maps.dv_dq_method, ConfigurationBlockMethod::kImpactMaps);
    EXPECT_EQ(fast.dv_dv, maps.dv_dv);
    const double err = RelativeError(fast.dv_dq, maps.dv_dq);
    std::printf("[ ∂v⁺/∂q equations vs impact maps ] %-10s relative error %.2e, ‖∂v⁺/∂q‖ %.3g\n", c.name, err,
                maps.dv_dq.norm());
    EXPECT_GT(maps.dv_dq.norm(), 0.1);  // not trivially zero
    // measured 1.2e-9…9.8e-9: the reference's own noise (the impact maps move by 1e-8 between steps
    // 1e-6 and 1e-5, the equations by 4e-10)
    EXPECT_LT(err, 2e-8) << CompareReport(fast.dv_dq, maps.dv_dq, "equations", "impact maps");
  }
}

// One corner approaching below the bounce threshold, the other three above: restitution on three
// of the four dependent normal rows only, so no v⁺ meets every target (the pseudo-inverse's least
// squares): the impact maps give ∂v⁺/∂q.
TEST_F(ResetJacobianEquations, InconsistentTargetsTakeTheImpactMaps) {
  ModelPtr m = LoadModelFromString(kBouncyFlatBox);
  Model model(m.get());
  Data data(model);
  const RestitutionTable restitution(model);
  State x;
  x.qpos = (Eigen::VectorXd(7) << 0, 0, 0.2, 1, 0, 0, 0).finished();
  // the corners (±0.1, ±0.15) approach at −1 ± 0.15 ω_x ± 0.1 ω_y: −slow, −1, −1, −2 + slow
  const double slow = 0.5 * model.options().min_bounce_speed;
  x.qvel = (Eigen::VectorXd(6) << 0, 0, -1, (1 - slow) / 0.3, (1 - slow) / 0.2, 0).finished();
  x.act = Eigen::VectorXd::Zero(0);
  const std::vector<ContactId> S = Touching(model, data, x);
  ASSERT_EQ(S.size(), 4u);
  const ResetJacobian reset = ImpactResetJacobian(model, data, restitution, x, S);
  EXPECT_EQ(reset.dv_dq_method, ConfigurationBlockMethod::kImpactMaps);
  const ResetJacobian maps =
      ImpactResetJacobian(model, data, restitution, x, S, ConfigurationBlockMethod::kImpactMaps);
  EXPECT_EQ(reset.dv_dq, maps.dv_dq);
}

}  // namespace
}  // namespace saltation::testing
