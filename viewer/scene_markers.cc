#include "scene_markers.h"

namespace saltation_viewer {

ImU32 EventColorU32(saltation::EventKind kind, bool grazing, int alpha) {
  float c[3];
  EventColor(kind, grazing, c);
  return IM_COL32(static_cast<int>(255 * c[0]), static_cast<int>(255 * c[1]),
                  static_cast<int>(255 * c[2]), alpha);
}

void AddEventMarkers(const mjModel* m, double time, const std::deque<EventRecord>& events,
                     int selected, double fade, mjvScene* scn) {
  // the recent records (and the selected one) as the library's markers, in time order
  std::vector<saltation::EventMarker> markers;
  int first = static_cast<int>(events.size());
  while (first > 0 && time - events[first - 1].time <= fade) first--;
  int marker_selected = -1;
  auto add = [&](const EventRecord& r) {
    saltation::EventMarker mk;
    mk.kind = r.kind;
    mk.time = r.time;
    mk.grazing = r.grazing;
    mk.has_xi = r.has_xi;
    mk.xi_norm = r.xi_norm;
    mk.point = r.pos;
    markers.push_back(mk);
  };
  if (selected >= 0 && selected < first) {  // an old selected record: drawn only as the selected
    add(events[selected]);
    marker_selected = 0;
  }
  for (int i = first; i < static_cast<int>(events.size()); i++) {
    if (i == selected) marker_selected = static_cast<int>(markers.size());
    add(events[i]);
  }
  saltation::AddEventMarkers(m, time, markers, marker_selected, fade, scn);
}

}  // namespace saltation_viewer
