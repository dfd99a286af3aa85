#include "test_util.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <sstream>
#include <vector>

namespace saltation::testing {

void MujocoTest::SetUp() { TakeMujocoWarnings(); }

void MujocoTest::TearDown() {
  for (const std::string& w : TakeMujocoWarnings()) ADD_FAILURE() << "MuJoCo warning: " << w;
}

namespace {

mjModel* Compile(const std::string& xml, std::string* error) {
  auto vfs = std::make_unique<mjVFS>();
  mj_defaultVFS(vfs.get());
  mj_addBufferVFS(vfs.get(), "model.xml", xml.data(), static_cast<int>(xml.size()));
  char err[1000] = "";
  mjModel* m = mj_loadXML("model.xml", vfs.get(), err, sizeof(err));
  mj_deleteVFS(vfs.get());
  *error = err;
  return m;
}

}  // namespace

ModelPtr LoadModelFromString(const std::string& xml) {
  std::string error;
  mjModel* m = Compile(xml, &error);
  if (!m) ADD_FAILURE() << "MJCF did not compile: " << error;
  return ModelPtr(m);
}

std::string CompileError(const std::string& xml) {
  std::string error;
  ModelPtr m(Compile(xml, &error));
  return m ? std::string() : error;
}

double RelativeError(const Eigen::MatrixXd& A, const Eigen::MatrixXd& B) {
  return (A - B).norm() / B.norm();
}

std::string CompareReport(const Eigen::MatrixXd& A, const Eigen::MatrixXd& B, const char* name_a,
                          const char* name_b) {
  std::ostringstream out;
  Eigen::Index i = 0, j = 0;
  if (A.rows() == B.rows() && A.cols() == B.cols() && A.size()) {
    (A - B).cwiseAbs().maxCoeff(&i, &j);
    out << "largest discrepancy at (" << i << ", " << j << "): " << name_a << " = " << A(i, j)
        << ", " << name_b << " = " << B(i, j) << "\n";
  }
  const Eigen::IOFormat fmt(6, 0, ", ", "\n", "  [", "]");
  out << name_a << " =\n" << A.format(fmt) << "\n" << name_b << " =\n" << B.format(fmt) << "\n";
  return out.str();
}

ContactId ContactOfGeom(const Model& model, Data& data, const State& x, const char* geom) {
  EvaluatePosition(model, data.main(), x.qpos.data());
  std::vector<ContactPoint> points;
  ListContacts(model, data.main(), points);
  const int g = mj_name2id(model.mj(), mjOBJ_GEOM, geom);
  for (const ContactPoint& p : points) {
    if (p.id.geom1 == g || p.id.geom2 == g) return p.id;
  }
  ADD_FAILURE() << "no contact of " << geom;
  return {};
}

void ExpectPointBounce(const RigidEvent& ev, int nv, double H, double G, double e, const Eigen::Vector3d& point) {
  EXPECT_EQ(ev.kind, EventKind::kTouchdown);
  EXPECT_NEAR(ev.time, std::sqrt(2 * H / G), 1e-12);
  EXPECT_LT((ev.point - point).norm(), 1e-12);
  const double v_minus = ev.x_minus.qvel(2);
  EXPECT_NEAR(v_minus, -std::sqrt(2 * G * H), 1e-11);
  EXPECT_NEAR(ev.x_plus.qvel(2), -e * v_minus, 1e-12);
  EXPECT_LT(ev.x_plus.qvel.tail(3).norm(), 1e-12);
  EXPECT_TRUE(ev.mode_after.contacts.empty());
  const Eigen::MatrixXd xi = ev.xi.Dense();
  const int z = 2, vz = nv + 2;
  Eigen::Matrix2d block, expected;
  block << xi(z, z), xi(z, vz), xi(vz, z), xi(vz, vz);
  expected << -e, 0, -(1 + e) * G / v_minus, -e;
  EXPECT_LT((block - expected).cwiseAbs().maxCoeff(), 1e-9) << CompareReport(block, expected, "Ξ", "closed form");
}

GeomPose GeomPoseAtRest(const Model& model, const char* geom) {
  Data data(model);
  mj_kinematics(model.mj(), data.main());
  const int g = mj_name2id(model.mj(), mjOBJ_GEOM, geom);
  EXPECT_GE(g, 0) << "no geom " << geom;
  if (g < 0) return {Eigen::Vector3d::Zero(), Eigen::Matrix3d::Identity()};
  return {Eigen::Map<const Eigen::Vector3d>(data.main()->geom_xpos + 3 * g),
          Eigen::Map<const Eigen::Matrix<double, 3, 3, Eigen::RowMajor>>(data.main()->geom_xmat + 9 * g)};
}

BlockAgainstAlone CompareWithAlone(const Eigen::MatrixXd& xi, int nv, const Eigen::MatrixXd& xi_alone, int nv1) {
  BlockAgainstAlone e;
  for (int r = 0; r < 2 * nv; r++) {
    for (int c = 0; c < 2 * nv; c++) {
      if (r % nv < nv1 && c % nv < nv1) {
        e.block = std::max(e.block, std::abs(xi(r, c) - xi_alone(r / nv * nv1 + r % nv, c / nv * nv1 + c % nv)));
      } else {
        e.outside = std::max(e.outside, std::abs(xi(r, c) - (r == c ? 1.0 : 0.0)));
      }
    }
  }
  return e;
}

std::vector<ContactPoint> ListedPoints(const Model& model, const Eigen::VectorXd& qpos) {
  Data data(model);
  EvaluatePosition(model, data.main(), qpos.data());
  std::vector<ContactPoint> points;
  ListContacts(model, data.main(), points);
  return points;
}

std::string ModelPath(const std::string& name) {
  return std::string(SALTATION_SOURCE_DIR) + "/models/" + name;
}

}  // namespace saltation::testing
