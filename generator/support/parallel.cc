#include "support/parallel.h"

#include <algorithm>
#include <system_error>
#include <utility>

namespace novacat {

JobQueue::JobQueue()
    : JobQueue(std::max(1u, std::thread::hardware_concurrency()) - 1) {}

JobQueue::JobQueue(unsigned helpers) {
  for (unsigned i = 0; i < helpers; ++i) {
    try {
      helpers_.emplace_back([this] { HelperLoop(); });
    } catch (const std::system_error&) {
      break;  // no more threads: the ones running and Wait take the jobs
    }
  }
}

JobQueue::~JobQueue() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
    queue_.clear();
  }
  queued_.notify_all();
  for (auto& helper : helpers_) helper.join();
}

void JobQueue::Add(std::function<void()> job, bool first) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    Job entry{added_++, std::move(job)};
    if (first)
      queue_.push_front(std::move(entry));
    else
      queue_.push_back(std::move(entry));
  }
  queued_.notify_one();
}

void JobQueue::Wait() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!queue_.empty()) RunFront(lock);
  idle_.wait(lock, [this] { return queue_.empty() && running_ == 0; });
  if (errors_.empty()) return;
  std::exception_ptr error = errors_.begin()->second;
  errors_.clear();
  std::rethrow_exception(error);
}

void JobQueue::Close() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    closed_ = true;
  }
  queued_.notify_all();
}

void JobQueue::HelperLoop() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    queued_.wait(lock,
                 [this] { return stopping_ || closed_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stopping or closed
    RunFront(lock);
  }
}

void JobQueue::RunFront(std::unique_lock<std::mutex>& lock) {
  Job job = std::move(queue_.front());
  queue_.pop_front();
  ++running_;
  lock.unlock();
  std::exception_ptr error;
  try {
    job.run();
  } catch (...) {
    error = std::current_exception();
  }
  lock.lock();
  if (error) errors_.emplace(job.index, error);
  --running_;
  if (queue_.empty() && running_ == 0) idle_.notify_all();
}

}  // namespace novacat
