// The hook's worker thread (HookOptions::worker_thread): a bounded queue of the steps the caller
// took, and one thread that replays each of them on the hook's own mjData and runs the hook's
// bookkeeping on it, in step order.
//
//   StepSlot                one step handed over: MuJoCo's state before it (kWorkerStateBefore:
//                      everything mj_step reads, inputs and warmstart included) and the state the
//                      caller's mj_step reached (kWorkerStateAfter), both mj_getState arrays sized
//                      once (no allocation per step)
//
//   StepWorker (capacity, prototype, job)   the queue (capacity copies of the prototype slot) and
//                      the thread that runs job on each queued slot:
//   Acquire ()         (stepping thread) => a free slot to fill: when every slot is queued, waits
//                      until half of them are done (backpressure); the slot stays the caller's
//                      until Push (a slot acquired and not pushed, its step having failed, is the
//                      one the next Acquire returns)
//   Push ()            (stepping thread) => the acquired slot is queued for the worker (dropped
//                      while an error is waiting for Take)
//   Wait ()            => returns once every queued step is done (or dropped after an error)
//   Take (records)     => appends the records of the steps done so far, in step order, and returns
//                      the worker's error (once; nullptr when none)
//   ~StepWorker        => the step in progress finishes, the queued ones are dropped, the thread joins
//
// The stepping thread takes no lock unless it must wait, wake the worker or take records. An
// idle worker looks for the next step a while (yielding the processor) before it sleeps, so that a
// control loop's Push seldom pays a wake-up.
//
// The job runs on the worker thread with the slot and a record buffer to fill; it owns whatever
// state it touches while a step is queued. An exception it throws is kept for Take with the records
// it had made, and the steps queued behind it are dropped (the job is not called again until
// Take has returned the error). Writes nothing of the caller's.
//
//   StepReplayer (wide, arena)   the worker's replay of a step: borrows the worker's copy of the
//                      hook's model (widened margins and gaps) and the ArenaFallback that retakes a
//                      step on the user's gaps; owns an mjData of the model's own arena (the
//                      user's size, so the fallback retakes exactly the steps the synchronous hook
//                      retakes)
//   Replay (slot, x_k) => loads slot.before, Captures it into x_k, takes the step as the
//                      synchronous hook takes it (ArenaFallback::Step on the wide model) and
//                      compares the state reached with slot.after bit for bit: a NumericalError
//                      naming the time and the part that differs ("diverged") when they are not
//                      the same. data() is then MuJoCo's data after the step, which the bookkeeping
//                      reads (contacts of the band included, as the synchronous hook's d has them)
//
// Why the replay is the caller's step: the widened band adds contacts that are excluded from the
// physics (margin − gap unchanged), and a step that fills the arena is retaken on the user's gaps,
// so mj_step on either model gives the same state bit for bit; what mj_getState does not carry
// (sleeping trees with mjENBL_SLEEP, replayed alike only while the
// replay's own mjData went through the same steps) or a callback or plugin that is not a function of that state
// would make them differ, which the comparison reports.
#ifndef SALTATION_HOOK_WORKER_H_
#define SALTATION_HOOK_WORKER_H_

#include <atomic>
#include <condition_variable>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include <mujoco/mujoco.h>

#include "arena_fallback.h"
#include "resimulation.h"
#include "saltation/hook.h"
#include "saltation/hook_event.h"
#include "saltation/model.h"

namespace saltation {

struct StepSlot {
  std::vector<mjtNum> before;  // mj_getState(m, d, ·, kWorkerStateBefore) before the caller's step
  std::vector<mjtNum> after;   // mj_getState(m, d, ·, kWorkerStateAfter) after it
  double dt = 0;               // the step's timestep
};

class StepWorker {
 public:
  using Job = std::function<void(StepSlot& slot, std::vector<HookEvent>& records)>;
  StepWorker(int capacity, const StepSlot& prototype, Job job);
  ~StepWorker();
  StepWorker(const StepWorker&) = delete;
  StepWorker& operator=(const StepWorker&) = delete;

  StepSlot& Acquire();
  void Push();
  void Wait();
  std::exception_ptr Take(std::vector<HookEvent>& records);

 private:
  void Run();

  Job job_;
  std::vector<StepSlot> slots_;
  // slot (n mod capacity) holds the n-th step pushed; steps [done_, pushed_) are queued. The
  // stepping thread's Acquire, Push and Take take no lock unless they must wait, wake the worker
  // or take records (a control loop's step is not held by the worker's work)
  // (on cache lines of their own: each is written by one thread and read by the other)
  alignas(64) std::atomic<size_t> pushed_{0};  // written by the stepping thread
  alignas(64) std::atomic<size_t> done_{0};    // written by the worker (and by Take, dropping after an error)
  alignas(64) std::atomic<bool> failed_{false};  // an error waits for Take: no job runs, pushes are dropped
  std::atomic<bool> news_{false};    // records or an error wait for Take
  std::atomic<bool> idle_{false};    // the worker sleeps or is about to (Push wakes it only then)
  std::atomic<bool> waiting_{false};  // the caller sleeps or is about to (the worker wakes it only then)
  std::atomic<bool> stop_{false};
  std::mutex mutex_;                 // guards error_, ready_ and the sleeps
  std::condition_variable work_;     // the worker waits for a step
  std::condition_variable room_;     // the caller waits for a slot or for the queue to empty
  std::exception_ptr error_;
  std::vector<HookEvent> ready_;  // records of the steps done, not taken yet
  std::thread thread_;
};

class StepReplayer {
 public:
  StepReplayer(mjModel* wide, ArenaFallback& arena);
  void Replay(const StepSlot& slot, SavedStep& before);
  const mjData* data() const { return data_.get(); }

 private:
  mjModel* model_;
  ArenaFallback& arena_;
  DataPtr data_;
  std::vector<mjtNum> reached_;  // the replay's kWorkerStateAfter
};

}  // namespace saltation

#endif  // SALTATION_HOOK_WORKER_H_
