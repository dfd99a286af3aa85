// Shared helpers of the unit tests.
#ifndef SALTATION_TESTS_TEST_UTIL_H_
#define SALTATION_TESTS_TEST_UTIL_H_

#include <gtest/gtest.h>
#include <mujoco/mujoco.h>

#include <Eigen/Dense>
#include <string>
#include <vector>

#include "saltation/saltation.h"

#include <algorithm>

namespace saltation::testing {

// Every test derives from this fixture: MuJoCo errors throw (the handlers are installed in
// main), and any MuJoCo warning raised during the test fails it.
class MujocoTest : public ::testing::Test {
 protected:
  void SetUp() override;
  void TearDown() override;
};

// Compiles an MJCF string (through a virtual file system); fails the test with MuJoCo's message.
ModelPtr LoadModelFromString(const std::string& xml);

// The MJCF compiler's error message for a string that must not compile.
std::string CompileError(const std::string& xml);

// ‖A − B‖_F / ‖B‖_F
double RelativeError(const Eigen::MatrixXd& A, const Eigen::MatrixXd& B);

// A readable report of two matrices and their largest discrepancy (for failure messages).
std::string CompareReport(const Eigen::MatrixXd& A, const Eigen::MatrixXd& B, const char* name_a,
                          const char* name_b);

// The contact of geom `geom` at x: its first point in MuJoCo's list (data.main() left at x's
// positions); fails the test if the geom touches nothing.
ContactId ContactOfGeom(const Model& model, Data& data, const State& x, const char* geom);

// A free body dropped from rest whose touchdown point lies right below its centre of mass (the
// impulse turns nothing), H above the plane at the start, gravity G down, restitution e: expects
// the event a touchdown at √(2H/G) (1e-12 s) at `point` (1e-12 m), v⁻ = −√(2GH) (1e-11), v⁺ = −e v⁻
// and no spin after (1e-12), no contact held after, and Ξ's (z, v_z) block a bouncing point's,
// [[−e, 0], [−(1 + e) G / v⁻, −e]] (1e-9; theory.md §9, item 2). The body's z is dof 2 of nv.
void ExpectPointBounce(const RigidEvent& ev, int nv, double H, double G, double e, const Eigen::Vector3d& point);

// A geom's world pose at the model's qpos0 (a position pass on a Data of its own) and the map of
// its local coordinates to the world's.
struct GeomPose {
  Eigen::Vector3d x;
  Eigen::Matrix3d R;
  Eigen::Vector3d World(const Eigen::Vector3d& local) const { return x + R * local; }
};
GeomPose GeomPoseAtRest(const Model& model, const char* geom);

// Ξ of a model whose first nv1 dofs are a robot that also exists alone (Ξ_alone, 2·nv1 square; the
// model's tangent layout [dq; dv] with nv dofs): the largest entry error of the robot's block
// against Ξ_alone, and of everything else against the identity.
struct BlockAgainstAlone {
  double block = 0, outside = 0;
};
BlockAgainstAlone CompareWithAlone(const Eigen::MatrixXd& xi, int nv, const Eigen::MatrixXd& xi_alone, int nv1);

// (model, qpos) => the contact points ListContacts gives after a position pass at qpos (on a Data
// of its own)
std::vector<ContactPoint> ListedPoints(const Model& model, const Eigen::VectorXd& qpos);

// Path of a file under the repository's models/ folder.
std::string ModelPath(const std::string& name);

}  // namespace saltation::testing

#endif  // SALTATION_TESTS_TEST_UTIL_H_
