// ContactRows builds a contact's rows on the two bodies' dof chains alone (contacts.h): every entry
// equals frame · (J_point(body2) − J_point(body1)) from MuJoCo's own mj_jac, bit for bit, whatever
// the pair — two robots' bodies, a robot and the world, two bodies of one tree (their chains
// meet), a body without dofs welded to a moving one, the world against a static body.
#include <cstdlib>

#include "test_util.h"

namespace saltation::testing {
namespace {

// two robots (a floating base with a hinge–slide link, a ball-jointed hand and a welded tip; an arm
// on a hinge) and a static post
const char* kTwoRobots = R"(
<mujoco>
  <worldbody>
    <geom name="floor" type="plane" size="5 5 0.1"/>
    <body name="post" pos="2 0 0"><geom name="post" size="0.1"/></body>
    <body name="base" pos="0 0 1">
      <freejoint/>
      <geom name="base" size="0.1"/>
      <body name="link" pos="0 0 0.3">
        <joint type="hinge" axis="1 1 0"/>
        <joint type="slide" axis="0 1 0"/>
        <geom name="link" type="capsule" fromto="0 0 0 0 0 0.3" size="0.05"/>
        <body name="hand" pos="0 0.2 0.3"><joint type="ball"/><geom name="hand" size="0.1"/></body>
        <body name="tip" pos="0 -0.2 0.3"><geom name="tip" size="0.05"/></body>
      </body>
    </body>
    <body name="arm" pos="1 0 0">
      <joint type="hinge" axis="0 0 1"/>
      <geom name="arm" size="0.1"/>
      <body name="forearm" pos="0 0 1"><joint type="hinge" axis="1 0 0"/><geom name="forearm" size="0.1"/></body>
    </body>
  </worldbody>
</mujoco>)";

TEST(ContactRows, ChainRowsEqualMujocoJacobian) {
  ModelPtr m = LoadModelFromString(kTwoRobots);
  Model model(m.get());
  Data data(model);
  mjData* d = data.aux();
  const int nv = m->nv;
  std::srand(7);
  auto uniform = [] { return 2.0 * std::rand() / RAND_MAX - 1.0; };
  RowMatrix jac1(3, nv), jac2(3, nv), rows(3, nv);
  int compared = 0, nonzero = 0;
  for (int trial = 0; trial < 20; trial++) {
    for (int i = 0; i < m->nq; i++) d->qpos[i] = uniform();
    mj_kinematics(m.get(), d);
    mj_comPos(m.get(), d);
    for (int g1 = 0; g1 < m->ngeom; g1++) {
      for (int g2 = 0; g2 < m->ngeom; g2++) {
        ContactPoint p;
        p.id.geom1 = g1;
        p.id.geom2 = g2;
        p.pos = Eigen::Vector3d(uniform(), uniform(), uniform());
        p.frame = Eigen::Quaterniond(Eigen::Vector4d(uniform(), uniform(), uniform(), uniform()).normalized())
                      .toRotationMatrix();
        p.condim = 3;
        rows.setConstant(std::nan(""));  // every entry written
        ContactRows(model, d, p, rows, data.work());
        mj_jac(m.get(), d, jac1.data(), nullptr, p.pos.data(), m->geom_bodyid[g1]);
        mj_jac(m.get(), d, jac2.data(), nullptr, p.pos.data(), m->geom_bodyid[g2]);
        for (int r = 0; r < 3; r++) {
          for (int i = 0; i < nv; i++) {
            const Eigen::Vector3d rel = jac2.col(i) - jac1.col(i);
            const double expected = p.frame.row(r).dot(rel);
            ASSERT_EQ(rows(r, i), expected) << "geoms " << g1 << ", " << g2 << " row " << r << " dof " << i;
            compared++;
            nonzero += expected != 0;
          }
        }
      }
    }
  }
  EXPECT_EQ(compared, 20 * m->ngeom * m->ngeom * 3 * nv);
  EXPECT_GT(nonzero, compared / 4);  // the chains' columns, not zeros alone
}

}  // namespace
}  // namespace saltation::testing
