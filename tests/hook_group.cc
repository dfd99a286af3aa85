#include "hook_group.h"

namespace saltation::testing {

bool InMode(const Mode& mode, const ContactId& id) {
  for (const ContactId& c : mode.contacts) {
    if (c.SamePair(id) && (c.anchor - id.anchor).norm() <= 1e-12) return true;
  }
  return false;
}

const HookEvent* FirstSimultaneous(const std::vector<HookEvent>& events) {
  for (const HookEvent& ev : events) {
    if (ev.kind == EventKind::kSimultaneous) return &ev;
  }
  return nullptr;
}

FormedGroup GroupAsTheHookFormsIt(const std::vector<HookEvent>& events, const HookEvent& simultaneous) {
  FormedGroup group;
  for (const HookEvent& ev : events) {
    if (ev.group != simultaneous.group || ev.kind == EventKind::kSimultaneous) continue;
    if (!group.first) {
      group.first = &ev;
      for (const ContactId& id : ev.rigid.impact.candidates) {
        if (!InMode(ev.rigid.mode_before, id)) group.members.push_back(id);
      }
    } else {
      group.members.push_back(ev.contact);
    }
  }
  return group;
}

SteppedToGroup StepToFirstGroup(const mjModel* m, double until) {
  SteppedToGroup out;
  out.hook = std::make_unique<Hook>(m);
  out.data.reset(mj_makeData(m));
  while (out.data->time < until && !out.sim) {
    out.hook->Step(out.data.get());
    out.sim = FirstSimultaneous(out.hook->events());
  }
  if (out.sim) out.formed = GroupAsTheHookFormsIt(out.hook->events(), *out.sim);
  return out;
}

}  // namespace saltation::testing
