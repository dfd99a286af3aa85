#include "saltation/scene_markers.h"

#include <algorithm>
#include <cmath>

namespace saltation {
namespace {

void AddMarker(const mjModel* m, const EventMarker& ev, double alpha, bool selected,
               std::vector<MarkerGeom>& geoms) {
  MarkerGeom g;
  EventColor(ev.kind, ev.grazing, g.rgba);
  g.rgba[3] = static_cast<float>(alpha);
  // radius: a fraction of the model's mean body size, growing with log10 ‖Ξ‖
  const double base = std::clamp(0.2 * m->stat.meansize, 0.005, 0.1);
  const double grow = std::isfinite(ev.xi_norm) ? std::log10(std::max(1.0, ev.xi_norm)) : 0;
  g.radius = base * (ev.has_xi ? 1.0 + 0.5 * grow : 0.6);
  g.pos = ev.point;
  g.emission = 0.4f;
  geoms.push_back(g);
  if (selected) {
    MarkerGeom halo = g;
    halo.radius = 1.8 * g.radius;
    halo.rgba[0] = halo.rgba[1] = halo.rgba[2] = 1;
    halo.rgba[3] = 0.35f;
    halo.emission = 0.6f;
    geoms.push_back(halo);
  }
}

}  // namespace

bool MarkerOf(const HookEvent& event, double xi_norm, EventMarker& marker) {
  if (!event.point.allFinite()) return false;
  marker.kind = event.kind;
  marker.time = event.time;
  marker.grazing = event.grazing;
  marker.has_xi = event.has_xi;
  marker.xi_norm = xi_norm;
  marker.point = event.point;
  return true;
}

void EventColor(EventKind kind, bool grazing, float rgb[3]) {
  auto set = [rgb](float r, float g, float b) {
    rgb[0] = r;
    rgb[1] = g;
    rgb[2] = b;
  };
  if (grazing || kind == EventKind::kGraze) return set(1.0f, 0.75f, 0.0f);  // warning amber
  if (kind == EventKind::kTouchdown) return set(0.25f, 0.6f, 1.0f);
  if (kind == EventKind::kLiftoff) return set(0.3f, 0.9f, 0.35f);
  if (kind == EventKind::kSlip) return set(0.75f, 0.45f, 1.0f);
  if (kind == EventKind::kNearMiss) return set(0.65f, 0.65f, 0.65f);
  if (kind == EventKind::kSimultaneous) return set(1.0f, 0.45f, 0.8f);
  if (kind == EventKind::kZeno) return set(1.0f, 0.25f, 0.2f);
  if (kind == EventKind::kChatter) return set(1.0f, 0.5f, 0.1f);
  if (kind == EventKind::kRestitution) return set(0.2f, 0.9f, 0.9f);
  if (kind == EventKind::kFeature) return set(0.55f, 0.8f, 0.75f);
  set(0.9f, 0.9f, 0.9f);
}

std::vector<MarkerGeom> EventMarkerGeoms(const mjModel* m, double time, const std::vector<EventMarker>& events,
                                         int selected, double fade) {
  std::vector<MarkerGeom> geoms;
  // events are in time order: walk back from the newest while they are recent
  for (int i = static_cast<int>(events.size()) - 1; i >= 0; i--) {
    const double age = time - events[i].time;
    if (age > fade) break;
    if (age < -1e-9 || i == selected) continue;
    AddMarker(m, events[i], 0.9 * (1.0 - age / fade) + 0.1, false, geoms);
  }
  if (selected >= 0 && selected < static_cast<int>(events.size())) {
    AddMarker(m, events[selected], 1.0, true, geoms);
  }
  return geoms;
}

void AddEventMarkers(const mjModel* m, double time, const std::vector<EventMarker>& events,
                     int selected, double fade, mjvScene* scn) {
  for (const MarkerGeom& g : EventMarkerGeoms(m, time, events, selected, fade)) {
    if (scn->ngeom >= scn->maxgeom) return;
    mjvGeom* geom = scn->geoms + scn->ngeom++;
    const mjtNum size[3] = {g.radius, g.radius, g.radius};
    const mjtNum pos[3] = {g.pos.x(), g.pos.y(), g.pos.z()};
    mjv_initGeom(geom, mjGEOM_SPHERE, size, pos, nullptr, g.rgba);
    geom->category = mjCAT_DECOR;
    geom->objtype = mjOBJ_UNKNOWN;
    geom->objid = -1;
    geom->emission = g.emission;
    geom->specular = 0.2f;
  }
}

}  // namespace saltation
