// The hook's per-geom-pair history and what it classifies: chatter, Zeno, near misses and the
// effective restitution of MuJoCo's soft contact.
//
//   OnEvent             (a touchdown / graze / liftoff / slip, its step)  => emits the chatter
//                       and zeno records it implies; Zeno also puts the contact into `mode` (sustained)
//   RecentlyReleased    (pair, step)      => released within chatter_steps (detection hysteresis)
//   Sustained           (pair, time)      => inside a Zeno accumulation (bounces not reported)
//   NearMisses          (inactive points at x_{k−2}, x_{k−1}, x_k)  => emits near_miss records at x_{k−1}
//   MeasureRestitution  (MuJoCo's points at x_k, the saved x_k)  => emits restitution records once a pair
//                       separates (or presses on: plastic, then it joins `mode`)
//   EffectiveRestitution (pair)           => the measured e, −1 before a measurement
//
// Reads the model's geometry through model/data; writes only its own history, `mode` where said,
// and data's workspaces.
#ifndef SALTATION_CONTACT_TRACKING_H_
#define SALTATION_CONTACT_TRACKING_H_

#include <functional>
#include <map>
#include <utility>
#include <vector>

#include "resimulation.h"
#include "saltation/contacts.h"
#include "saltation/event_kind.h"
#include "saltation/hook_event.h"
#include "saltation/mode_dynamics.h"
#include "saltation/model.h"

namespace saltation {

// The index of the mode contact that holds points[point] when the mode's contacts of its pair are
// matched to `points` as the mode is matched everywhere (MatchContacts: nearest anchor, each point
// once, earlier contacts first), or −1 when none does. No distance decides it: two points of one
// pair closer than any tolerance (a small box's corners) stay two points.
int ModeContactAt(const Mode& mode, const std::vector<ContactPoint>& points, int point);

class ContactTracker {
 public:
  // records are passed to `emit` as they are made (the hook's Emit: stored, handed to on_event,
  // and given back to OnEvent)
  using Emitter = std::function<void(HookEvent)>;
  ContactTracker(const HookOptions& options, Emitter emit) : options_(options), emit_(std::move(emit)) {}
  void Clear();

  // reads ev's kind, time, contact and rigid.xi.transversality only
  void OnEvent(const HookEvent& ev, long step, Mode& mode);
  bool RecentlyReleased(const GeomPair& pair, long step) const;
  bool Sustained(const GeomPair& pair, double time) const;
  void NearMisses(const std::vector<ContactPoint>& before, const std::vector<ContactPoint>& at,
                  double time, const std::vector<ContactPoint>& after) const;
  void MeasureRestitution(const Model& model, Data& data, const mjData* d,
                                            const std::vector<ContactPoint>& points, const SavedStep& x,
                                            long step, Mode& mode, double force_tol);
  double EffectiveRestitution(int geom1, int geom2) const;
  const std::map<GeomPair, double>& measured() const { return effective_restitution_; }

 private:
  struct PairHistory {
    std::vector<double> touchdowns;  // times of touchdowns reported
    bool zeno = false;
    double zeno_until = -1;
    long last_onset_step = -1000, last_release_step = -1000;
    bool chattering = false;
    bool measuring = false;          // effective restitution under way
    double vn_minus = 0;
    long measure_start = 0;
  };

  const HookOptions& options_;
  Emitter emit_;
  std::map<GeomPair, PairHistory> pairs_;
  std::map<GeomPair, double> effective_restitution_;
  int measuring_ = 0;  // pairs whose effective restitution is being measured
};

}  // namespace saltation

#endif  // SALTATION_CONTACT_TRACKING_H_
