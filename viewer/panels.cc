#include "panels.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <set>

#include "plots.h"
#include "saltation/tangent.h"
#include "scene_markers.h"
#include "simulation.h"

namespace saltation_viewer {
namespace {

const ImVec4 kRed(1.0f, 0.4f, 0.35f, 1);
const ImVec4 kAmber(1.0f, 0.75f, 0.2f, 1);

const char* kPropagationNames[] = {"events", "rigid", "compliant", "both"};
const char* kRestitutionNames[] = {"model", "override", "auto"};

std::string Basename(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// ---- controls --------------------------------------------------------------------------------

void RunControls(Simulation& sim, UiState& ui) {
  mjModel* m = sim.m();
  if (ImGui::Button(sim.running() ? "Pause" : "Run ")) sim.SetRunning(!sim.running());
  ImGui::SameLine();
  if (ImGui::Button("Step")) {
    sim.SetRunning(false);
    sim.StepOnce();
  }
  ImGui::SameLine();
  if (ImGui::Button("Reset")) {
    sim.Reset();
    ui.selected = -1;
  }
  ImGui::SameLine();
  if (ImGui::Button("Reload")) ui.request_reload = true;

  // keyframe
  std::string current = "(initial qpos0)";
  if (sim.keyframe() >= 0) {
    const char* name = mj_id2name(m, mjOBJ_KEY, sim.keyframe());
    current = name && *name ? name : "key " + std::to_string(sim.keyframe());
  }
  ImGui::SetNextItemWidth(180);
  if (ImGui::BeginCombo("keyframe", current.c_str())) {
    if (ImGui::Selectable("(initial qpos0)", sim.keyframe() < 0)) sim.SetKeyframe(-1), ui.selected = -1;
    for (int k = 0; k < m->nkey; k++) {
      const char* name = mj_id2name(m, mjOBJ_KEY, k);
      const std::string label = name && *name ? name : "key " + std::to_string(k);
      if (ImGui::Selectable(label.c_str(), k == sim.keyframe())) sim.SetKeyframe(k), ui.selected = -1;
    }
    ImGui::EndCombo();
  }

  // slow motion
  if (ImGui::Button("-")) ui.speed_index = std::min(ui.speed_index + 1, kSpeedCount - 1);
  ImGui::SameLine();
  if (ImGui::Button("+")) ui.speed_index = std::max(ui.speed_index - 1, 0);
  ImGui::SameLine();
  ImGui::Text("speed %gx", sim.speed());
  if (ui.fixed_frame_time > 0) {
    ImGui::Text("t = %.3f s   (%.4f s per frame)", sim.d()->time, ui.fixed_frame_time);
  } else {
    ImGui::Text("t = %.3f s   real-time factor %.2f", sim.d()->time,
                sim.running() ? sim.measured_rtf() : 0.0);
  }
  ImGui::TextDisabled("%.0f frames/s, step %g s, nv %d", ui.fps, m->opt.timestep, static_cast<int>(m->nv));
}

void SaltationControls(Simulation& sim, UiState& ui) {
  HookSettings& s = ui.pending;
  const mjModel* m = sim.m();
  bool apply = false;
  int prop = static_cast<int>(s.propagation);
  ImGui::SetNextItemWidth(140);
  if (ImGui::Combo("propagation", &prop, kPropagationNames, 4)) {
    s.propagation = static_cast<saltation::Propagation>(prop);
    apply = true;
  }
  float graze = static_cast<float>(s.grazing_threshold);
  ImGui::SetNextItemWidth(140);
  if (ImGui::SliderFloat("grazing threshold", &graze, 1e-4f, 0.5f, "%.4f",
                         ImGuiSliderFlags_Logarithmic)) {
    s.grazing_threshold = graze;
  }
  apply |= ImGui::IsItemDeactivatedAfterEdit();

  int rest = static_cast<int>(s.restitution);
  ImGui::TextUnformatted("restitution");
  for (int i = 0; i < 3; i++) {
    ImGui::SameLine();
    if (ImGui::RadioButton(kRestitutionNames[i], rest == i)) {
      s.restitution = static_cast<saltation::RestitutionSource>(i);
      apply = true;
    }
  }
  if (s.restitution == saltation::RestitutionSource::kOverride) {
    float e = static_cast<float>(s.restitution_override);
    ImGui::SetNextItemWidth(140);
    if (ImGui::SliderFloat("e (every contact)", &e, 0, 1, "%.2f")) s.restitution_override = e;
    apply |= ImGui::IsItemDeactivatedAfterEdit();
  }
  apply |= ImGui::Checkbox("solref time constant", &s.solref_override);
  if (s.solref_override) {
    float tc = static_cast<float>(s.solref_timeconst);
    const float lo = static_cast<float>(2 * m->opt.timestep);
    ImGui::SetNextItemWidth(140);
    if (ImGui::SliderFloat("s (all geoms)", &tc, lo, 0.2f, "%.4f", ImGuiSliderFlags_Logarithmic)) {
      s.solref_timeconst = std::max(tc, lo);
    }
    apply |= ImGui::IsItemDeactivatedAfterEdit();
  }
  if (apply) {
    sim.Apply(s);
    ui.selected = -1;
  }
  if (ImGui::Button("Restart Phi window")) sim.RestartPhiWindow();
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("Phi = I from the current state on");
}

void RecordControls(Simulation& sim, UiState& ui) {
  Recorder& rec = sim.recorder();
  if (!ui.record_base[0]) std::snprintf(ui.record_base, sizeof(ui.record_base), "%s", DefaultRecordBase().c_str());
  bool on = rec.active();
  if (ImGui::Checkbox("record", &on)) {
    if (on) {
      ui.record_error = rec.Open(ui.record_base);
    } else {
      rec.Close();
    }
  }
  ImGui::SameLine();
  ImGui::SetNextItemWidth(200);
  ImGui::InputText("##base", ui.record_base, sizeof(ui.record_base),
                   rec.active() ? ImGuiInputTextFlags_ReadOnly : 0);
  if (!ui.record_error.empty()) {
    ImGui::TextColored(kRed, "%s", ui.record_error.c_str());
  } else if (!rec.active() && !rec.error().empty()) {
    ImGui::TextColored(kRed, "%s", rec.error().c_str());  // a write failed, or the run was reset
  }
  if (rec.active()) {
    ImGui::TextWrapped("%d events -> %s, %s", rec.count(), rec.jsonl_path().c_str(),
                       rec.csv_path().c_str());
  } else {
    ImGui::TextDisabled("writes BASE.jsonl (one event per line) and BASE.csv");
  }
}

// geom groups 0–5 as checkboxes (keys 0–5); a group the model has no geom in is greyed
void GeomGroupControls(mjvOption& vopt, const mjModel* m) {
  const std::vector<int> counts = GeomGroupCounts(m);
  for (int g = 0; g < kGeomGroups; g++) {
    if (g) ImGui::SameLine();
    bool on = vopt.geomgroup[g];
    char label[32];
    std::snprintf(label, sizeof(label), "%d##group%d", g, g);
    if (!counts[g]) ImGui::PushStyleVar(ImGuiStyleVar_Alpha, 0.5f);
    if (ImGui::Checkbox(label, &on)) vopt.geomgroup[g] = on;
    if (!counts[g]) ImGui::PopStyleVar();
    if (ImGui::IsItemHovered()) {
      ImGui::SetTooltip("%d geoms in group %d%s", counts[g], g,
                        g == 3 ? " (MuJoCo Menagerie: the collision geoms)" : "");
    }
  }
}

void ViewControls(UiState& ui, mjvOption& vopt, mjvCamera& cam, const mjModel* m) {
  bool points = vopt.flags[mjVIS_CONTACTPOINT], forces = vopt.flags[mjVIS_CONTACTFORCE];
  if (ImGui::Checkbox("contact points (C)", &points)) vopt.flags[mjVIS_CONTACTPOINT] = points;
  ImGui::SameLine();
  if (ImGui::Checkbox("forces (F)", &forces)) vopt.flags[mjVIS_CONTACTFORCE] = forces;
  float fade = static_cast<float>(ui.marker_fade), window = static_cast<float>(ui.plot_window);
  ImGui::SetNextItemWidth(140);
  if (ImGui::SliderFloat("marker fade (s)", &fade, 0.1f, 20, "%.1f", ImGuiSliderFlags_Logarithmic)) ui.marker_fade = fade;
  ImGui::SetNextItemWidth(140);
  if (ImGui::SliderFloat("plot window (s)", &window, 0.1f, 60, "%.1f", ImGuiSliderFlags_Logarithmic)) ui.plot_window = window;
  std::string camera = "free";
  if (cam.type == mjCAMERA_FIXED) {
    const char* name = mj_id2name(m, mjOBJ_CAMERA, cam.fixedcamid);
    camera = name && *name ? name : "camera " + std::to_string(cam.fixedcamid);
  } else if (cam.type == mjCAMERA_TRACKING) {
    camera = "tracking body " + std::to_string(cam.trackbodyid);
  }
  ImGui::Text("camera: %s  ([ ] cycle, Esc free)", camera.c_str());
  ImGui::Checkbox("shadows", &ui.shadows);
  ImGui::SameLine();
  ImGui::Checkbox("reflections", &ui.reflections);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("renderer: %s", ui.renderer.c_str());
}

void ControlPanel(Simulation& sim, UiState& ui, mjvOption& vopt, mjvCamera& cam, ImVec2 display) {
  ImGui::SetNextWindowPos(ImVec2(10, 10), ImGuiCond_FirstUseEver);
  ImGui::SetNextWindowSize(ImVec2(kLeftWidth, 0), ImGuiCond_FirstUseEver);
  ImGui::Begin("saltation-viewer", nullptr, ImGuiWindowFlags_AlwaysAutoResize);
  ImGui::Text("%s", sim.m() ? Basename(sim.path()).c_str() : "(no model)");
  if (ImGui::IsItemHovered() && sim.m()) ImGui::SetTooltip("%s", sim.path().c_str());
  ImGui::PushTextWrapPos(kLeftWidth - 10);
  if (!ui.load_error.empty()) {
    ImGui::TextColored(kRed, "%s", ui.load_error.c_str());
    if (sim.m()) ImGui::TextDisabled("(still running %s)", Basename(sim.path()).c_str());
  }
  if (!sim.m()) {
    ImGui::TextUnformatted("Drop an MJCF file on the window to load it.");
    ImGui::PopTextWrapPos();
    ImGui::End();
    return;
  }
  if (!sim.hook_error().empty()) ImGui::TextColored(kAmber, "hook: %s", sim.hook_error().c_str());
  if (!sim.step_error().empty()) {
    ImGui::TextColored(kRed, "stopped: %s (Backspace resets)", sim.step_error().c_str());
  }
  for (const std::string& w : ui.warnings) ImGui::TextColored(kAmber, "MuJoCo: %s", w.c_str());
  if (!ui.message.empty() && ImGui::GetTime() < ui.message_until) ImGui::TextDisabled("%s", ui.message.c_str());
  ImGui::PopTextWrapPos();

  RunControls(sim, ui);
  if (ImGui::CollapsingHeader("Saltation", ImGuiTreeNodeFlags_DefaultOpen)) SaltationControls(sim, ui);
  if (ImGui::CollapsingHeader("Record")) RecordControls(sim, ui);
  if (ImGui::CollapsingHeader("Geom groups (keys 0-5)", ImGuiTreeNodeFlags_DefaultOpen)) {
    GeomGroupControls(vopt, sim.m());
  }
  if (ImGui::CollapsingHeader("View")) ViewControls(ui, vopt, cam, sim.m());
  ImGui::TextDisabled("F1 help, Tab hides the panels");
  ImGui::End();
}

// ---- plots and table ------------------------------------------------------------------------

// the plotted time window: the last plot_window seconds, or around the selected event
void PlotRange(const Simulation& sim, const UiState& ui, double* t0, double* t1) {
  *t1 = std::max(sim.d()->time, ui.plot_window);
  *t0 = *t1 - ui.plot_window;
  const auto& events = sim.events();
  if (ui.selected >= 0 && ui.selected < static_cast<int>(events.size())) {
    const double t = events[ui.selected].time;
    if (t < *t0 || t > *t1) {
      *t0 = t - 0.5 * ui.plot_window;
      *t1 = t + 0.5 * ui.plot_window;
    }
  }
}

void PlotsPanel(Simulation& sim, UiState& ui, ImVec2 display) {
  ImGui::SetNextWindowPos(ImVec2(display.x - kRightWidth - 10, 10), ImGuiCond_FirstUseEver);
  ImGui::SetNextWindowSize(ImVec2(kRightWidth, 300), ImGuiCond_FirstUseEver);
  ImGui::Begin("Events over time");
  double t0, t1;
  PlotRange(sim, ui, &t0, &t1);
  const auto& events = sim.events();
  std::vector<PlotPoint> norms, trans;
  std::vector<int> index;
  for (int i = 0; i < static_cast<int>(events.size()); i++) {
    const EventRecord& e = events[i];
    if (e.time < t0 || e.time > t1) continue;
    const ImU32 c = EventColorU32(e.kind, e.grazing);
    norms.push_back({e.time, e.xi_norm, c, i == ui.selected});
    trans.push_back({e.time, e.transversality_rel, c, i == ui.selected});
    index.push_back(i);
  }
  TimePlotSpec a;
  a.title = "|Xi|_2 at each event";
  a.t_min = t0;
  a.t_max = t1;
  a.log_y = true;
  a.height = 85;
  int clicked = TimePlot("xi", a, norms);
  TimePlotSpec b = a;
  b.title = "grazing measure (kinetic-metric cosine; liftoff: cancellation ratio)";
  b.y_max = 1;
  b.threshold = sim.settings().grazing_threshold;
  b.threshold_label = "grazing";
  const int clicked_b = TimePlot("tr", b, trans);
  if (clicked < 0) clicked = clicked_b;
  if (clicked >= 0) SelectEvent(sim, ui, index[clicked]);
  ImGui::End();
}

void EventTable(Simulation& sim, UiState& ui, ImVec2 display) {
  ImGui::SetNextWindowPos(ImVec2(display.x - kRightWidth - 10, 320), ImGuiCond_FirstUseEver);
  ImGui::SetNextWindowSize(ImVec2(kRightWidth, std::max(150.0f, display.y - 330)), ImGuiCond_FirstUseEver);
  const auto& events = sim.events();
  char title[96];
  if (sim.total_events() > static_cast<long>(events.size())) {
    // the ring: the last history() events; a recording has them all
    std::snprintf(title, sizeof(title), "Events (last %zu of %ld)###events", events.size(), sim.total_events());
  } else {
    std::snprintf(title, sizeof(title), "Events (%zu)###events", events.size());
  }
  ImGui::Begin(title);
  // every column as wide as its widest visible cell, every frame (nothing clipped; not
  // resizable, or ImGui would fit them once only); the table scrolls sideways when they do not
  // fit, the time column staying in view
  const ImGuiTableFlags flags = ImGuiTableFlags_ScrollY | ImGuiTableFlags_ScrollX |
                                ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_RowBg |
                                ImGuiTableFlags_BordersOuter | ImGuiTableFlags_BordersV;
  if (ImGui::BeginTable("table", 7, flags)) {
    ImGui::TableSetupScrollFreeze(1, 1);
    ImGui::TableSetupColumn("t [s]");
    ImGui::TableSetupColumn("kind");
    ImGui::TableSetupColumn("contact");
    ImGui::TableSetupColumn("dg.F-");
    ImGui::TableSetupColumn("rel");
    ImGui::TableSetupColumn("|Xi|");
    ImGui::TableSetupColumn("flags");
    ImGui::TableHeadersRow();
    ImGuiListClipper clipper;
    clipper.Begin(static_cast<int>(events.size()));
    while (clipper.Step()) {
      for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; i++) {
        const EventRecord& e = events[i];
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        char label[32];
        std::snprintf(label, sizeof(label), "%.4f##%d", e.time, i);
        if (ImGui::Selectable(label, i == ui.selected, ImGuiSelectableFlags_SpanAllColumns)) {
          SelectEvent(sim, ui, i);
        }
        ImGui::TableNextColumn();
        ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(EventColorU32(e.kind, e.grazing)), "%s", saltation::EventKindName(e.kind));
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(e.contact.c_str());
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(FormatNumber(e.transversality).c_str());
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(FormatNumber(e.transversality_rel).c_str());
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(FormatNumber(e.xi_norm).c_str());
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(e.flags.c_str());
      }
    }
    // follow new events unless one is being inspected
    if (sim.total_events() != ui.seen_events) {
      if (ui.selected < 0) ImGui::SetScrollHereY(1.0f);
      ui.seen_events = sim.total_events();
    }
    ImGui::EndTable();
  }
  ImGui::End();
}

// ---- selected event ----------------------------------------------------------------------------

const std::vector<std::string>& Labels(const mjModel* m, UiState& ui) {
  if (ui.labels_model != m) {
    ui.state_labels = saltation::StateLabels(m);
    ui.labels_model = m;
  }
  return ui.state_labels;
}

// Docked on the right over the plots (movable, closable); one matrix at a time so it fits the
// column.
void SelectedEventPanel(Simulation& sim, UiState& ui, ImVec2 display) {
  const saltation::HookEvent* ev = sim.hook_event(ui.selected);
  if (!ev) return;
  const EventRecord& r = sim.events()[ui.selected];
  ImGui::SetNextWindowPos(ImVec2(display.x - kRightWidth - 10, 10), ImGuiCond_Appearing);
  ImGui::SetNextWindowSize(ImVec2(kRightWidth, 0), ImGuiCond_Appearing);
  bool open = true;
  ImGui::SetNextWindowBgAlpha(1.0f);  // it lies over the plots
  ImGui::Begin("Selected event", &open);
  ImGui::PushTextWrapPos(0);
  ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(EventColorU32(r.kind, r.grazing)), "%s",
                     saltation::EventKindName(r.kind));
  ImGui::SameLine();
  ImGui::Text("t = %.6f s  %s", r.time, r.contact.c_str());
  ImGui::TextDisabled("bracket [%.6f, %.6f] s", ev->bracket_lo, ev->bracket_hi);
  if (!ev->has_xi) {
    ImGui::Text("%s", r.flags.c_str());
    if (r.kind == saltation::EventKind::kRestitution) {
      ImGui::Text("measured e = %.3f (approach %.3f m/s, separation %.3f m/s)", ev->restitution,
                  ev->normal_velocity_minus, ev->normal_velocity_plus);
    }
    ImGui::TextDisabled("(no saltation matrix for this kind of event)");
  } else {
    const saltation::RigidEvent& rig = ev->rigid;
    ImGui::Text("dg.F- = %s  rel = %s  |Xi| = %s", FormatNumber(r.transversality).c_str(),
                FormatNumber(r.transversality_rel).c_str(), FormatNumber(r.xi_norm).c_str());
    ImGui::Text("e = %.3f  rank after %d  mode %zu -> %zu contacts", ev->restitution, rig.rank_after,
                rig.mode_before.contacts.size(), rig.mode_after.contacts.size());
    if (!r.flags.empty()) ImGui::TextDisabled("%s", r.flags.c_str());
    const int nv = sim.m()->nv;
    const std::vector<int> blocks = {nv, 2 * nv};
    const std::vector<std::string>& labels = Labels(sim.m(), ui);
    const float label_width = 110;
    const float map = std::max(120.0f, ImGui::GetContentRegionAvail().x - label_width - 4);
    if (ImGui::BeginTabBar("matrices")) {
      if (ImGui::BeginTabItem("Xi")) {
        ImGui::TextDisabled("saltation matrix: d(state after) / d(state before)");
        HeatMap("xi", rig.xi.Dense(), map, blocks, labels, label_width);
        ImGui::EndTabItem();
      }
      if (ImGui::BeginTabItem("DDelta")) {
        ImGui::TextDisabled("reset map Jacobian (Xi without the timing term)");
        HeatMap("dd", rig.xi.reset.Dense(), map, blocks, labels, label_width);
        ImGui::EndTabItem();
      }
      ImGui::EndTabBar();
    }
    ImGui::TextDisabled("blue < 0 < red, signed log scale; hover a cell for its row and column");
  }
  ImGui::PopTextWrapPos();
  ImGui::End();
  if (!open) ui.selected = -1;
}

