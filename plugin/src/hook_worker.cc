#include "hook_worker.h"

#include <iterator>
#include <utility>

namespace saltation {

StepWorker::StepWorker(int capacity, Job job) : job_(std::move(job)), slots_(static_cast<size_t>(capacity)) {
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

}  // namespace saltation
