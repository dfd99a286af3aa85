// saltation compare MODEL.xml [options]: the rigid hybrid sensitivity Φ(t1←t0) (the Φ·Ξ·Φ chain)
// against MuJoCo's compliant one (the product of mjd_transitionFD Jacobians) over a window around
// a contact event, as the contact stiffens (theory.md §10).
//
// For each solref time constant τ of the sweep the model is copied, every contact's solref time
// constant set to τ (geoms, explicit pairs, the override), the timestep to τ/N. Pass 1 runs the
// engine hook from the start state to find the first touchdown and the effective restitution
// MuJoCo's contact gives that pair; pass 2 propagates both chains over the window with the rigid
// restitution matched to it. The window's events explain where the two cannot agree (grazing,
// simultaneous events, Zeno, chatter), and the compliant chain's contact-onset term is measured.
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "cli_common.h"
#include "commands.h"

namespace saltation::cli {
namespace {

const char* kCompareUsage = R"(usage: saltation compare [MODEL.xml] [options]

Compares the rigid hybrid sensitivity Phi(t1<-t0) (Phi Xi Phi chain of the rigid model) with
MuJoCo's own compliant one (the product of mjd_transitionFD Jacobians of its steps) over a window
around a contact event, for a sweep of contact stiffness: every contact's solref time constant is
set to tau, the timestep to tau/N, and the rigid restitution is matched to the effective
restitution measured on MuJoCo's contact. Prints per tau the relative Frobenius difference
|Phi_r - Phi_c|/|Phi_c|, the largest element-wise discrepancy and where it sits (layout
(dq, dv, act), named q:JOINT, v:JOINT, act:ACTUATOR), MuJoCo's contact-onset term
|Phi_c(v_n, q_n)|*tau, and flags that say why the two cannot agree (grazing, simultaneous
events, Zeno, chatter, no event, onset-dominated finite differences). Progress goes to stderr.

options:
  --taus T1,T2,...     solref time constants (s), strictly decreasing (stiffer to the right),
                       default 0.02,0.01,0.005,0.002
  --dampratio D        solref damping ratio of every contact, default: each geom's own
  --steps-per-tau N    timestep = tau/N, default 20 (at least 2)
  --solimp DMIN,DMAX,WIDTH[,MID,POWER]
                       impedance of every contact: geoms, pairs and the override
                       (default: each one's own; MID, POWER default 0.5, 2). MuJoCo's
                       default (0.9, 0.95, 0.001) switches the contact force on within one
                       step, which puts the onset term into the finite differences; a
                       smooth onset (DMIN near 0, WIDTH well above the penetration of one
                       step) removes it, e.g. --solimp 0.0001,0.95,0.05 with
                       --steps-per-tau 1000 (README, "Rigid vs compliant")
  --integrator I       keep (default), Euler, RK4 or implicit
  --keyframe K         start from keyframe K (name or index)
  --window T0,T1       the window (s); default: from 0.02 s before the first touchdown to
                       max(0.1 s, 20 tau) after it, but not beyond the next touchdown
  --search S           look for the first touchdown within S s of the start, default 5
  --out FILE.json      {"model", "window", "solimp" (when given), "monotone", "converging",
                       "rows":[{"tau", "timestep", "effective_restitution",
                       "relative_difference", "max_discrepancy", "at", "at_names", "flags",
                       "rigid", "compliant", ...}]} written whole; "converging": the relative
                       difference falls monotonically and ends below 0.5
  -h, --help           this text
)";

constexpr double kBefore = 0.02;  // auto window: seconds before the first touchdown

std::string JsonString(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\u%04x", c);
      out += buf;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::vector<double> ParseList(const std::string& option, const std::string& text) {
  std::vector<double> values;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) values.push_back(ParseNumber(option, item));
  if (values.empty() || (!text.empty() && text.back() == ',')) {
    throw UsageError("option " + option + " needs a comma-separated list of numbers, got '" + text + "'");
  }
  return values;
}

std::string Fmt(const char* format, double x) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), format, x);
  return buf;
}

