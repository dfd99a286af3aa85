#include "hook_worker.h"

#include <cstring>
#include <iterator>
#include <string>
#include <utility>

#include "saltation/errors.h"

namespace saltation {

StepWorker::StepWorker(int capacity, const StepSlot& prototype, Job job)
    : job_(std::move(job)), slots_(static_cast<size_t>(capacity), prototype) {
  thread_ = std::thread([this] { Run(); });
}

StepWorker::~StepWorker() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  changed_.notify_all();
  thread_.join();
}

StepSlot& StepWorker::Acquire() {
  std::unique_lock<std::mutex> lock(mutex_);
  waiters_++;
  changed_.wait(lock, [this] { return queued_ < slots_.size(); });
  waiters_--;
  return slots_[(head_ + queued_) % slots_.size()];
}

void StepWorker::Push() {
  bool wake = false;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!error_) queued_++;  // after a failure, the steps until Take are dropped
    wake = idle_;
  }
  if (wake) changed_.notify_all();  // a busy worker finds the step when it finishes its own
}

void StepWorker::Wait() {
  std::unique_lock<std::mutex> lock(mutex_);
  waiters_++;
  changed_.wait(lock, [this] { return queued_ == 0; });
  waiters_--;
}

std::exception_ptr StepWorker::Take(std::vector<HookEvent>& records) {
  std::lock_guard<std::mutex> lock(mutex_);
  records.insert(records.end(), std::make_move_iterator(ready_.begin()), std::make_move_iterator(ready_.end()));
  ready_.clear();
  std::exception_ptr error = std::move(error_);
  error_ = nullptr;
  if (error) changed_.notify_all();  // the worker may run jobs again
  return error;
}

void StepWorker::Run() {
  std::vector<HookEvent> records;
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    idle_ = true;
    changed_.wait(lock, [this] { return stop_ || (queued_ > 0 && !error_); });
    idle_ = false;
    if (stop_) return;
    StepSlot& slot = slots_[head_];
    lock.unlock();
    std::exception_ptr error;
    try {
      job_(slot, records);
    } catch (...) {
      error = std::current_exception();
    }
    lock.lock();
    ready_.insert(ready_.end(), std::make_move_iterator(records.begin()), std::make_move_iterator(records.end()));
    records.clear();
    if (error) {
      error_ = error;
      head_ = (head_ + queued_) % slots_.size();  // the steps behind the failed one are dropped
      queued_ = 0;
    } else {
      head_ = (head_ + 1) % slots_.size();
      queued_--;
    }
    if (waiters_ > 0) changed_.notify_all();  // the caller waits for a slot or for the queue to empty
  }
}

StepReplayer::StepReplayer(mjModel* wide, ArenaFallback& arena)
    : model_(wide), arena_(arena), data_(mj_makeData(wide)),
      reached_(static_cast<size_t>(mj_stateSize(wide, kWorkerStateAfter))) {
  if (!data_) throw MujocoError("could not make the worker thread's data");
}

namespace {

// the part of a kWorkerStateAfter array that holds element i (mj_getState's order: by bit)
const char* PartAt(const mjModel* m, size_t i) {
  struct Part {
    int bit;
    const char* name;
  };
  static const Part kParts[] = {{mjSTATE_TIME, "time"},        {mjSTATE_QPOS, "qpos"},
                                {mjSTATE_QVEL, "qvel"},        {mjSTATE_ACT, "act"},
                                {mjSTATE_HISTORY, "history"},  {mjSTATE_WARMSTART, "qacc_warmstart"},
                                {mjSTATE_PLUGIN, "plugin state"}, {mjSTATE_PLASTIC, "plastic state"}};
  size_t end = 0;
  for (const Part& p : kParts) {
    if (!(kWorkerStateAfter & p.bit)) continue;
    end += static_cast<size_t>(mj_stateSize(m, p.bit));
    if (i < end) return p.name;
  }
  return "state";
}

}  // namespace

void StepReplayer::Replay(const StepSlot& slot, SavedStep& before) {
  mjData* d = data_.get();
  mj_setState(model_, d, slot.before.data(), kWorkerStateBefore);
  Capture(model_, d, before);
  const double time_before = d->time;
  arena_.Step(model_, d);
  mj_getState(model_, d, reached_.data(), kWorkerStateAfter);
  if (std::memcmp(reached_.data(), slot.after.data(), sizeof(mjtNum) * reached_.size()) == 0) return;
  size_t i = 0;
  while (std::memcmp(&reached_[i], &slot.after[i], sizeof(mjtNum)) == 0) i++;
  throw NumericalError("the worker thread's replay of the step from t = " + std::to_string(time_before) +
                       " s diverged from the caller's mj_step (" + PartAt(model_, i) +
                       " differs): the model's state is not all in mj_getState (sleeping, mjENBL_SLEEP) or a "
                       "callback or plugin does not give the same step twice; use the hook without worker_thread");
}

}  // namespace saltation
