// MuJoCo's own step re-run from a saved state with another length (the hook's sub-steps).
//
//   Capture                  (m, d)                => SavedStep: everything mj_step reads of d
//   LoadInputs               (m, x_k's inputs, d)  => d's inputs (ctrl, qfrc_applied,
//                                              xfrc_applied, the mocap poses) are x_k's: those of the
//                                              step that starts there, which a mode evaluation inside
//                                              it reads (a mocap body the user moves is placed where
//                                              the step had it; Options::mocap_motion, when given,
//                                              overrides the poses by time)
//   Resimulator::Step        (saved x_k, h)        => data(): MuJoCo's step of length h from x_k
//   Resimulator::Load        (saved x_k)           => data() holds x_k and its inputs (no step)
//   Resimulator::PrepareSubsteps / Substep  (x_k, h) => data(): Euler sub-steps sharing one
//                                              forward pass (bitwise what Step gives; only when
//                                              ForwardIgnoresTimestep()); a PrepareSubsteps from the
//                                              state (bit for bit) whose forward pass data() holds
//                                              already, no other call in between, runs none (the
//                                              localisations of one step's crossings share it)
//   Resimulator::StepJacobian (x_k, h, eps)    => ∂x_{k+1}/∂x_k of MuJoCo's step (tangent layout)
//
// Borrows the stepped model (the hook's copy, which outlives it): its timestep is changed during a
// call and put back, nothing else of it is written. Its own mjData starts with a small arena
// (private_arena.h); a call that fills it is taken again on the full one (the model's narena
// plus the band's contacts, AddBandArena), so what data() holds is what a full arena gives, bit
// for bit. The caller's data is never touched.
#ifndef SALTATION_RESIMULATION_H_
#define SALTATION_RESIMULATION_H_

#include <mujoco/mujoco.h>

#include <Eigen/Dense>

#include "saltation/model.h"
#include "saltation/tangent.h"

namespace saltation {

// what the user sets before a step and MuJoCo only reads: controls, applied forces, mocap poses
struct StepInputs {
  Eigen::VectorXd ctrl, qfrc_applied, xfrc_applied, mocap_pos, mocap_quat;
};

// a MuJoCo state with everything mj_step reads from mjData
struct SavedStep : StepInputs {
  double time = 0;
  Eigen::VectorXd qpos, qvel, act, warmstart;
  State state() const { return State{time, qpos, qvel, act}; }
};

void Capture(const mjModel* m, const mjData* d, SavedStep& out);
void LoadInputs(const mjModel* m, const StepInputs& from, mjData* d);

class Resimulator {
 public:
  // borrows m (see above); the arena starts at start_arena bytes (0: SmallArenaBytes; at most the
  // full arena; the tests make it tiny to see it fill)
  explicit Resimulator(mjModel* m, mjtSize start_arena = 0);
  mjtSize full_arena() const { return full_arena_; }

  void Load(const SavedStep& from);
  void Step(const SavedStep& from, double h);
  // MuJoCo's forward pass reads the timestep only through refsafe: when no time constant is
  // below 2·timestep, one forward pass serves Euler sub-steps of every length
  bool ForwardIgnoresTimestep() const;
  void PrepareSubsteps(const SavedStep& from);
  void Substep(const SavedStep& from, double h);
  long forward_passes() const { return forward_passes_; }  // run by PrepareSubsteps (a retaken one counted once)
  // MuJoCo's step Jacobian: mjd_transitionFD (forward differences, step eps; on the full arena:
  // it takes O(n²) of MuJoCo's stack) except with RK4 (MuJoCo 4 refuses it there), where whole
  // steps are differenced
  Eigen::MatrixXd StepJacobian(const SavedStep& from, double h, double eps);

  State StateNow() const { return StateFromData(model_, data_.get()); }
  mjData* data() {  // (the caller may change it: the next PrepareSubsteps runs its forward pass)
    prepared_ = false;
    return data_.get();
  }
  const mjModel* model() const { return model_; }

 private:
  // runs op (which starts from a loaded state) and, when it filled the small arena, grows the
  // arena and runs it again; grows it first when half of it was used by the calls before
  template <typename Op>
  void Sized(Op op);
  // h as the model's timestep for op, the model's own put back
  template <typename Op>
  void WithTimestep(double h, Op op);

  mjModel* model_;
  mjtSize full_arena_ = 0;  // the arena a full-size data gets: m's narena and the band's contacts
  DataPtr data_;
  Eigen::VectorXd substep_qpos_;  // qpos after PrepareSubsteps' forward pass
  // data_ holds the forward pass at prepared_from_ (only Substep has run since)
  bool prepared_ = false;
  SavedStep prepared_from_;
  long forward_passes_ = 0;
};

}  // namespace saltation

#endif  // SALTATION_RESIMULATION_H_
