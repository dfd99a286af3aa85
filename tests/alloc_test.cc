// The engine hook's per-step path adds no heap allocations to MuJoCo's own (HookOptions defaults,
// events only, between events). This binary counts every allocation glibc hands out — malloc,
// calloc, realloc and the aligned forms MuJoCo's mju_malloc and over-aligned operator new use —
// by interposing them (so it runs apart from the other tests), and compares hook.Step with plain
// mj_step over the same steps from the same state: MuJoCo itself allocates inside mj_collision's
// qsort, so the comparison, not an absolute zero, is the claim.
#include <gtest/gtest.h>
#include <mujoco/mujoco.h>

#include <atomic>
#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <functional>

#include "saltation/events.h"
#include "saltation/hook.h"
#include "saltation/islands.h"
#include "test_util.h"

extern "C" void* __libc_malloc(size_t size);
extern "C" void* __libc_calloc(size_t count, size_t size);
extern "C" void* __libc_realloc(void* ptr, size_t size);
extern "C" void* __libc_memalign(size_t alignment, size_t size);
extern "C" void* __libc_valloc(size_t size);
extern "C" void* __libc_pvalloc(size_t size);

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
extern "C" void* memalign(size_t alignment, size_t size) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  return __libc_memalign(alignment, size);
}
extern "C" void* aligned_alloc(size_t alignment, size_t size) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  return __libc_memalign(alignment, size);
}
extern "C" int posix_memalign(void** ptr, size_t alignment, size_t size) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  if (alignment % sizeof(void*) != 0 || (alignment & (alignment - 1)) != 0) return EINVAL;
  void* p = __libc_memalign(alignment, size);
  if (!p) return ENOMEM;
  *ptr = p;
  return 0;
}
extern "C" void* valloc(size_t size) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  return __libc_valloc(size);
}
extern "C" void* pvalloc(size_t size) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  return __libc_pvalloc(size);
}

