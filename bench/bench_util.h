// Shared helpers of the benchmarks (bench/*_bench.cc): loading models by name (the repository's,
// MuJoCo's humanoids, and the generated families of bench_families.h), timing, the heap in use,
// and the quick mode (fewer steps and iterations: the ctest bench.QuickJsonHasEveryKey).
// Reads: model files under the source tree; writes: temporary MJCF files under /tmp (one per
// generated model, named by process id), removed after loading.
#ifndef SALTATION_BENCH_BENCH_UTIL_H_
#define SALTATION_BENCH_BENCH_UTIL_H_

#include <mujoco/mujoco.h>

#include <chrono>
#include <string>

#include "saltation/saltation.h"

namespace bench {

using Clock = std::chrono::steady_clock;

// names: "humanoid", "22_humanoids", "humanoid100" (humanoid + 100 free objects), "ballsN"
// (N bouncing balls), "level_ballsN" (N balls dropped level: one simultaneous group), else models/<name>.xml; throws std::runtime_error when it does not load
saltation::ModelPtr LoadNamed(const std::string& name);
saltation::ModelPtr LoadXmlText(const std::string& xml);

double Seconds(Clock::duration d);
// the calling thread's CPU time (s): what a timing on this shared machine should count
double ThreadCpuSeconds();
// the model's keyframe "throw" if it has one, else qpos0
void ResetToStart(const mjModel* m, mjData* d);

// bytes of heap in use now (glibc mallinfo2: arena plus mmapped blocks)
double HeapInUse();
// bytes of this process resident in memory now (/proc/self/statm; 0 where it cannot be read)
double Resident();

// quick mode (--quick on the command line): every benchmark takes its short form
bool Quick();
void SetQuick(bool quick);
// --22-humanoids: also the TwentyTwoHumanoids run (minutes: off by default)
bool TwentyTwo();
void SetTwentyTwo(bool on);
inline int Pick(int full, int quick) { return Quick() ? quick : full; }

// each *_bench.cc registers its benchmarks (called by main after the quick mode is set)
void RegisterStepping();
void RegisterXi();
void RegisterPhi();
void RegisterConstruct();
void RegisterPlugin();
void RegisterRigid();
void RegisterRecord();

}  // namespace bench

#endif  // SALTATION_BENCH_BENCH_UTIL_H_
