// At scale: a pile of 200 bodies whose arena holds the contacts the user's model makes but not the
// ones within the hook's widened detection band. The hook must not fill an arena that a bare run
// does not fill (issue 17 item 6: "Too many contacts" at t = 0 from the enlarged band), and the
// physics stays bitwise the bare run's.
#include <gtest/gtest.h>
#include <mujoco/mujoco.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "saltation/hook.h"
#include "test_util.h"

namespace saltation::testing {
namespace {

// 200 spheres, capsules and boxes 0.13 m apart in four layers over a floor (the bottom layer
// resting on it), tilted by a fixed pattern; `memory` is the <size memory> of the arena
std::string Pile(const std::string& memory) {
  std::ostringstream xml;
  xml << "<mujoco><size memory=\"" << memory << "\"/><option timestep=\"0.002\"/><worldbody>"
      << "<geom name=\"floor\" type=\"plane\" size=\"10 10 .1\"/>";
  const char* geoms[] = {"<geom type=\"sphere\" size=\"0.05\"/>", "<geom type=\"capsule\" size=\"0.04 0.05\"/>",
                         "<geom type=\"box\" size=\"0.05 0.05 0.05\"/>"};
  for (int i = 0; i < 200; i++) {
    const double x = (i % 10) * 0.13 - 0.6, y = ((i / 10) % 5) * 0.13 - 0.3, z = 0.1 + 0.13 * (i / 50);
    xml << "<body pos=\"" << x << " " << y << " " << z << "\" euler=\"" << (7 * i) % 30 << " " << (11 * i) % 30
        << " 0\"><freejoint/>" << geoms[i % 3] << "</body>";
  }
  xml << "</worldbody></mujoco>";
  return xml.str();
}

struct DataFree {
  void operator()(mjData* d) const { mj_deleteData(d); }
};

constexpr int kSteps = 5;

TEST(Scale, HookDoesNotFillAnArenaTheBareRunDoesNot) {
  ModelPtr m = LoadModelFromString(Pile("1M"));
  ASSERT_TRUE(m);
  std::unique_ptr<mjData, DataFree> bare(mj_makeData(m.get())), hooked(mj_makeData(m.get()));
  for (int k = 0; k < kSteps; k++) mj_step(m.get(), bare.get());
  // the pile fits the arena in a bare run (measured: ≈ 100 contacts; the band would add ≈ 2000)
  ASSERT_EQ(bare->warning[mjWARN_CONTACTFULL].number, 0);
  ASSERT_GT(bare->ncon, 50);

  Hook hook(m.get());
  for (int k = 0; k < kSteps; k++) hook.Step(hooked.get());
  EXPECT_EQ(hooked->warning[mjWARN_CONTACTFULL].number, 0);
  EXPECT_EQ(hooked->warning[mjWARN_CNSTRFULL].number, 0);
  EXPECT_GT(hook.narrow_steps(), 0);  // the band did not fit: the steps were retaken narrow
  // bitwise the bare run
  EXPECT_EQ(hooked->time, bare->time);
  EXPECT_EQ(std::memcmp(hooked->qpos, bare->qpos, sizeof(mjtNum) * m->nq), 0);
  EXPECT_EQ(std::memcmp(hooked->qvel, bare->qvel, sizeof(mjtNum) * m->nv), 0);
  EXPECT_EQ(std::memcmp(hooked->qacc_warmstart, bare->qacc_warmstart, sizeof(mjtNum) * m->nv), 0);
}

TEST(Scale, RigidModeDoesNotDependOnTheUsersArena) {
  // the hook's own collision passes list the band's points: a small user arena must not drop them
  // (with the private arena as the user's, the 1M pile had 52 contacts in its mode instead of 100)
  ModelPtr small = LoadModelFromString(Pile("1M"));
  ModelPtr large = LoadModelFromString(Pile("256M"));
  ASSERT_TRUE(small && large);
  std::unique_ptr<mjData, DataFree> ds(mj_makeData(small.get())), dl(mj_makeData(large.get()));
  Hook hs(small.get()), hl(large.get());
  for (int k = 0; k < kSteps; k++) {
    hs.Step(ds.get());
    hl.Step(dl.get());
  }
  EXPECT_EQ(hl.narrow_steps(), 0);
  ASSERT_GT(hl.mode().contacts.size(), 50u);
  EXPECT_EQ(hs.mode().contacts.size(), hl.mode().contacts.size());
  EXPECT_EQ(std::memcmp(ds->qpos, dl->qpos, sizeof(mjtNum) * small->nq), 0);
}

// The pile in a 1M arena (every step retaken on the user's gaps) and in a 256M one (none
// retaken), stepped side by side for 0.12 s (the second layer lands on the first; later the bare
// run outgrows the 1M arena) by hooks with Ξ on demand (the times and contacts only); both runs
// are bitwise the bare one.
struct TwoPiles {
  static constexpr int kPileSteps = 60;
  ModelPtr small = LoadModelFromString(Pile("1M")), large = LoadModelFromString(Pile("256M"));
  std::unique_ptr<mjData, DataFree> ds{mj_makeData(small.get())}, dl{mj_makeData(large.get())};
  std::unique_ptr<Hook> narrow, wide;
  TwoPiles() {
    HookOptions options;
    options.xi_on_demand = true;
    narrow = std::make_unique<Hook>(small.get(), options);
    wide = std::make_unique<Hook>(large.get(), options);
    for (int k = 0; k < kPileSteps; k++) {
      narrow->Step(ds.get());
      wide->Step(dl.get());
    }
    EXPECT_EQ(narrow->narrow_steps(), kPileSteps);
    EXPECT_EQ(wide->narrow_steps(), 0);
    EXPECT_EQ(std::memcmp(ds->qpos, dl->qpos, sizeof(mjtNum) * small->nq), 0);
  }
};

// the events of h whose kind is one of `kinds`
std::vector<const HookEvent*> EventsOf(const Hook& h, std::initializer_list<EventKind> kinds) {
  std::vector<const HookEvent*> out;
  for (const HookEvent& ev : h.events()) {
    if (std::find(kinds.begin(), kinds.end(), ev.kind) != kinds.end()) out.push_back(&ev);
  }
  return out;
}

// whether `in` has an event of e's kind and geom pair within [e.time − before, e.time + after]
bool HasMatch(const HookEvent* e, const std::vector<const HookEvent*>& in, double before, double after) {
  for (const HookEvent* o : in) {
    if (o->kind == e->kind && o->contact.SamePair(e->contact) && o->time >= e->time - before && o->time <= e->time + after + 1e-12) return true;
  }
  return false;
}

// how near (m, geom2's frame) a joined point's anchor must lie to the touchdown's own to be the same
// point: it moves relative to geom2 by at most a step or two of the pile's speeds (measured 0.43 and
// 0.18 mm), where the pair's other points lie a box's or a capsule's size away (0.08–0.1 m)
constexpr double kSamePoint = 1e-3;

// The nearest anchor (m, geom2's frame) of a point that a touchdown of `in` within [e.time − before,
// e.time + after] joined to its impact (a candidate outside its mode before: a member of its
// simultaneous group) to e's own point, of e's geom pair; infinity when there is none
double JoinedDistance(const HookEvent* e, const std::vector<const HookEvent*>& in, double before, double after) {
  double nearest = INFINITY;
  for (const HookEvent* o : in) {
    if (!(o->time >= e->time - before && o->time <= e->time + after + 1e-12)) continue;
    for (const ContactId& id : o->rigid.impact.candidates) {
      const bool was_in = std::any_of(o->rigid.mode_before.contacts.begin(), o->rigid.mode_before.contacts.end(),
                                      [&](const ContactId& c) { return c.SamePair(id) && c.anchor == id.anchor; });
      if (id.SamePair(e->contact) && !was_in) nearest = std::min(nearest, (id.anchor - e->contact.anchor).norm());
    }
  }
  return nearest;
}

TEST(Scale, TouchdownsInRetakenStepsAreStillReported) {
  // a retaken step lists only the touching contacts: a touch whose band was not listed is taken at
  // onset (crossings.h), never dropped. The 1M pile retakes every step; the 256M pile none; both
  // are bitwise the bare run, so each touchdown of the 256M run must be in the 1M run, of the same
  // geom pair, no later than one step after (the onset) — or, where the point crossed unseen
  // inside the band the retaken step does not list, joined to another touchdown's impact of its
  // island within that window (it penetrates there: a candidate of that impact and a member of its
  // group; its own onset crossing is then a mode contact's, not a new event) — the same point, its
  // anchor within kSamePoint of the touchdown's (before, any point of the pair excused it: a dropped
  // corner passed when another corner of the same box joined)
  TwoPiles piles;
  const Hook &hs = *piles.narrow, &hl = *piles.wide;
  const double dt = piles.small->opt.timestep;
  const std::vector<const HookEvent*> wide = EventsOf(hl, {EventKind::kTouchdown}), narrow = EventsOf(hs, {EventKind::kTouchdown});
  ASSERT_GT(wide.size(), 10u);
  int joined = 0;
  double nearest_joined = 0;  // the largest distance of a joined point from the touchdown's own
  for (const HookEvent* w : wide) {
    const bool own = HasMatch(w, narrow, dt, dt);
    joined += !own;
    if (own) continue;
    const double distance = JoinedDistance(w, narrow, dt, dt);
    nearest_joined = std::max(nearest_joined, distance);
    EXPECT_LT(distance, kSamePoint) << "touchdown of geoms " << w->contact.geom1 << "/" << w->contact.geom2 << " at "
                                    << w->time << ": no point of the pair joined within " << kSamePoint << " m of it";
  }
  std::printf("[ scale ] %zu touchdowns in the 256M run, %zu in the 1M run; %d of the former joined another impact in the 1M run"
              " (its point's anchor within %.2g m of the touchdown's)\n",
              wide.size(), narrow.size(), joined, nearest_joined);
}

TEST(Scale, RetakenStepsGiveNoSpuriousRelease) {
  // a retaken step lists only the touching contacts (the band's points are not in MuJoCo's list):
  // a mode contact whose point is missing there must not read as released (it did: 30 liftoffs
  // at 0.058 s only in the retaken run; CrossingFinder::FillLostPoints now takes the lost points
  // from the narrow phase). Every liftoff or slip of the 1M pile (every step retaken) must be one
  // of the 256M pile (none retaken), same kind and pair, within a step
  TwoPiles piles;
  const Hook &hs = *piles.narrow, &hl = *piles.wide;
  const double dt = piles.small->opt.timestep;
  const std::vector<const HookEvent*> wide = EventsOf(hl, {EventKind::kLiftoff, EventKind::kSlip}),
                                      narrow = EventsOf(hs, {EventKind::kLiftoff, EventKind::kSlip});
  ASSERT_GT(wide.size(), 0u);
  for (const HookEvent* n : narrow) {
    EXPECT_TRUE(HasMatch(n, wide, dt, dt)) << EventKindName(n->kind) << " of geoms " << n->contact.geom1 << "/" << n->contact.geom2 << " at " << n->time
                                  << " only in the retaken run";
  }
  // (the other way round does not hold yet: 5 of the 256M run's 47, at 0.016–0.018 s, are of
  // contacts touching at t = 0 within contact_tol but not penetrating, which the 1M run's first
  // mode does not hold)
  EXPECT_GE(narrow.size() + 5, wide.size());
  std::printf("releases: %zu in the 256M run, %zu in the 1M run\n", wide.size(), narrow.size());
}

}  // namespace
}  // namespace saltation::testing