// names of the tangent coordinates (dq, dv, act): q:JOINT[.k], v:JOINT[.k], act:ACTUATOR
std::vector<std::string> TangentNames(const mjModel* m) {
  std::vector<std::string> dof(m->nv);
  for (int i = 0; i < m->nv; i++) {
    const int j = m->dof_jntid[i];
    const char* name = mj_id2name(m, mjOBJ_JOINT, j);
    std::string base = name && *name ? name : "#" + std::to_string(j);
    const int k = i - m->jnt_dofadr[j];
    if (m->jnt_type[j] == mjJNT_FREE) {
      static const char* kFree[6] = {"x", "y", "z", "rx", "ry", "rz"};
      base += std::string(".") + kFree[k];
    } else if (m->jnt_type[j] == mjJNT_BALL) {
      static const char* kBall[3] = {"rx", "ry", "rz"};
      base += std::string(".") + kBall[k];
    }
    dof[i] = base;
  }
  std::vector<std::string> names;
  for (int i = 0; i < m->nv; i++) names.push_back("q:" + dof[i]);
  for (int i = 0; i < m->nv; i++) names.push_back("v:" + dof[i]);
  for (int a = 0; a < m->na; a++) {
    const int act = m->nu - m->na + a;  // actuators with activation come last
    const char* name = act >= 0 ? mj_id2name(m, mjOBJ_ACTUATOR, act) : nullptr;
    names.push_back("act:" + (name && *name ? std::string(name) : "#" + std::to_string(a)));
  }
  return names;
}

// the same geom pair, whatever the order
bool PairKeyEqual(const ContactId& a, const ContactId& b) {
  return std::min(a.geom1, a.geom2) == std::min(b.geom1, b.geom2) &&
         std::max(a.geom1, a.geom2) == std::max(b.geom1, b.geom2);
}

void CheckStable(const mjData* d, double tau) {
  if (!std::isfinite(d->qpos[0]) || !std::isfinite(d->qvel[0]) || d->warning[mjWARN_BADQACC].number > 0) {
    throw NumericalError("MuJoCo's simulation became unstable at t = " + Fmt("%.6g", d->time) + " s with tau = " +
                         Fmt("%g", tau) + " s (bad acceleration)");
  }
}

bool IsTouchdown(const HookEvent& ev) { return ev.kind == "touchdown" || ev.kind == "graze"; }

struct Settings {
  std::vector<double> taus = {0.02, 0.01, 0.005, 0.002};
  double dampratio = -1;  // < 0: each geom's own
  int steps_per_tau = 20;
  std::vector<double> solimp;  // empty: each geom's own; else mjNIMP values
  int integrator = -1;    // < 0: keep
  std::string keyframe;
  bool window_given = false;
  double window_t0 = 0, window_t1 = 0;
  double search = 5;
};

// a copy of m with every contact's solref time constant τ (and the dampratio, when given) and
// timestep τ/N
ModelPtr Stiffened(const mjModel* m, const Settings& s, double tau) {
  ModelPtr c(mj_copyModel(nullptr, m));
  auto set = [&](mjtNum* solref, const std::string& what) {
    if (solref[0] <= 0 && s.dampratio < 0) {
      throw ConfigError(what + " uses direct solref (stiffness " + Fmt("%g", -solref[0]) + ", damping " +
                        Fmt("%g", -solref[1]) + "): give --dampratio to sweep its time constant");
    }
    solref[0] = tau;
    if (s.dampratio >= 0) solref[1] = s.dampratio;
  };
  auto impedance = [&](mjtNum* solimp) {
    if (!s.solimp.empty()) std::copy(s.solimp.begin(), s.solimp.end(), solimp);
  };
  for (int g = 0; g < c->ngeom; g++) {
    const char* name = mj_id2name(c.get(), mjOBJ_GEOM, g);
    set(c->geom_solref + mjNREF * g, "geom " + (name && *name ? std::string(name) : "#" + std::to_string(g)));
    impedance(c->geom_solimp + mjNIMP * g);
  }
  for (int p = 0; p < c->npair; p++) {
    set(c->pair_solref + mjNREF * p, "contact pair #" + std::to_string(p));
    impedance(c->pair_solimp + mjNIMP * p);
  }
  if (c->opt.enableflags & mjENBL_OVERRIDE) {
    set(c->opt.o_solref, "the override solref");
    impedance(c->opt.o_solimp);
  }
  c->opt.timestep = tau / s.steps_per_tau;
  if (s.integrator >= 0) c->opt.integrator = s.integrator;
  return c;
}

