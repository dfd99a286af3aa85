#include "arena_fallback.h"

#include <cstring>
#include <utility>

#include "private_arena.h"

namespace saltation {

ArenaFallback::ArenaFallback(const mjModel* user_model)
    : geom_gap_(user_model->geom_gap, user_model->geom_gap + user_model->ngeom),
      pair_gap_(user_model->pair_gap, user_model->pair_gap + user_model->npair) {}

namespace {

// exchanges the model's gaps with `geom`, `pair`
void SwapGaps(mjModel* m, std::vector<mjtNum>& geom, std::vector<mjtNum>& pair) {
  for (int g = 0; g < m->ngeom; g++) std::swap(m->geom_gap[g], geom[g]);
  for (int p = 0; p < m->npair; p++) std::swap(m->pair_gap[p], pair[p]);
}

}  // namespace

bool ArenaFallback::Step(mjModel* wide, mjData* d) {
  // everything mj_step reads (MuJoCo's integration state), and the warnings as they were
  constexpr int kSig = mjSTATE_INTEGRATION;
  state_.resize(mj_stateSize(wide, kSig));
  mj_getState(wide, d, state_.data(), kSig);
  mjWarningStat saved[mjNWARNING];
  std::memcpy(saved, d->warning, sizeof(saved));
  // mj_warning prints only the first warning of a kind: counting one already keeps the widened
  // attempt's arena warnings quiet, and a count above it tells that the arena filled
  ArenaMark::Quiet(d);
  const ArenaMark mark(d);
  mj_step(wide, d);
  if (!mark.Filled(d)) {
    for (int w : {mjWARN_CONTACTFULL, mjWARN_CNSTRFULL}) d->warning[w] = saved[w];  // the step's other warnings stay
    return false;
  }
  // retake the step as the user's model takes it: its own gaps, its own warnings, printed as
  // MuJoCo prints them
  std::memcpy(d->warning, saved, sizeof(saved));
  mj_setState(wide, d, state_.data(), kSig);
  SwapGaps(wide, geom_gap_, pair_gap_);
  try {
    mj_step(wide, d);
  } catch (...) {
    SwapGaps(wide, geom_gap_, pair_gap_);
    throw;
  }
  SwapGaps(wide, geom_gap_, pair_gap_);
  narrow_steps_++;
  return true;
}

}  // namespace saltation