// ---- rigid vs compliant -------------------------------------------------------------------------

// a number and, greyed after it, what it means
void Explained(const char* label, const std::string& value, const char* meaning) {
  ImGui::Text("%s %s", label, value.c_str());
  ImGui::Indent();
  ImGui::TextDisabled("%s", meaning);
  ImGui::Unindent();
}

void ComparisonPanel(Simulation& sim, UiState& ui, ImVec2 display) {
  ImGui::SetNextWindowPos(ImVec2(10, display.y - 250), ImGuiCond_FirstUseEver);
  ImGui::SetNextWindowSize(ImVec2(kLeftWidth, 240), ImGuiCond_FirstUseEver);
  ImGui::Begin("Rigid vs compliant");
  ImGui::PushTextWrapPos(0);
  const saltation::Hook* hook = sim.hook();
  const auto& samples = sim.phi_samples();
  if (!hook) {
    ImGui::TextDisabled("no hook attached");
  } else if (hook->phi_rigid().size() == 0 && hook->phi_compliant().size() == 0) {
    ImGui::TextWrapped("Phi is not propagated: choose propagation 'both' to compare the rigid "
                       "model's Phi with MuJoCo's own (mjd_transitionFD).");
  } else {
    Explained("window (s)", FormatNumber(hook->phi_t0()) + " .. " + FormatNumber(hook->phi_time()),
              "Phi maps a perturbation at its start to now");
    if (!samples.empty()) {
      const PhiSample& s = samples.back();
      Explained("log10 |Phi| rigid", FormatNumber(s.log10_rigid),
                "> 0: perturbations grew (the rigid model's prediction)");
      Explained("log10 |Phi| compliant", FormatNumber(s.log10_compliant),
                "the same through MuJoCo's soft contact");
      Explained("rel. difference", FormatNumber(s.relative_difference),
                s.relative_difference < 0.1  ? "< 0.1: the rigid model predicts MuJoCo's sensitivity"
                : s.relative_difference < 1 ? "0.1-1: they agree in part"
                                             : ">= 1: they disagree (soft contact, other restitution, "
                                               "or Phi grows fast)");
    }
    if (hook->phi_rigid().size() && hook->phi_compliant().size()) {
      double t0, t1;
      PlotRange(sim, ui, &t0, &t1);
      std::vector<PlotPoint> line;
      for (const PhiSample& s : samples) {
        if (s.time >= t0 && s.time <= t1) line.push_back({s.time, s.relative_difference, IM_COL32(120, 200, 255, 255)});
      }
      std::vector<PlotPoint> marks;
      for (const EventRecord& e : sim.events()) {
        if (e.time >= t0 && e.time <= t1) marks.push_back({e.time, NAN, EventColorU32(e.kind, e.grazing)});
      }
      TimePlotSpec spec;
      spec.title = "|Phi_r - Phi_c| / |Phi_c| over time (log)";
      spec.t_min = t0;
      spec.t_max = t1;
      spec.log_y = true;
      spec.height = 60;
      TimePlot("phi", spec, marks, line);
    }
  }
  // effective restitution per geom pair seen in events
  std::set<std::pair<int, int>> pairs;
  for (const EventRecord& e : sim.events()) {
    if (e.geom1 >= 0 && e.geom2 >= 0) pairs.insert({e.geom1, e.geom2});
  }
  if (hook && !pairs.empty()) {
    ImGui::TextUnformatted("restitution e, model / MuJoCo");
    ImGui::Indent();
    ImGui::TextDisabled("the MJCF's, used by the rigid model / measured on MuJoCo's soft contact "
                        "(n/a: no bounce yet)");
    ImGui::Unindent();
    for (const auto& p : pairs) {
      const double model_e = hook->restitution().Pair(p.first, p.second);
      const double eff = sim.EffectiveRestitution(p.first, p.second);
      ImGui::BulletText("%s/%s  %.3f / %s", hook->rigid_model().GeomName(p.first).c_str(),
                        hook->rigid_model().GeomName(p.second).c_str(), model_e,
                        eff < 0 ? "n/a" : FormatNumber(eff).c_str());
      if (eff >= 0 && std::fabs(eff - model_e) > 0.1) {
        ImGui::SameLine();
        ImGui::TextColored(kAmber, "differ");
        if (ImGui::IsItemHovered()) {
          ImGui::SetTooltip("MuJoCo's soft contact measured e = %.2f here; the rigid model uses %.2f "
                            "(from the MJCF): their bounces, and so Phi, differ", eff, model_e);
        }
      }
    }
  }
  ImGui::PopTextWrapPos();
  ImGui::End();
}