struct Row {
  double tau = 0, timestep = 0, dampratio = 0;
  double restitution = -1;
  bool restitution_measured = false;
  double t_touch = 0, t_next = -1, t0 = 0, t1 = 0;
  std::string contact;
  double relative = 0, absolute = 0, max_discrepancy = 0;
  int at_i = 0, at_j = 0;
  double onset = std::numeric_limits<double>::quiet_NaN();  // |Φc(v_n, q_n)|·τ
  double onset_share = 0;  // |(Φr − Φc)(v_n, q_n)| / ‖Φr − Φc‖
  double relative_off_onset = std::numeric_limits<double>::quiet_NaN();  // onset direction projected out
  std::vector<std::string> flags;
  std::vector<std::string> events;  // kinds in the window, in time order
  Eigen::MatrixXd rigid, compliant;
};

void AddFlag(Row& row, const std::string& flag) {
  if (std::find(row.flags.begin(), row.flags.end(), flag) == row.flags.end()) row.flags.push_back(flag);
}

// MuJoCo's impedance at zero penetration of a contact between the pair's geoms: solimp's DMIN,
// mixed by solmix as MuJoCo mixes geoms (an explicit <pair> of the two takes its own)
double OnsetImpedance(const mjModel* m, const ContactId& id) {
  for (int p = 0; p < m->npair; p++) {
    const int a = m->pair_geom1[p], b = m->pair_geom2[p];
    if ((a == id.geom1 && b == id.geom2) || (a == id.geom2 && b == id.geom1)) return m->pair_solimp[mjNIMP * p];
  }
  if (id.geom1 < 0 || id.geom2 < 0) return 1;
  const double w1 = m->geom_solmix[id.geom1], w2 = m->geom_solmix[id.geom2];
  const double mix = w1 + w2 > mjMINVAL ? w1 / (w1 + w2) : 0.5;
  return mix * m->geom_solimp[mjNIMP * id.geom1] + (1 - mix) * m->geom_solimp[mjNIMP * id.geom2];
}

