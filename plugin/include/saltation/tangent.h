// States and tangent-space arithmetic in MuJoCo's layout.
//
// A state is x = (qpos ∈ R^nq, qvel ∈ R^nv, act ∈ R^na). Perturbations live in the tangent space
// δx = (δq ∈ R^nv, δv ∈ R^nv, δact ∈ R^na), ndx = 2nv + na: the layout of the A matrix of
// mjd_transitionFD. δq is formed with mj_differentiatePos and applied with mj_integratePos, so
// quaternions of free and ball joints are handled on their manifold.
#ifndef SALTATION_TANGENT_H_
#define SALTATION_TANGENT_H_

#include <mujoco/mujoco.h>

#include <Eigen/Dense>
#include <string>
#include <vector>

namespace saltation {

struct State {
  double time = 0;
  Eigen::VectorXd qpos;  // (nq)
  Eigen::VectorXd qvel;  // (nv)
  Eigen::VectorXd act;   // (na)
};

// Size of the tangent space, 2nv + na.
inline int TangentDim(const mjModel* m) { return 2 * m->nv + m->na; }

// Names of the tangent coordinates, the rows and columns of Ξ, Φ and DΔ (ndx): "q:<dof>" for
// δq, "v:<dof>" for δv, "act:<actuator>" for δact. A hinge or slide dof is its joint's name; a
// free joint's six are <joint>.x .y .z .rx .ry .rz (translation, then rotation in the local frame),
// a ball joint's three <joint>.rx .ry .rz. An unnamed joint is named after its body
// ("<body>.joint", or "joint<id>"), an unnamed actuator "actuator<id>".
std::vector<std::string> StateLabels(const mjModel* m);

// Copies qpos/qvel/act/time out of an mjData.
State StateFromData(const mjModel* m, const mjData* d);

// Writes qpos/qvel/act/time of a state into an mjData.
void StateToData(const mjModel* m, const State& x, mjData* d);

// x ⊕ scale·dx: qpos moved with mj_integratePos, qvel and act added. dx is (ndx).
State Integrate(const mjModel* m, const State& x, const Eigen::VectorXd& dx, double scale = 1.0);

// y ⊖ x in tangent coordinates (ndx): (mj_differentiatePos(x.qpos → y.qpos), y.qvel − x.qvel,
// y.act − x.act).
Eigen::VectorXd Difference(const mjModel* m, const State& x, const State& y);

// Time derivative of qpos in its own coordinates (nq) for velocity qvel: hinge and slide copy the
// velocity, a ball or free joint's quaternion gets q̇ = ½ q ⊗ (0, ω) with ω in the local frame,
// and a free joint's position gets the world-frame linear velocity.
void QposRate(const mjModel* m, const double* qpos, const double* qvel, double* qpos_rate);

// ConfigError unless qpos, qvel and act have the model's sizes nq, nv, na.
void CheckSizes(const mjModel* m, const State& x);

// True when every entry of the state is finite.
bool IsFinite(const State& x);

}  // namespace saltation

#endif  // SALTATION_TANGENT_H_