// ---- F1 help -----------------------------------------------------------------------------------

void HelpOverlay(UiState& ui, ImVec2 display) {
  static const char* kRows[][2] = {
      {"F1", "this help"},
      {"Space", "pause / run"},
      {"Right", "one step (paused)"},
      {"Backspace", "reset to the keyframe"},
      {"+ / -", "faster / slower"},
      {"[ / ]", "previous / next camera"},
      {"Esc", "free camera"},
      {"0 - 5", "geom group 0-5 on / off"},
      {"C / F", "contact points / forces"},
      {"Tab", "hide / show the panels"},
      {"Ctrl+L", "reload the model"},
      {"Ctrl+P", "screenshot (PNG)"},
      {"Ctrl+Q", "quit"},
      {"left drag", "rotate the camera"},
      {"right drag", "move the camera"},
      {"scroll", "zoom"},
      {"double-click left", "select a body"},
      {"Ctrl + left/right drag", "rotate / pull the selected body"},
      {"double-click right", "look at the point (Ctrl: track the body)"},
      {"click a row or a dot", "pause and show that event's Xi"},
      {"drop a file", "load the model"},
  };
  ImGui::SetNextWindowPos(ImVec2(0.5f * display.x, 0.5f * display.y), ImGuiCond_Always, ImVec2(0.5f, 0.5f));
  ImGui::SetNextWindowBgAlpha(0.85f);
  ImGui::Begin("Help (F1)", &ui.show_help,
               ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoCollapse | ImGuiWindowFlags_NoMove);
  if (ImGui::BeginTable("keys", 2, ImGuiTableFlags_SizingFixedFit)) {
    for (const auto& row : kRows) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextColored(kAmber, "%s", row[0]);
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(row[1]);
    }
    ImGui::EndTable();
  }
  ImGui::TextDisabled("Markers: touchdown blue, liftoff green, grazing amber, selected: white halo");
  ImGui::End();
}

}  // namespace

