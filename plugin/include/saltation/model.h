// Model / Data split of the rigid hybrid model.
//
// Model is built once from a user's mjModel and never changes (no setters): sizes, options,
// per-geom restitution (run-time values live in a RestitutionTable, restitution.h) and a private
// copy of the mjModel whose margins and gaps are both enlarged by the detection margin. Enlarging margin and gap together keeps includemargin = margin − gap, so the
// rigid surface (guard zero) is where MuJoCo puts it, while contacts up to the detection margin
// away are reported with their signed distance. Data holds every workspace used to evaluate the
// model: two mjData and the reused storage of the contact and constraint rows (Workspace); make
// one per thread.
#ifndef SALTATION_MODEL_H_
#define SALTATION_MODEL_H_

#include <mujoco/mujoco.h>

#include <Eigen/Dense>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace saltation {

// A mocap body's prescribed pose and velocity at one time (world): a surface moved by a known
// function of time. Translation only: the orientation is held (angular velocity 0).
struct MocapSample {
  Eigen::Vector3d pos = Eigen::Vector3d::Zero();
  Eigen::Vector4d quat = Eigen::Vector4d(1, 0, 0, 0);
  Eigen::Vector3d vel = Eigen::Vector3d::Zero();  // d pos / dt
};
// (time, mocap index 0..nmocap−1) => its sample
using MocapMotion = std::function<MocapSample(double t, int mocap)>;

// A control law: writes the model's nu actuator controls for time t and the state (qpos: nq
// values, qvel: nv) into ctrl — a table of time (control_table.h), a feedback law, a callback from
// Python. The rigid reference evaluates it wherever it evaluates the flow (Options::control);
// MuJoCo's own stepping applies it once per step, before the step (MuJoCo holds ctrl over a step).
using ControlLaw = std::function<void(double t, const mjtNum* qpos, const mjtNum* qvel, mjtNum* ctrl)>;

struct Options {
  // extra margin (m) within which contact points are tracked; < 0 picks 5% of the model's extent
  // (at least 1 cm). A point must be seen inside it before it touches, or the event is missed.
  double detect_margin = -1;
  // |dist − includemargin| (m) under which a contact point counts as touching
  double contact_tol = 1e-9;
  // |normal velocity| (m/s) under which a touching contact counts as resting
  double velocity_tol = 1e-9;
  // singular values of J M⁻¹ Jᵀ below rank_tol·σ_max count as zero (rank deficiency)
  double rank_tol = 1e-9;
  // time step (s) of the stencils that form the bias J̇v of the rows without a closed form
  // (ConstraintBias's five-point stencil; EvaluateWithJdot's three-point one)
  double jdot_step = 1e-4;
  // impacts approaching slower than this (m/s) are plastic whatever the restitution, so a
  // bouncing contact settles instead of bouncing forever (the usual bounce threshold of
  // event-driven engines; Zeno detection proper belongs to the engine hook)
  double min_bounce_speed = 1e-2;
  // tangent-space step of the central differences in the configuration (∂v⁺/∂q, ∂λ/∂x)
  double fd_step = 1e-6;
  // prescribed motion of the mocap bodies (empty: they stay where the mjModel puts them, at rest).
  // With it the touchdown guard of a contact on a mocap body depends on time (∂g/∂t = the
  // surface's normal velocity), impacts take the velocity relative to the surface and Ξ has the
  // time terms (events.h); mode evaluations and RK4 step ends place the mocap bodies at their
  // state's time, so the rigid reference locates strikes on moving surfaces. Not modelled: a
  // contact sustained on a moving surface (its ∂²g/∂t² bias), rotating surfaces.
  MocapMotion mocap_motion;
  // the actuators' controls as a function of time and state (empty: the controls are data's own,
  // held: RigidSimulator::SetControl). With it every mode evaluation (EvaluateMode: RK4 stages,
  // F⁻ and F⁺ of events, the finite differences of the flow) sets them at its state first, so the
  // flow, Ξ and Φ are those of the controlled system. It must be continuous in time and state for
  // the flow to be smooth between events (a table's rows are kinks: control_table.h).
  ControlLaw control;
};

struct ModelDeleter {
  void operator()(mjModel* m) const { mj_deleteModel(m); }
};
struct DataDeleter {
  void operator()(mjData* d) const { mj_deleteData(d); }
};
using ModelPtr = std::unique_ptr<mjModel, ModelDeleter>;
using DataPtr = std::unique_ptr<mjData, DataDeleter>;

using RowMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// A geom as people name it: its own name; an unnamed geom by its body, "body:FL_calf" when it is
// the body's only geom, "body:FL_calf#2" (the body's third geom) otherwise; "#id" when the body
// has no name either.
std::string GeomLabel(const mjModel* m, int geom);

