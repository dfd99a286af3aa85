// Solves with J M⁻¹ Jᵀ group by group (islands.h, GroupRows): the matrix is block-diagonal over
// the groups of rows that share no kinematic tree, so each block is formed on its own rows and
// degrees of freedom and factorised on its own — cost Σ rows_g²·dofs_g + rows_g³ instead of
// rows²·nv + rows³ (issue 15: the hook's per-step rigid-force guard on many bodies).
//
//   Compute  (the model, d holding MuJoCo's factor M = Lᵀ D L at J's configuration, the rows J, the
//            rank tolerance, PsdSolver's method) => per group Y_g = D^{−1/2} L^{−ᵀ} J_gᵀ on the
//            group's dofs (entries off them are exactly zero: L is block-diagonal over the trees),
//            A_g = Y_g Y_gᵀ, and its PsdSolver (each block's rank decided against its own scale)
//   Compute  (the model, J and J M⁻¹ already solved, tol, method) => A_g = J_g (J M⁻¹)_gᵀ on the
//            group's dofs, factorised the same way
//            (one group spanning every dof reproduces the whole-matrix arithmetic bit for bit)
//   Solve    (b, one entry per row of J) => x with A x = b, block by block
//   rank     the sum of the blocks' numerical ranks
//
// Reads d's factor; writes only its own buffers, which it keeps from call to call (no allocation
// once a group structure of the same sizes has been seen: the hook's per-step path).
#ifndef SALTATION_ISLAND_SOLVE_H_
#define SALTATION_ISLAND_SOLVE_H_

#include <mujoco/mujoco.h>

#include <Eigen/Dense>
#include <vector>

#include "saltation/contacts.h"
#include "saltation/islands.h"
#include "saltation/psd_solver.h"

namespace saltation {

class IslandSolver {
 public:
  void Compute(const mjModel* m, const mjData* d, const RowMatrix& J, double tol,
               PsdSolver::Method method = PsdSolver::Method::kAuto);
  void Compute(const mjModel* m, const RowMatrix& J, const RowMatrix& JMinv, double tol,
               PsdSolver::Method method = PsdSolver::Method::kAuto);
  void Solve(const Eigen::VectorXd& b, Eigen::VectorXd& x);
  int groups() const { return groups_.count; }
  int rank() const;

 private:
  struct Block {
    RowMatrix full, solved_full;  // the group's rows of J and of the solved rows, full width
    RowMatrix left, right;        // on the group's dofs: A_g = left · rightᵀ (right = left for Y)
    Eigen::MatrixXd A;
    PsdSolver solver;
    Eigen::VectorXd b, x;
  };
  static void GatherRows(const RowMatrix& from, const std::vector<int>& rows, RowMatrix& to);
  static void GatherColumns(const RowMatrix& from, const std::vector<int>& columns, RowMatrix& to);
  RowGroups groups_;
  std::vector<Block> blocks_;
  Eigen::VectorXd sqrt_inv_d_;
};

}  // namespace saltation

#endif  // SALTATION_ISLAND_SOLVE_H_
