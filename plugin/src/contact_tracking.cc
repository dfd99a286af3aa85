#include "contact_tracking.h"

#include <algorithm>
#include <cmath>

namespace saltation {

int ModeContactAt(const Mode& mode, const std::vector<ContactPoint>& points, int point) {
  if (point < 0 || point >= static_cast<int>(points.size())) return -1;
  thread_local std::vector<ContactId> pair_ids;
  thread_local std::vector<int> index, match;
  pair_ids.clear();
  index.clear();
  for (size_t k = 0; k < mode.contacts.size(); k++) {
    if (!mode.contacts[k].SamePair(points[point].id)) continue;
    pair_ids.push_back(mode.contacts[k]);
    index.push_back(static_cast<int>(k));
  }
  MatchContacts(pair_ids, points, match);
  for (size_t j = 0; j < match.size(); j++) {
    if (match[j] == point) return index[j];
  }
  return -1;
}

void ContactTracker::Clear() {
  pairs_.clear();
  measuring_ = 0;
}

void ContactTracker::OnEvent(const HookEvent& ev, long step, Mode& mode) {
  if (!ChangesContact(ev.kind)) return;
  const ContactId contact = ev.contact;
  const double time = ev.time;
  PairHistory& t = pairs_[GeomPair(contact.geom1, contact.geom2)];
  const bool onset = IsOnset(ev.kind);
  // chattering: onset and release of one contact within a few steps
  const long since = onset ? step - t.last_release_step : step - t.last_onset_step;
  if (since <= options_.chatter_steps && !t.chattering) {
    t.chattering = true;
    HookEvent c;
    c.kind = EventKind::kChatter;
    c.time = time;
    c.contact = contact;
    emit_(c);
  } else if (since > 10 * options_.chatter_steps) {
    t.chattering = false;
  }
  if (!onset) {
    t.last_release_step = step;
    return;
  }
  t.last_onset_step = step;
  // effective restitution: measured when MuJoCo's contact separates again
  if (!t.measuring) measuring_++;
  t.measuring = true;
  t.vn_minus = ev.rigid.xi.transversality;
  t.measure_start = step;
  // Zeno: bounce intervals shrinking geometrically
  t.touchdowns.push_back(time);
  const int n = options_.zeno_min_intervals;
  const int count = static_cast<int>(t.touchdowns.size());
  if (t.zeno || n < 2 || count < n + 1) return;
  std::vector<double> intervals;
  for (int i = count - n; i < count; i++) intervals.push_back(t.touchdowns[i] - t.touchdowns[i - 1]);
  std::vector<double> ratios;
  for (size_t i = 1; i < intervals.size(); i++) ratios.push_back(intervals[i] / intervals[i - 1]);
  const double lo = *std::min_element(ratios.begin(), ratios.end());
  const double hi = *std::max_element(ratios.begin(), ratios.end());
  if (!(lo > 0.05 && hi < 0.999 && hi - lo <= options_.zeno_ratio_tolerance)) return;
  double r = 0;
  for (double x : ratios) r += x;
  r /= ratios.size();
  t.zeno = true;
  t.zeno_until = time + intervals.back() * r / (1 - r);
  HookEvent z;
  z.kind = EventKind::kZeno;
  z.time = time;
  z.contact = contact;
  z.ratio = r;
  z.accumulation_time = t.zeno_until;
  // the contact is sustained from here on: its remaining bounces are not reported. It joins the mode
  // unless that very point is there: an event's contact enters its mode_after as the same id, anchor
  // bit for bit (TouchdownEvent's candidates), whatever friction the impact left it (so not
  // SameContact); another point of the pair, however near, is another contact
  const bool held = std::any_of(mode.contacts.begin(), mode.contacts.end(), [&](const ContactId& id) {
    return id.SamePair(contact) && id.anchor == contact.anchor;
  });
  if (!held) mode.contacts.push_back(contact);
  emit_(z);
}

bool ContactTracker::RecentlyReleased(const GeomPair& pair, long step) const {
  auto it = pairs_.find(pair);
  return it != pairs_.end() && step - it->second.last_release_step <= options_.chatter_steps;
}

bool ContactTracker::Sustained(const GeomPair& pair, double time) const {
  auto it = pairs_.find(pair);
  return it != pairs_.end() && it->second.zeno && time < it->second.zeno_until;
}

void ContactTracker::NearMisses(const std::vector<ContactPoint>& before,
                                                  const std::vector<ContactPoint>& at, double time,
                                                  const std::vector<ContactPoint>& after) const {
  for (const ContactPoint& p : at) {
    if (!(p.gap > 0 && p.gap < options_.near_miss_distance)) continue;
    const int i2 = MatchContact(p.id, before);
    const int i0 = MatchContact(p.id, after);
    if (i2 < 0 || i0 < 0) continue;
    const double a = before[i2].gap, b = p.gap, c = after[i0].gap;
    if (!(a > b && c > b)) continue;
    // a point of a pair that touches elsewhere (a face resting on a floor, its other hull vertices
    // hovering a millimetre above it) is not a miss of that pair (scanned only for a local minimum)
    if (std::any_of(at.begin(), at.end(), [&](const ContactPoint& q) { return q.id.SamePair(p.id) && q.gap <= 0; })) continue;
    HookEvent ev;
    ev.kind = EventKind::kNearMiss;
    ev.time = time;
    ev.contact = p.id;
    ev.point = p.pos;
    // the parabola through the three samples: its minimum
    const double curvature = a - 2 * b + c;
    ev.min_gap = curvature > 0 ? b - (c - a) * (c - a) / (8 * curvature) : b;
    emit_(ev);
  }
}

void ContactTracker::MeasureRestitution(const Model& model, Data& data, const mjData* d,
                                                          const std::vector<ContactPoint>& points,
                                                          const SavedStep& x, long step, Mode& mode,
                                                          double force_tol) {
  if (measuring_ == 0) return;
  for (auto& [pair, t] : pairs_) {
    if (!t.measuring) continue;
    // the pair's deepest point at x_k
    int best = -1;
    for (size_t i = 0; i < points.size(); i++) {
      if (GeomPair(points[i].id.geom1, points[i].id.geom2) == pair &&
          (best < 0 || points[i].gap < points[best].gap)) {
        best = static_cast<int>(i);
      }
    }
    double vn_plus = 0;
    bool done = false;
    if (best < 0 || points[best].gap > 0) {
      if (best >= 0) {
        RowMatrix rows(ContactRowCount(points[best]), model.nv());
        ContactRows(model, d, points[best], rows, data.work());
        vn_plus = rows.row(0).dot(x.qvel);
      }
      done = true;
    } else if ((step - t.measure_start) * model.mj()->opt.timestep > 0.2) {
      done = true;  // still pressing after the transient: plastic
    }
    if (!done) continue;
    t.measuring = false;
    measuring_--;
    // still pressing after the transient: MuJoCo holds it, so does the mode from now on (unless
    // a mode contact already is this point: matched against the current points, as a rolling
    // sphere's anchor moves)
    std::vector<int> in_mode;
    MatchContacts(mode.contacts, points, in_mode);
    const bool held = std::find(in_mode.begin(), in_mode.end(), best) != in_mode.end();
    if (best >= 0 && points[best].gap <= 0 && !held) {
      Mode with = mode;
      with.contacts.push_back(points[best].id);
      // only the new contact's island can come to pull: evaluated alone (not the whole mode)
      ReleasePullingInIsland(model, data, x.state(), with, points[best].id, force_tol);
      mode = with;
    }
    const double e = t.vn_minus < 0 ? std::clamp(vn_plus / -t.vn_minus, 0.0, 1.0) : 0.0;
    effective_restitution_[pair] = e;
    HookEvent ev;
    ev.kind = EventKind::kRestitution;
    ev.time = x.time;
    ev.contact.geom1 = pair.first;
    ev.contact.geom2 = pair.second;
    ev.restitution = e;
    ev.normal_velocity_minus = t.vn_minus;
    ev.normal_velocity_plus = vn_plus;
    emit_(ev);
  }
}

double ContactTracker::EffectiveRestitution(int geom1, int geom2) const {
  auto it = effective_restitution_.find(GeomPair(geom1, geom2));
  return it == effective_restitution_.end() ? -1 : it->second;
}

}  // namespace saltation
