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
  work_.notify_all();
  thread_.join();
}

// The sleeps pair a sequentially consistent store of the sleeper's flag (idle_, waiting_) before
// it checks the counters with the other side's counter update before it checks the flag: either
// the sleeper sees the update, or the other side sees the flag and notifies under the mutex
// (after the sleeper's check, which holds it), so no wake-up is lost.

StepSlot& StepWorker::Acquire() {
  const size_t capacity = slots_.size();
  if (pushed_.load() - done_.load() >= capacity) {
    // a full queue: sleep until it is half empty (one wake-up per capacity/2 steps, not per step)
    std::unique_lock<std::mutex> lock(mutex_);
    waiting_ = true;
    room_.wait(lock, [&] { return pushed_.load() - done_.load() <= capacity / 2; });
    waiting_ = false;
  }
  return slots_[pushed_.load(std::memory_order_relaxed) % capacity];
}

void StepWorker::Push() {
  if (failed_.load()) return;  // after a failure, the steps until Take are dropped
  pushed_.fetch_add(1);
  if (idle_.load()) {  // a busy worker finds the step when it finishes its own
    { std::lock_guard<std::mutex> lock(mutex_); }
    work_.notify_one();
  }
}

void StepWorker::Wait() {
  if (pushed_.load() == done_.load()) return;
  std::unique_lock<std::mutex> lock(mutex_);
  waiting_ = true;
  room_.wait(lock, [&] { return pushed_.load() == done_.load(); });
  waiting_ = false;
}

std::exception_ptr StepWorker::Take(std::vector<HookEvent>& records) {
  if (!news_.load()) return nullptr;
  std::lock_guard<std::mutex> lock(mutex_);
  news_ = false;
  records.insert(records.end(), std::make_move_iterator(ready_.begin()), std::make_move_iterator(ready_.end()));
  ready_.clear();
  std::exception_ptr error = std::move(error_);
  error_ = nullptr;
  if (error) {
    done_ = pushed_.load();  // the steps pushed before the failure was seen are dropped too
    failed_ = false;         // the worker may run jobs again (it sleeps: nothing is queued)
  }
  return error;
}

constexpr int kSpins = 200;

void StepWorker::Run() {
  std::vector<HookEvent> records;
  for (;;) {
    if (stop_.load()) return;
    // failed_ first: Take drops the queue (done_) before it clears failed_
    if (failed_.load() || pushed_.load() == done_.load()) {
      // a control loop's next step comes soon: look for it a while before sleeping (a sleeping
      // worker costs each Push a wake-up, a system call that was most of a small model's Step)
      bool found = false;
      for (int spin = 0; spin < kSpins && !found; spin++) {
        std::this_thread::yield();
        found = stop_.load() || (!failed_.load() && pushed_.load() != done_.load());
      }
      if (found) continue;
      std::unique_lock<std::mutex> lock(mutex_);
      idle_ = true;
      work_.wait(lock, [&] { return stop_.load() || (!failed_.load() && pushed_.load() != done_.load()); });
      idle_ = false;
      continue;
    }
    const size_t n = done_.load();
    std::exception_ptr error;
    try {
      job_(slots_[n % slots_.size()], records);
    } catch (...) {
      error = std::current_exception();
    }
    const bool failed = error != nullptr;
    if (!records.empty() || failed) {
      std::lock_guard<std::mutex> lock(mutex_);
      ready_.insert(ready_.end(), std::make_move_iterator(records.begin()), std::make_move_iterator(records.end()));
      records.clear();
      news_ = true;  // before done_ moves: a Wait that sees the step done finds its news
      if (failed) {
        error_ = std::move(error);  // the worker keeps no reference: the caller's thread ends the exception
        failed_ = true;
        done_ = pushed_.load();  // the steps behind the failed one are dropped (those pushed
                                 // before the caller sees failed_: by Take)
      }
    }
    if (!failed) done_ = n + 1;
    // the caller sleeps until the queue is half empty (Acquire) or empty (Wait)
    if (waiting_.load() && pushed_.load() - done_.load() <= slots_.size() / 2) {
      { std::lock_guard<std::mutex> lock(mutex_); }
      room_.notify_all();
    }
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
                       " differs): MuJoCo state that mj_getState does not carry (e.g. sleeping trees, mjENBL_SLEEP, "
                       "after d was reset or edited) or a callback or plugin that does not give the same step "
                       "twice; use the hook without worker_thread");
}

}  // namespace saltation