namespace saltation::testing {
namespace {

class AllocationTest : public MujocoTest {};

struct Counts {
  long hook = 0, plain = 0;
};

// steps the hook `warmup` steps, then counts the allocations of `steps` hook.Step against as many
// plain mj_step from the same state on a copy of the model without the hook (with the worker
// thread: the steps and a final Sync, both threads' allocations counted)
Counts CountAllocations(const std::function<ModelPtr()>& load, int warmup, int steps, bool worker) {
  ModelPtr hooked = load(), plain = load();
  if (!hooked || !plain) return {};
  HookOptions options;
  options.worker_thread = worker;
  Hook hook(hooked.get(), options);
  DataPtr d(mj_makeData(hooked.get())), p(mj_makeData(plain.get()));
  const int key = mj_name2id(hooked.get(), mjOBJ_KEY, "start");
  if (key >= 0) mj_resetDataKeyframe(hooked.get(), d.get(), key);
  for (int k = 0; k < warmup; k++) hook.Step(d.get());
  EXPECT_FALSE(hook.mode().contacts.empty()) << "the rigid normal force is solved only with a mode";
  std::printf("[ allocations ] mode of %zu contacts\n", hook.mode().contacts.size());
  const size_t events = hook.events().size();
  mj_copyData(p.get(), plain.get(), d.get());
  Counts c;
  long before = g_allocations.load();
  for (int k = 0; k < steps; k++) hook.Step(d.get());
  hook.Sync();
  c.hook = g_allocations.load() - before;
  before = g_allocations.load();
  for (int k = 0; k < steps; k++) mj_step(plain.get(), p.get());
  c.plain = g_allocations.load() - before;
  // records that need no localisation (near misses, measured restitution) may fall in the window
  for (size_t i = events; i < hook.events().size(); i++) {
    const EventKind kind = hook.events()[i].kind;
    EXPECT_TRUE(kind == EventKind::kNearMiss || kind == EventKind::kRestitution) << EventKindName(kind) << " in the counted steps: choose another window";
  }
  return c;
}

TEST_F(AllocationTest, HookStepAddsNoAllocationsToMujocos) {
  auto file = [](const std::string& path) {
    return [path]() {
      char error[1000] = "";
      ModelPtr m(mj_loadXML(path.c_str(), nullptr, error, sizeof(error)));
      EXPECT_TRUE(m) << error;
      return m;
    };
  };
  // five boxes resting on their faces: 20 sticking corners, 60 rows on 30 degrees of freedom
  // (Eigen applies 48 or more reflectors in a blocked form that allocates: the solver must not)
  std::string boxes = "<mujoco><worldbody><geom type='plane' size='5 5 0.1'/>";
  for (int i = 0; i < 5; i++) {
    boxes += "<body pos='" + std::to_string(0.5 * i) + " 0 0.1'><freejoint/><geom type='box' size='0.1 0.1 0.1'/></body>";
  }
  boxes += "</worldbody></mujoco>";
  struct Case {
    const char* name;
    std::function<ModelPtr()> load;
    int warmup;
  };
  const Case cases[] = {
      // one frictional contact: J M⁻¹ Jᵀ positive definite (Cholesky)
      {"ball_drop resting", file(SALTATION_SOURCE_DIR "/models/ball_drop.xml"), 3000},
      // three rows on one degree of freedom: rank one (the pseudo-inverse)
      {"vertical_ball resting", file(SALTATION_SOURCE_DIR "/models/vertical_ball.xml"), 6000},
      // lying on the floor, several contacts in the mode
      {"humanoid lying", file(SALTATION_MUJOCO_MODELS "/humanoid/humanoid.xml"), 3000},
      {"five boxes resting", [&boxes]() { return LoadModelFromString(boxes); }, 500},
  };
  for (const bool worker : {false, true}) {
    for (const Case& c : cases) {
      SCOPED_TRACE(std::string(c.name) + (worker ? ", worker thread" : ""));
      const Counts n = CountAllocations(c.load, c.warmup, 100, worker);
      std::printf("[ allocations ] %-22s%s 100 steps: hook.Step %ld, mj_step %ld\n", c.name, worker ? " (worker)" : "", n.hook, n.plain);
      EXPECT_EQ(n.hook, n.plain);
    }
  }
}

// A FieldMemo (events.h) answers a mode vector field it holds with one allocation, the copy it
// returns: finding the entry of an island's evaluation allocates nothing (it compared a copy of
// the island's trees, a second allocation)
TEST_F(AllocationTest, FieldMemoAnswersFromMemoryWithOneAllocation) {
  ModelPtr m = LoadModelFromString(R"(<mujoco><worldbody><geom name="floor" type="plane" size="5 5 0.1"/>
    <body pos="0 0 0.1"><freejoint/><geom name="a" size="0.1"/></body>
    <body pos="1 0 0.3"><freejoint/><geom name="b" size="0.1"/></body></worldbody></mujoco>)");
  ASSERT_TRUE(m);
  Model model(m.get());
  Data data(model);
  const State x = StateFromData(model.mj(), data.main());
  ContactId id;
  id.geom1 = mj_name2id(m.get(), mjOBJ_GEOM, "floor");
  id.geom2 = mj_name2id(m.get(), mjOBJ_GEOM, "a");
  const Island island = IslandOf(model, {}, {id});
  ASSERT_FALSE(island.whole);
  const Mode mode;
  FieldMemo fields;
  const Eigen::VectorXd first = fields.Get(model, data, x, mode, &island);
  const long before = g_allocations.load();
  const Eigen::VectorXd again = fields.Get(model, data, x, mode, &island);
  const long allocations = g_allocations.load() - before;
  EXPECT_EQ(fields.evaluations(), 1);
  EXPECT_EQ(fields.hits(), 1);
  EXPECT_EQ(allocations, 1);
  EXPECT_TRUE(first == again);
}

}  // namespace
}  // namespace saltation::testing
