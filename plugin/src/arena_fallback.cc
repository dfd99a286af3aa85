#include "arena_fallback.h"

#include <cstring>

#include "saltation/errors.h"

namespace saltation {

ArenaFallback::ArenaFallback(const mjModel* user_model) : narrow_(mj_copyModel(nullptr, user_model)) {
  if (!narrow_) throw MujocoError("could not copy the model");
}

bool ArenaFallback::Step(const mjModel* wide, mjData* d) {
  // everything mj_step reads (MuJoCo's integration state), and the warnings as they were
  constexpr int kSig = mjSTATE_INTEGRATION;
  state_.resize(mj_stateSize(wide, kSig));
  mj_getState(wide, d, state_.data(), kSig);
  mjWarningStat saved[mjNWARNING];
  std::memcpy(saved, d->warning, sizeof(saved));
  // mj_warning prints only the first warning of a kind: counting one already keeps the widened
  // attempt's arena warnings quiet, and a count above it tells that the arena filled
  const int arena[] = {mjWARN_CONTACTFULL, mjWARN_CNSTRFULL};
  int before[2];
  for (int i = 0; i < 2; i++) {
    if (d->warning[arena[i]].number == 0) d->warning[arena[i]].number = 1;
    before[i] = d->warning[arena[i]].number;
  }
  mj_step(wide, d);
  bool full = false;
  for (int i = 0; i < 2; i++) full = full || d->warning[arena[i]].number > before[i];
  if (!full) {
    for (int w : arena) d->warning[w] = saved[w];  // the step's other warnings stay
    return false;
  }
  // retake the step as the user's model takes it: its own warnings, printed as MuJoCo prints them
  std::memcpy(d->warning, saved, sizeof(saved));
  mj_setState(narrow_.get(), d, state_.data(), kSig);
  mj_step(narrow_.get(), d);
  narrow_steps_++;
  return true;
}

}  // namespace saltation
