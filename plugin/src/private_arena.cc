#include "private_arena.h"

#include <algorithm>

#include "saltation/errors.h"

namespace saltation {
namespace {

constexpr int kArenaWarnings[] = {mjWARN_CONTACTFULL, mjWARN_CNSTRFULL};

}  // namespace

mjtSize SmallArenaBytes(const mjModel* m) {
  constexpr mjtSize kBase = 1 << 20;                // MuJoCo's stack of a step, the first contacts
  constexpr mjtSize kBandContactsPerGeom = 16;      // as AddBandArena
  constexpr mjtSize kPerDof = 4096;                 // constraint rows and the solver's vectors
  const mjtSize bodies = static_cast<mjtSize>(m->nbody + m->nflex);
  const mjtSize broad_phase = bodies * bodies / 2 * static_cast<mjtSize>(sizeof(int));
  const mjtSize contacts = kBandContactsPerGeom * static_cast<mjtSize>(m->ngeom) * static_cast<mjtSize>(sizeof(mjContact));
  return std::min(m->narena, kBase + broad_phase + contacts + kPerDof * static_cast<mjtSize>(m->nv));
}

DataPtr MakeSizedData(const mjModel* m, mjtSize bytes) {
  // mj_makeData takes the arena's size from the model: a shallow copy of the struct (the same
  // arrays, read only) says the smaller size
  mjModel sized = *m;
  sized.narena = bytes > 0 ? bytes : SmallArenaBytes(m);
  DataPtr d(mj_makeData(&sized));
  if (!d) throw MujocoError("could not allocate mjData");
  if (d->narena < m->narena) ArenaMark::Quiet(d.get());
  return d;
}

ArenaMark::ArenaMark(const mjData* d)
    : contacts_(d->warning[mjWARN_CONTACTFULL].number), rows_(d->warning[mjWARN_CNSTRFULL].number) {}

bool ArenaMark::Filled(const mjData* d) const {
  return d->warning[mjWARN_CONTACTFULL].number > contacts_ || d->warning[mjWARN_CNSTRFULL].number > rows_;
}

void ArenaMark::Quiet(mjData* d) {
  for (int w : kArenaWarnings) {
    if (d->warning[w].number == 0) d->warning[w].number = 1;
  }
}

void GrowArena(mjData* d, mjtSize bytes) {
  if (d->narena >= bytes) return;
  if (d->pstack != 0) throw MujocoError("internal: an mjData's arena was grown inside a MuJoCo call");
  void* arena = mju_malloc(bytes);
  if (!arena) throw MujocoError("could not allocate mjData arena");
  mju_free(d->arena);
  d->arena = arena;
  d->narena = bytes;
  d->parena = 0;
  d->pbase = 0;
  // nothing lives in the new arena: no contacts, no rows (the next collision pass fills it)
  d->contact = static_cast<mjContact*>(arena);
  d->ncon = 0;
  d->ne = d->nf = d->nl = d->nefc = 0;
  d->nJ = d->nA = d->nY = 0;
  d->nisland = d->nidof = 0;
  for (int w : kArenaWarnings) d->warning[w].number = 0;
}

void GrowIfHalfUsed(mjData* d, mjtSize bytes) {
  if (d->narena < bytes && 2 * d->maxuse_arena > d->narena) GrowArena(d, bytes);
}

}  // namespace saltation