Row RunOne(const mjModel* base, const Settings& s, const State& x_start, double tau) {
  Row row;
  row.tau = tau;
  // pass 1: the first touchdown (in the window, when given) and MuJoCo's effective restitution
  const HookEvent* first = nullptr;
  std::vector<HookEvent> seen;
  {
    ModelPtr m = Stiffened(base, s, tau);
    row.timestep = m->opt.timestep;
    row.dampratio = m->ngeom ? m->geom_solref[1] : 0;
    HookOptions options;
    options.restitution = RestitutionSource::kAuto;
    Hook hook(m.get(), options);
    DataPtr d(mj_makeData(m.get()));
    StateToData(m.get(), x_start, d.get());
    mj_forward(m.get(), d.get());
    const double dt = m->opt.timestep;
    const double after = std::max(0.1, 20 * tau);
    const double search_end = s.window_given ? s.window_t1 : x_start.time + s.search;
    size_t processed = 0;
    int first_index = -1;
    bool have_e = false;
    for (;;) {
      try {
        hook.Step(d.get());
      } catch (const Error& e) {
        if (first_index < 0) throw;
        // the touchdown is known: keep what was measured up to here
        AddFlag(row, "pass 1 stopped at t = " + Fmt("%.4g", d->time) + " s, where the hook failed: " + e.what());
        break;
      }
      CheckStable(d.get(), tau);
      const std::vector<HookEvent>& events = hook.events();
      for (; processed < events.size(); processed++) {
        const HookEvent& ev = events[processed];
        if (first_index < 0) {
          if (IsTouchdown(ev) && (!s.window_given || (ev.time >= s.window_t0 && ev.time <= s.window_t1))) {
            first_index = static_cast<int>(processed);
          }
          continue;
        }
        const HookEvent& f = events[first_index];
        if (ev.kind == "restitution" && !have_e && PairKeyEqual(ev.contact, f.contact)) {
          row.restitution = ev.restitution;
          row.restitution_measured = true;
          have_e = true;
        }
        if (IsTouchdown(ev) && row.t_next < 0 && ev.time > f.time + 10 * dt) row.t_next = ev.time;
      }
      if (first_index < 0) {
        if (d->time > search_end + 2 * dt) break;
        continue;
      }
      const double t_touch = hook.events()[first_index].time;
      const double horizon = s.window_given ? s.window_t1 : t_touch + after;
      const bool window_seen = row.t_next >= 0 || d->time > horizon + 3 * dt;
      if (have_e && window_seen) break;
      if (d->time > std::max(horizon, t_touch + 0.2) + 10 * dt) break;  // the hook measures within 0.2 s
    }
    seen = hook.events();
    if (first_index < 0) {
      std::string kinds;
      for (const HookEvent& ev : seen) {
        if (ev.kind != "restitution") kinds += (kinds.empty() ? "" : ", ") + ev.kind + Fmt(" at %.4f s", ev.time);
      }
      const std::string where = s.window_given
                                    ? "in the window [" + Fmt("%g", s.window_t0) + ", " + Fmt("%g", s.window_t1) + "] s"
                                    : "within " + Fmt("%g", s.search) + " s of the start";
      throw ConfigError("no touchdown " + where + " (tau = " + Fmt("%g", tau) + " s): nothing to compare" +
                        (kinds.empty() ? " (no contact events at all)" : " (events seen: " + kinds + ")"));
    }
    first = &seen[first_index];
    row.t_touch = first->time;
    row.contact = ContactLabel(hook.rigid_model(), first->contact);
    if (!have_e) {
      const double e = hook.EffectiveRestitution(first->contact.geom1, first->contact.geom2);
      row.restitution = e >= 0 ? e : hook.rigid_model().PairRestitution(first->contact.geom1, first->contact.geom2);
      row.restitution_measured = e >= 0;
    }
  }
  if (!row.restitution_measured) AddFlag(row, "effective restitution not measured (the model's value is used)");
  if (s.window_given) {
    row.t0 = s.window_t0;
    row.t1 = s.window_t1;
  } else {
    row.t0 = std::max(x_start.time, row.t_touch - kBefore);
    row.t1 = row.t_touch + std::max(0.1, 20 * tau);
    if (row.t_next > 0) row.t1 = std::min(row.t1, row.t_next - 0.1 * (row.t_next - row.t_touch));
  }

  // pass 2: both chains over the window, the rigid restitution matched. An error of the hook's
  // bookkeeping after the event shortens the window to end before it (flagged) rather than
  // losing the row.
  HookOptions options;
  options.restitution = RestitutionSource::kOverride;
  options.restitution_override = std::clamp(row.restitution, 0.0, 1.0);
  options.propagation = Propagation::kBoth;
  ModelPtr m;
  std::unique_ptr<Hook> hook;  // declared after m: destroyed (margins restored) before it
  Eigen::MatrixXd pre;         // Φc(t_k ← t0) at the last step end t_k before the touchdown
  for (int attempt = 0;; attempt++) {
    hook.reset();
    m = Stiffened(base, s, tau);
    hook = std::make_unique<Hook>(m.get(), options);
    DataPtr d(mj_makeData(m.get()));
    StateToData(m.get(), x_start, d.get());
    mj_forward(m.get(), d.get());
    const double dt = m->opt.timestep;
    while (d->time < row.t0 - 0.5 * dt) mj_step(m.get(), d.get());
    std::string failure;
    while (hook->phi_time() < row.t1 - 0.5 * dt || hook->phi_time() <= hook->phi_t0()) {
      if (hook->phi_compliant().size() && hook->phi_time() <= row.t_touch) {
        pre = hook->phi_compliant() * std::exp(hook->phi_compliant_log_scale());
      }
      try {
        hook->Step(d.get());
      } catch (const Error& e) {
        failure = e.what();
        break;
      }
      CheckStable(d.get(), tau);
    }
    if (failure.empty()) break;
    if (attempt > 0 || s.window_given || d->time - 4 * dt <= row.t_touch + 5 * dt) {
      throw NumericalError("the engine hook failed at t = " + Fmt("%.6g", d->time) + " s (tau = " + Fmt("%g", tau) +
                           " s): " + failure);
    }
    AddFlag(row, "window shortened to end before t = " + Fmt("%.4g", d->time) + " s, where the hook failed: " + failure);
    row.t1 = d->time - 3 * dt;
  }
  row.t0 = hook->phi_t0();
  row.t1 = hook->phi_time();
  row.rigid = hook->phi_rigid() * std::exp(hook->phi_rigid_log_scale());
  row.compliant = hook->phi_compliant() * std::exp(hook->phi_compliant_log_scale());
  const Eigen::MatrixXd D = row.rigid - row.compliant;
  row.absolute = D.norm();
  row.relative = row.absolute / row.compliant.norm();
  row.max_discrepancy = D.cwiseAbs().maxCoeff(&row.at_i, &row.at_j);

  // the window's events and what they mean for first-order agreement
  const HookEvent* touch = nullptr;
  bool any_event = false;
  for (const HookEvent& ev : hook->events()) {
    if (ev.time < row.t0 - 1e-12 || ev.time > row.t1 + 1e-12) continue;
    row.events.push_back(ev.kind);
    if (ev.kind != "restitution" && ev.kind != "near_miss") any_event = true;
    if (IsTouchdown(ev) && ev.has_xi && !touch) touch = &ev;
    if (ev.kind == "graze" || ev.kind == "near_miss" || ev.grazing) {
      AddFlag(row, "grazing: first-order theory does not apply");
    } else if (ev.kind == "simultaneous") {
      AddFlag(row, "simultaneous events: the sensitivity depends on the order (spread " +
                       Fmt("%.3g", ev.order_spread) + ")");
    } else if (ev.kind == "zeno") {
      AddFlag(row, "zeno: bounces accumulate at t = " + Fmt("%.4g", ev.accumulation_time) +
                       " s, the rigid model holds the contact from there");
    } else if (ev.kind == "chatter") {
      AddFlag(row, "chatter: a contact switches on and off within a few steps");
    }
  }
  if (!any_event) AddFlag(row, "no event in the window: nothing for the two to disagree about at an event");
  // MuJoCo's contact-onset term: ∂v_n(t1)/∂q_n(t0) along the touchdown's contact normal. The
  // compliant chain misses the jump of the contact damping force at the onset (it switches on in
  // whole steps; finite differences never cross it), an error of rank one whose row is the
  // onset time's sensitivity ∝ ∇gᵀΦ(t_touch ← t0); the difference with that direction of the
  // initial perturbation projected out shows how the rest converges.
  const HookEvent* normal_source = touch ? touch : (first && first->has_xi ? first : nullptr);
  const int nv = m->nv, n = static_cast<int>(row.rigid.rows());
  if (normal_source && normal_source->rigid.xi.grad_g.size() == n) {
    const Eigen::VectorXd grad = normal_source->rigid.xi.grad_g;
    Eigen::VectorXd normal = grad.head(nv);
    if (normal.norm() > 0) {
      normal.normalize();
      row.onset = std::abs(normal.dot(row.compliant.block(nv, 0, nv, nv) * normal)) * tau;
      const double d_onset = std::abs(normal.dot(D.block(nv, 0, nv, nv) * normal));
      row.onset_share = row.absolute > 0 ? d_onset / row.absolute : 0;
    }
    const Eigen::MatrixXd P0 = pre.rows() == n ? pre : Eigen::MatrixXd::Identity(n, n);
    Eigen::VectorXd w = P0.transpose() * grad;
    if (w.norm() > 0) {
      w.normalize();
      const Eigen::MatrixXd Q = Eigen::MatrixXd::Identity(n, n) - w * w.transpose();
      row.relative_off_onset = (D * Q).norm() / (row.compliant * Q).norm();
    }
  }
  // a touchdown on the time grid: the state perturbations of mjd_transitionFD switch the contact
  // on and off within one step's Jacobian, which then holds (force jump)/eps — when there is a
  // jump: an impedance that starts near 0 (smooth onset) switches on without one
  if (normal_source && OnsetImpedance(m.get(), normal_source->contact) > 0.01) {
    const double vn = std::abs(normal_source->rigid.xi.transversality);
    const double jn = normal_source->rigid.xi.grad_g.head(nv).norm();
    const double k = (normal_source->time - x_start.time) / row.timestep;
    const double off_grid = std::abs(k - std::round(k)) * row.timestep;
    if (vn > 0 && off_grid * vn < 10 * options.fd_eps * jn) {
      AddFlag(row, "touchdown on the time grid (" + Fmt("%.2g", off_grid) +
                       " s from a step): MuJoCo's finite differences can straddle the contact switch");
    }
  }
  const double rigid_norm = row.rigid.norm();
  if (rigid_norm <= 1e-9 * std::max(1.0, row.compliant.norm())) {
    AddFlag(row, "the rigid sensitivity vanishes (plastic impact into resting contact): the relative difference is 1 "
                 "whatever tau; see absolute_difference");
  } else if (row.relative > 0.5 && row.onset_share > 0.5 && row.onset > 0.05) {
    AddFlag(row, "compliant FD dominated by the contact-onset term (|Phi_c(v_n, q_n)|*tau = " + Fmt("%.3g", row.onset) +
                     ": grows like 1/tau; a smooth-onset --solimp removes it)");
  }
  if (!row.rigid.allFinite() || !row.compliant.allFinite()) AddFlag(row, "a chain is not finite");
  return row;
}

}  // namespace

