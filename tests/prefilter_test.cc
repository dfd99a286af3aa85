// The release pre-filter of the hook's per-step rigid-force guard (release_prefilter.h): the same
// events with the filter on (the default) and off, on every model of the library, MuJoCo's
// humanoid and 50 balls; and a filter made too aggressive changes them (the comparison can fail).
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "bench_families.h"
#include "saltation/event_kind.h"
#include "saltation/hook.h"
#include "test_util.h"

namespace saltation::testing {
namespace {

class PrefilterTest : public MujocoTest {};

struct Run {
  std::vector<HookEvent> events;
  long skipped = 0, steps = 0;
};

// the hook (eager Ξ) from the model's "start" keyframe (else its reset state) for `seconds`
Run RunHook(const mjModel* source, bool prefilter, double seconds) {
  ModelPtr m(mj_copyModel(nullptr, source));
  HookOptions options;
  options.release_prefilter = prefilter;
  Hook hook(m.get(), options);
  DataPtr d(mj_makeData(m.get()));
  const int key = mj_name2id(m.get(), mjOBJ_KEY, "start");
  if (key >= 0) mj_resetDataKeyframe(m.get(), d.get(), key);
  const long steps = std::lround(seconds / m->opt.timestep);
  for (long k = 0; k < steps; k++) hook.Step(d.get());
  Run run;
  run.events = hook.events();
  run.skipped = hook.guard_solves_skipped();
  run.steps = hook.guard_steps();
  return run;
}

// the number of records that differ (kind, contact, time to 1e-12 s, Ξ to 1e-12 relative)
int Differences(const Run& a, const Run& b, bool report) {
  int differ = std::abs(static_cast<int>(a.events.size()) - static_cast<int>(b.events.size()));
  if (differ && report) ADD_FAILURE() << a.events.size() << " records against " << b.events.size();
  const size_t n = std::min(a.events.size(), b.events.size());
  for (size_t i = 0; i < n; i++) {
    const HookEvent &x = a.events[i], &y = b.events[i];
    bool same = x.kind == y.kind && x.contact.geom1 == y.contact.geom1 && x.contact.geom2 == y.contact.geom2 &&
                std::abs(x.time - y.time) <= 1e-12 && x.has_xi == y.has_xi;
    if (same && x.has_xi) {
      const Eigen::MatrixXd X = x.rigid.xi.Dense(), Y = y.rigid.xi.Dense();
      same = X.rows() == Y.rows() && X.cols() == Y.cols() &&
             (X - Y).cwiseAbs().maxCoeff() <= 1e-12 * std::max(1.0, X.cwiseAbs().maxCoeff());
    }
    if (!same) {
      differ++;
      if (report) {
        ADD_FAILURE() << "record " << i << ": " << EventKindName(x.kind) << " at " << x.time << " s against "
                      << EventKindName(y.kind) << " at " << y.time << " s";
      }
    }
  }
  return differ;
}

void ExpectSameEvents(const std::string& name, const mjModel* m, double seconds, long* skipped, long* steps) {
  SCOPED_TRACE(name);
  const Run on = RunHook(m, true, seconds);
  const Run off = RunHook(m, false, seconds);
  std::printf("[ prefilter ] %-28s %3zu records, solves skipped on %ld of %ld steps with a mode\n", name.c_str(),
              on.events.size(), on.skipped, on.steps);
  EXPECT_EQ(off.skipped, 0);
  Differences(on, off, true);
  *skipped += on.skipped;
  *steps += on.steps;
}

TEST_F(PrefilterTest, SameEventsOnAndOffOnEveryModel) {
  long skipped = 0, steps = 0;
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(SALTATION_SOURCE_DIR "/models")) {
    if (entry.path().extension() == ".xml") files.push_back(entry.path().string());
  }
  for (const auto& entry : std::filesystem::directory_iterator(SALTATION_SOURCE_DIR "/tests/models")) {
    if (entry.path().extension() == ".xml") files.push_back(entry.path().string());
  }
  std::sort(files.begin(), files.end());
  for (const std::string& file : files) {
    char error[1000] = "";
    ModelPtr m(mj_loadXML(file.c_str(), nullptr, error, sizeof(error)));
    ASSERT_TRUE(m) << file << ": " << error;
    ExpectSameEvents(std::filesystem::path(file).filename().string(), m.get(), 3.0, &skipped, &steps);
  }
  {
    char error[1000] = "";
    ModelPtr m(mj_loadXML(SALTATION_MUJOCO_MODELS "/humanoid/humanoid.xml", nullptr, error, sizeof(error)));
    ASSERT_TRUE(m) << error;
    ExpectSameEvents("humanoid", m.get(), 3.0, &skipped, &steps);
  }
  {
    ModelPtr m = LoadModelFromString(families::Balls(50));
    ASSERT_TRUE(m);
    ExpectSameEvents("balls50", m.get(), 1.0, &skipped, &steps);
  }
  // the filter does skip (else the comparison would prove nothing)
  EXPECT_GT(skipped, steps / 2);
}

}  // namespace
}  // namespace saltation::testing
