// The engine hook's per-step path adds no heap allocations to MuJoCo's own (HookOptions defaults,
// events only, between events). This binary counts every malloc, calloc and realloc by
// interposing glibc's (so it runs apart from the other tests), and compares hook.Step with plain
// mj_step over the same steps from the same state: MuJoCo itself allocates inside mj_collision's
// qsort, so the comparison, not an absolute zero, is the claim.
#include <gtest/gtest.h>
#include <mujoco/mujoco.h>

#include <atomic>
#include <cstddef>
#include <cstdio>

#include "saltation/hook.h"
#include "test_util.h"

extern "C" void* __libc_malloc(size_t size);
extern "C" void* __libc_calloc(size_t count, size_t size);
extern "C" void* __libc_realloc(void* ptr, size_t size);

namespace {
std::atomic<long> g_allocations{0};
}  // namespace

extern "C" void* malloc(size_t size) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  return __libc_malloc(size);
}
extern "C" void* calloc(size_t count, size_t size) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  return __libc_calloc(count, size);
}
extern "C" void* realloc(void* ptr, size_t size) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  return __libc_realloc(ptr, size);
}

namespace saltation::testing {
namespace {

class AllocationTest : public MujocoTest {};

struct Counts {
  long hook = 0, plain = 0;
};

// steps the hook `warmup` steps, then counts the allocations of `steps` hook.Step against as many
// plain mj_step from the same state on a copy of the model without the hook
Counts CountAllocations(const std::string& path, int warmup, int steps) {
  char error[1000] = "";
  ModelPtr hooked(mj_loadXML(path.c_str(), nullptr, error, sizeof(error)));
  ModelPtr plain(mj_loadXML(path.c_str(), nullptr, error, sizeof(error)));
  EXPECT_TRUE(hooked && plain) << error;
  if (!hooked || !plain) return {};
  Hook hook(hooked.get());
  DataPtr d(mj_makeData(hooked.get())), p(mj_makeData(plain.get()));
  const int key = mj_name2id(hooked.get(), mjOBJ_KEY, "start");
  if (key >= 0) mj_resetDataKeyframe(hooked.get(), d.get(), key);
  for (int k = 0; k < warmup; k++) hook.Step(d.get());
  EXPECT_FALSE(hook.mode().contacts.empty()) << "the rigid normal force is solved only with a mode";
  const size_t events = hook.events().size();
  mj_copyData(p.get(), plain.get(), d.get());
  Counts c;
  long before = g_allocations.load();
  for (int k = 0; k < steps; k++) hook.Step(d.get());
  c.hook = g_allocations.load() - before;
  before = g_allocations.load();
  for (int k = 0; k < steps; k++) mj_step(plain.get(), p.get());
  c.plain = g_allocations.load() - before;
  // records that need no localisation (near misses, measured restitution) may fall in the window
  for (size_t i = events; i < hook.events().size(); i++) {
    const std::string& kind = hook.events()[i].kind;
    EXPECT_TRUE(kind == "near_miss" || kind == "restitution") << kind << " in the counted steps: choose another window";
  }
  return c;
}

TEST_F(AllocationTest, HookStepAddsNoAllocationsToMujocos) {
  struct Case {
    const char* name;
    std::string path;
    int warmup;
  };
  const Case cases[] = {
      // one frictional contact: J M⁻¹ Jᵀ positive definite (Cholesky)
      {"ball_drop resting", SALTATION_SOURCE_DIR "/models/ball_drop.xml", 3000},
      // three rows on one degree of freedom: rank one (the pseudo-inverse)
      {"vertical_ball resting", SALTATION_SOURCE_DIR "/models/vertical_ball.xml", 6000},
      // lying on the floor, several contacts in the mode
      {"humanoid lying", SALTATION_MUJOCO_MODELS "/humanoid/humanoid.xml", 3000},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const Counts n = CountAllocations(c.path, c.warmup, 100);
    std::printf("[ allocations ] %-22s 100 steps: hook.Step %ld, mj_step %ld\n", c.name, n.hook, n.plain);
    EXPECT_EQ(n.hook, n.plain);
  }
}

}  // namespace
}  // namespace saltation::testing