int RunCompare(const std::vector<std::string>& args) {
  std::string model_path, out;
  Settings s;
  for (size_t i = 0; i < args.size(); i++) {
    const std::string& a = args[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= args.size()) throw UsageError("option " + a + " needs a value");
      return args[++i];
    };
    if (a == "-h" || a == "--help") {
      std::printf("%s", kCompareUsage);
      return 0;
    } else if (a == "--taus") {
      s.taus = ParseList(a, value());
      for (size_t k = 0; k < s.taus.size(); k++) {
        if (!(s.taus[k] > 0)) throw UsageError("--taus must be positive, got " + Fmt("%g", s.taus[k]));
        if (k && !(s.taus[k] < s.taus[k - 1])) {
          throw UsageError("--taus must be strictly decreasing (stiffer to the right), got " + Fmt("%g", s.taus[k - 1]) +
                           " then " + Fmt("%g", s.taus[k]));
        }
      }
    } else if (a == "--dampratio") {
      s.dampratio = ParseNumber(a, value());
      if (!(s.dampratio > 0)) throw UsageError("--dampratio must be positive");
    } else if (a == "--solimp") {
      s.solimp = ParseList(a, value());
      if (s.solimp.size() != 3 && s.solimp.size() != 5) {
        throw UsageError("--solimp needs DMIN,DMAX,WIDTH or DMIN,DMAX,WIDTH,MID,POWER");
      }
      if (s.solimp.size() == 3) s.solimp.insert(s.solimp.end(), {0.5, 2});  // MuJoCo's default shape
      // DMIN > DMAX is allowed: an impedance falling with depth
      for (int k = 0; k < 2; k++) {
        if (!(s.solimp[k] >= mjMINIMP && s.solimp[k] <= mjMAXIMP)) {
          throw UsageError("--solimp needs DMIN and DMAX in [" + Fmt("%g", mjMINIMP) + ", " + Fmt("%g", mjMAXIMP) +
                           "], got " + Fmt("%g", s.solimp[k]));
        }
      }
      if (!(s.solimp[2] > 0)) throw UsageError("--solimp WIDTH must be positive");
      if (!(s.solimp[3] > 0 && s.solimp[3] < 1)) throw UsageError("--solimp MID must lie in (0, 1)");
      if (!(s.solimp[4] >= 1)) throw UsageError("--solimp POWER must be at least 1");
    } else if (a == "--steps-per-tau") {
      const double n = ParseNumber(a, value());
      if (!(n >= 2 && n <= 10000 && n == std::floor(n))) throw UsageError("--steps-per-tau must be an integer in [2, 10000]");
      s.steps_per_tau = static_cast<int>(n);
    } else if (a == "--integrator") {
      std::string name = value();
      std::string lower = name;
      std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
      if (lower == "keep") {
        s.integrator = -1;
      } else if (lower == "euler") {
        s.integrator = mjINT_EULER;
      } else if (lower == "rk4") {
        s.integrator = mjINT_RK4;
      } else if (lower == "implicit") {
        s.integrator = mjINT_IMPLICIT;
      } else {
        throw UsageError("--integrator must be keep, Euler, RK4 or implicit, not '" + name + "'");
      }
    } else if (a == "--keyframe") {
      s.keyframe = value();
    } else if (a == "--window") {
      const std::vector<double> w = ParseList(a, value());
      if (w.size() != 2 || !(w[0] < w[1])) throw UsageError("--window needs T0,T1 with T0 < T1");
      s.window_given = true;
      s.window_t0 = w[0];
      s.window_t1 = w[1];
    } else if (a == "--search") {
      s.search = ParseNumber(a, value());
      if (!(s.search > 0)) throw UsageError("--search must be positive");
    } else if (a == "--out") {
      out = value();
    } else {
      TakeModelArgument(a, model_path, kCompareUsage);
    }
  }
  if (model_path.empty()) model_path = DefaultModelPath();
  ModelPtr m = LoadModel(model_path);
  Model check(m.get());  // reads the <custom> configuration: ConfigError on bad values
  const State x0 = InitialState(m.get(), s.keyframe);
  if (s.window_given && s.window_t0 < x0.time) {
    throw UsageError("--window starts at " + Fmt("%g", s.window_t0) + " s, before the start state (t = " +
                     Fmt("%g", x0.time) + " s)");
  }
  if (m->ngeom < 2 && m->npair == 0) throw ConfigError("model '" + model_path + "' has no geoms that could touch");

  const char* integrator_names[] = {"Euler", "RK4", "implicit"};
  const int integrator = s.integrator >= 0 ? s.integrator : m->opt.integrator;
  std::printf("model %s: nv=%d na=%d, tangent dimension %d, integrator %s%s, timestep tau/%d, dampratio %s\n",
              model_path.c_str(), static_cast<int>(m->nv), static_cast<int>(m->na), TangentDim(m.get()),
              integrator >= 0 && integrator < 3 ? integrator_names[integrator] : "?",
              s.integrator >= 0 ? "" : " (the model's)", s.steps_per_tau,
              s.dampratio > 0 ? Fmt("%g", s.dampratio).c_str() : "each geom's own");
  if (!s.solimp.empty()) {
    std::printf("solimp of every contact: %g %g %g %g %g\n", s.solimp[0], s.solimp[1], s.solimp[2], s.solimp[3],
                s.solimp[4]);
  }
  if (s.window_given) {
    std::printf("window [%g, %g] s\n", s.window_t0, s.window_t1);
  } else {
    std::printf("window: %g s before the first touchdown to max(0.1 s, 20 tau) after it, not beyond the next touchdown\n",
                kBefore);
  }
  std::fflush(stdout);

  std::vector<Row> rows;
  const auto start = std::chrono::steady_clock::now();
  for (size_t k = 0; k < s.taus.size(); k++) {
    const double tau = s.taus[k];
    std::fprintf(stderr, "compare: [%zu/%zu] tau = %g s, timestep %g s ... (%.1f s elapsed)\n", k + 1, s.taus.size(),
                 tau, tau / s.steps_per_tau,
                 std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    rows.push_back(RunOne(m.get(), s, x0, tau));
  }
  for (const std::string& w : TakeMujocoWarnings()) std::fprintf(stderr, "MuJoCo warning: %s\n", w.c_str());

  const std::vector<std::string> names = TangentNames(m.get());
  std::printf("\n%9s %10s %6s %6s %9s %9s %9s %9s %9s  %-22s %11s %5s\n", "tau (s)", "timestep", "e_eff",
              "dampr", "t0 (s)", "t1 (s)", "rel diff", "off-onset", "max |D|", "at (row, col)", "|onset|*tau", "flags");
  for (const Row& r : rows) {
    const std::string at = "(" + names[r.at_i] + ", " + names[r.at_j] + ")";
    std::printf("%9.4g %10.4g %6.3f %6.3g %9.4f %9.4f %9.4g %9.4g %9.4g  %-22s %11.4g %5zu\n", r.tau, r.timestep,
                r.restitution, r.dampratio, r.t0, r.t1, r.relative, r.relative_off_onset, r.max_discrepancy, at.c_str(),
                r.onset, r.flags.size());
  }
  std::printf("\n");
  for (const Row& r : rows) {
    std::string kinds;
    for (const std::string& e : r.events) kinds += (kinds.empty() ? "" : " ") + e;
    std::printf("tau %g s: touchdown %s at %.6f s%s; events in the window: %s\n", r.tau, r.contact.c_str(), r.t_touch,
                r.t_next > 0 ? Fmt(" (next at %.6f s)", r.t_next).c_str() : "", kinds.empty() ? "none" : kinds.c_str());
    for (const std::string& f : r.flags) std::printf("  flag: %s\n", f.c_str());
  }
  bool monotone = rows.size() >= 2;
  for (size_t k = 1; k < rows.size(); k++) monotone = monotone && rows[k].relative < rows[k - 1].relative;
  if (rows.size() < 2) {
    std::printf("verdict: one tau only, no trend\n");
  } else if (monotone && rows.back().relative < 0.5) {
    std::printf("verdict: the relative difference falls monotonically as the contact stiffens (%.4g -> %.4g)\n",
                rows.front().relative, rows.back().relative);
  } else if (monotone) {
    // falling, but still far apart at the stiffest tau (e.g. the onset term keeps them there)
    std::printf("verdict: the relative difference falls monotonically (%.4g -> %.4g) but stays above 0.5%s\n",
                rows.front().relative, rows.back().relative,
                rows.back().onset > 0.05 ? ": the compliant chain is dominated by the contact-onset term" : "");
  } else {
    std::string why;
    for (const Row& r : rows) {
      for (const std::string& f : r.flags) {
        const std::string head = f.substr(0, std::min(f.find(':'), f.find(" (")));
        if (why.find(head) == std::string::npos) why += (why.empty() ? "" : "; ") + head;
      }
    }
    std::printf("verdict: the relative difference does NOT fall monotonically as the contact stiffens%s%s\n",
                why.empty() ? " (no flag explains it: the compliant transient may not have settled in the window)"
                            : ": ",
                why.c_str());
  }
  if (!out.empty()) {
    std::string json = "{\"model\":" + JsonString(model_path) + ",\"window\":";
    json += s.window_given ? "[" + JsonNumber(s.window_t0) + "," + JsonNumber(s.window_t1) + "]" : "\"auto\"";
    json += ",\"layout\":\"(dq, dv, act)\",\"steps_per_tau\":" + std::to_string(s.steps_per_tau);
    if (!s.solimp.empty()) {
      json += ",\"solimp\":[";
      for (size_t k = 0; k < s.solimp.size(); k++) json += (k ? "," : "") + JsonNumber(s.solimp[k]);
      json += "]";
    }
    json += ",\"monotone\":" + std::string(monotone ? "true" : "false");
    json += ",\"converging\":" + std::string(monotone && rows.back().relative < 0.5 ? "true" : "false") + ",\"rows\":[";
    for (size_t k = 0; k < rows.size(); k++) {
      const Row& r = rows[k];
      json += k ? ",{" : "{";
      json += "\"tau\":" + JsonNumber(r.tau) + ",\"timestep\":" + JsonNumber(r.timestep);
      json += ",\"dampratio\":" + JsonNumber(r.dampratio);
      json += ",\"effective_restitution\":" + JsonNumber(r.restitution);
      json += ",\"restitution_measured\":" + std::string(r.restitution_measured ? "true" : "false");
      json += ",\"touchdown\":" + JsonNumber(r.t_touch) + ",\"contact\":" + JsonString(r.contact);
      json += ",\"next_touchdown\":" + (r.t_next > 0 ? JsonNumber(r.t_next) : "null");
      json += ",\"t0\":" + JsonNumber(r.t0) + ",\"t1\":" + JsonNumber(r.t1);
      json += ",\"relative_difference\":" + JsonNumber(r.relative);
      json += ",\"absolute_difference\":" + JsonNumber(r.absolute);
      json += ",\"max_discrepancy\":" + JsonNumber(r.max_discrepancy);
      json += ",\"at\":[" + std::to_string(r.at_i) + "," + std::to_string(r.at_j) + "]";
      json += ",\"at_names\":[" + JsonString(names[r.at_i]) + "," + JsonString(names[r.at_j]) + "]";
      json += ",\"onset_term\":" + JsonNumber(r.onset);
      json += ",\"relative_difference_off_onset\":" + JsonNumber(r.relative_off_onset);
      json += ",\"events\":[";
      for (size_t e = 0; e < r.events.size(); e++) json += (e ? "," : "") + JsonString(r.events[e]);
      json += "],\"flags\":[";
      for (size_t f = 0; f < r.flags.size(); f++) json += (f ? "," : "") + JsonString(r.flags[f]);
      json += "],\"rigid\":" + MatrixJson(r.rigid) + ",\"compliant\":" + MatrixJson(r.compliant) + "}";
    }
    json += "]}\n";
    WriteWhole(out, json);
    std::printf("wrote %s\n", out.c_str());
  }
  return 0;
}
}  // namespace saltation::cli