std::vector<int> GeomGroupCounts(const mjModel* m) {
  std::vector<int> counts(kGeomGroups, 0);
  for (int i = 0; m && i < m->ngeom; i++) {
    const int g = m->geom_group[i];
    if (g >= 0 && g < kGeomGroups) counts[g]++;
  }
  return counts;
}

int ShowHiddenGeomGroups(const mjModel* m, mjvOption* vopt) {
  int hidden = 0;  // groups holding a body's geom
  for (int i = 0; i < m->ngeom; i++) {
    const int g = m->geom_group[i];
    if (m->geom_bodyid[i] == 0 || g < 0 || g >= kGeomGroups) continue;
    if (vopt->geomgroup[g]) return 0;  // something of the model is shown
    hidden |= 1 << g;
  }
  for (int g = 0; g < kGeomGroups; g++) {
    if (hidden & (1 << g)) vopt->geomgroup[g] = 1;
  }
  return hidden;
}

void ShowMessage(UiState& ui, const std::string& text) {
  ui.message = text;
  ui.message_until = ImGui::GetTime() + 5;
}

void FollowEventRing(const Simulation& sim, UiState& ui) {
  if (ui.selected >= 0) ui.selected -= static_cast<int>(sim.dropped() - ui.seen_dropped);
  if (ui.selected < 0 || ui.selected >= static_cast<int>(sim.events().size())) ui.selected = -1;
  ui.seen_dropped = sim.dropped();
}

void SelectEvent(Simulation& sim, UiState& ui, int record) {
  ui.selected = record;
  sim.SetRunning(false);
}

void DrawPanels(Simulation& sim, UiState& ui, mjvOption& vopt, mjvCamera& cam, ImVec2 display) {
  if (ui.show_help) HelpOverlay(ui, display);
  if (!ui.show_panels) return;
  ControlPanel(sim, ui, vopt, cam, display);
  if (!sim.m()) return;
  if (ui.selected >= static_cast<int>(sim.events().size())) ui.selected = -1;
  PlotsPanel(sim, ui, display);
  EventTable(sim, ui, display);
  ComparisonPanel(sim, ui, display);
  SelectedEventPanel(sim, ui, display);
}

}  // namespace saltation_viewer
