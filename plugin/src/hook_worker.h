// The hook's worker thread (HookOptions::worker_thread): a bounded queue of stepped MuJoCo states
// and one thread that runs the hook's bookkeeping on them, in step order.
//
//   Acquire ()         (stepping thread) => a free slot to fill: waits while every slot is queued
//                      (backpressure); the slot stays the caller's until Push (a slot acquired and
//                      not pushed, its step having failed, is the one the next Acquire returns)
//   Push ()            (stepping thread) => the acquired slot is queued for the worker (dropped
//                      while an error is waiting for Take)
//   Wait ()            => returns once every queued step is done (or dropped after an error)
//   Take (records)     => appends the records of the steps done so far, in step order, and returns
//                      the worker's error (once; nullptr when none)
//   ~StepWorker        => the step in progress finishes, the queued ones are dropped, the thread joins
//
// The job runs on the worker thread with the slot and a record buffer to fill; it owns whatever
// state it touches while a step is queued. An exception it throws is kept for Take with the records
// it had made, and the steps queued behind it are dropped (the job is not called again until
// Take has returned the error). Writes nothing of the caller's.
#ifndef SALTATION_HOOK_WORKER_H_
#define SALTATION_HOOK_WORKER_H_

#include <condition_variable>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "resimulation.h"
#include "saltation/hook_event.h"
#include "saltation/model.h"

namespace saltation {

// one step handed to the worker: x_k as Capture saved it before the step, and MuJoCo's data after it
struct StepSlot {
  SavedStep before;
  DataPtr after;  // a copy of the caller's mjData after mj_step (made on first use, then reused)
  double dt = 0;
};

class StepWorker {
 public:
  using Job = std::function<void(StepSlot& slot, std::vector<HookEvent>& records)>;
  StepWorker(int capacity, Job job);
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
  std::mutex mutex_;
  std::condition_variable changed_;
  size_t head_ = 0;       // the oldest queued slot
  size_t queued_ = 0;     // slots [head_, head_ + queued_) (mod capacity) are the worker's
  bool stop_ = false;
  bool idle_ = false;     // the worker waits for a step (Push wakes it only then)
  int waiters_ = 0;       // the caller waits in Acquire or Wait (the worker wakes it only then)
  std::exception_ptr error_;
  std::vector<HookEvent> ready_;  // records of the steps done, not taken yet
  std::thread thread_;
};

}  // namespace saltation

#endif  // SALTATION_HOOK_WORKER_H_