// An object by its name, or "#id" when it has none (bodies in event records and messages, geoms
// where the body is no help, e.g. a solref sweep's message).
std::string NameOrId(const mjModel* m, mjtObj type, int id);

// Room in m's arena (narena) for the contacts the hook's widened detection band lists besides the
// touching ones: 16 more per geom (a pile of 200 bodies lists ≈ 10 per geom in the band; the
// user's arena may hold only the touching ones). For the hook's private copies of the model (the
// rigid model, the re-simulation's): the arena's size changes nothing else.
void AddBandArena(mjModel* m);

// m's body margins made to cover its geoms' detection bands: body_margin[b] ≥ margin + gap of
// every geom of body b. MuJoCo's midphase (mj_collideTree, for bodies with several geoms) culls a
// body pair whose bounding boxes are farther apart than the two body margins, set when the model
// was compiled: geom gaps widened afterwards (the rigid model's band) were cut back there to the
// compiled margins (Go2's calf box was not listed until it was 1.2 mm from the floor, with a 4 cm
// band). Only the culling changes: the contacts and the physics do not. (Contact Override
// replaces the body margins by o_margin there: not covered.)
void CoverBandsInBodyMargins(mjModel* m);

class Model {
 public:
  // Reads the <custom> configuration (ConfigError on bad values) and makes the private copy.
  explicit Model(const mjModel* m, const Options& options = {});

  // the private copy with enlarged detection margins; use it for everything this library does
  const mjModel* mj() const { return m_.get(); }
  // mj() with MuJoCo's sleeping enabled (mjENBL_SLEEP), nothing else changed: for passes on an
  // island's trees with the others put to sleep in a private mjData (island_passes.h). A copy of
  // mj()'s struct alone: it shares mj()'s arrays (no memory; never pass it to mj_deleteModel).
  const mjModel* mj_island_passes() const { return &island_passes_; }
  const Options& options() const { return options_; }

  int nq() const { return m_->nq; }
  int nv() const { return m_->nv; }
  int na() const { return m_->na; }
  int ndx() const { return 2 * m_->nv + m_->na; }
  double detect_margin() const { return detect_margin_; }

  // restitution of a geom as the model's <custom> fields give it; what impacts use at run time
  // (overrides, measured values) is a RestitutionTable built from these (restitution.h)
  double GeomRestitution(int geom) const { return restitution_[geom]; }

  // the geom's name, or its body's when it has none (GeomLabel)
  std::string GeomName(int geom) const;

  // whether the smooth forces the model and its options define act within the trees an island
  // joins (model_forces.h: no equality constraints, activation states, contact-reading
  // transmissions, passive or actuator plugins, control law), found once here; ForceIsland
  // (force_island.h) reads it on every mode evaluation
  bool forces_split_by_tree() const { return forces_split_by_tree_; }

 private:
  ModelPtr m_;
  mjModel island_passes_{};
  Options options_;
  double detect_margin_ = 0;
  std::vector<double> restitution_;
  bool forces_split_by_tree_ = false;
};

// Storage the row builders reuse, sized on first use and kept: a function that takes it uses it
// only inside the call (nothing in it survives a call), so one per thread serves every caller.
struct Workspace {
  RowMatrix jac1, jac2;    // the connect and weld bias's J̇ (3 × nv each, ExactAnchorBias); jac1 also
                           // ConstraintBias's closed-form contact J̇ (contact_jdot.h)
  RowMatrix equality;      // ModeConstraints: MuJoCo's equality rows (neq_rows × nv)
  std::vector<int> match;  // ModeConstraints: each contact's point
};

// How big Data's mjData arenas are: kFull, the model's narena (the user's, plus the band's
// contacts: AddBandArena); kSized, a small arena that EvaluatePosition grows to the full one when
// MuJoCo reports it full (the collision pass is then taken again: the same contacts as with the
// full arena) or, before its pass, when half of it has been used (the hook's workspaces: 3 full
// arenas were 42 MiB for the humanoid, which uses 0.05 MiB of one; private_arena.h).
enum class DataArena { kFull, kSized };

// Per-thread workspaces for a Model: main() and aux() mjData (an evaluation at x on main(), its
// probes at nearby configurations on aux()) and the rows' Workspace. Both have every body placed at
// qpos0 when made (mj_kinematics: passes on an island's trees leave the others where they were).
class Data {
 public:
  explicit Data(const Model& model, DataArena arena = DataArena::kFull);
  mjData* main() { return main_.get(); }
  mjData* aux() { return aux_.get(); }
  Workspace& work() { return work_; }

 private:
  DataPtr main_, aux_;
  Workspace work_;
};

}  // namespace saltation

#endif  // SALTATION_MODEL_H_
