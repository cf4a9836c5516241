// JobQueue: independent jobs on the machine's cores. Helper threads take a
// job as soon as it is queued, so a stage hands work to the other cores and
// goes on with its own (the generator emits one workflow while it loads
// the next); the caller's thread joins in when it waits.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <functional>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

namespace novacat {

class JobQueue {
 public:
  // Starts one helper thread fewer than the hardware threads: the waiting
  // caller is the last.
  JobQueue();
  // Starts `helpers` threads (0: the caller runs every job, in Wait). When
  // the system refuses a thread, the ones running take its jobs.
  explicit JobQueue(unsigned helpers);
  // Drops the jobs not started and waits for the running ones: whatever
  // they use must outlive the queue.
  ~JobQueue();
  JobQueue(const JobQueue&) = delete;
  JobQueue& operator=(const JobQueue&) = delete;

  // Queues `job` last or, with `first`, ahead of every queued job (the
  // longest job of a stage, so that it does not run alone at the end).
  // Jobs must not touch shared state unless it is synchronized.
  void Add(std::function<void()> job, bool first = false);

  // Runs queued jobs on this thread too until every job added has run, so
  // the caller sees all their writes. Then rethrows the exception of the
  // earliest added job that threw, if any: a failure is the same whatever
  // the scheduling.
  void Wait();

  // Every job is queued: each helper ends as soon as it finds the queue
  // empty, so that its exit (its stack, its heap) overlaps the jobs still
  // running instead of the destructor's join. A job added later still runs,
  // on a helper not yet ended or in Wait.
  void Close();

 private:
  struct Job {
    size_t index;  // in the order added
    std::function<void()> run;
  };
  void HelperLoop();
  // Runs the front job with `lock` released; `lock` holds mutex_ around.
  void RunFront(std::unique_lock<std::mutex>& lock);

  std::mutex mutex_;
  std::condition_variable queued_;  // a job was queued, or stopping_
  std::condition_variable idle_;    // no job queued or running
  std::deque<Job> queue_;
  size_t added_ = 0;
  size_t running_ = 0;
  bool stopping_ = false;  // the destructor: drop the queued jobs
  bool closed_ = false;    // Close: helpers end when the queue is empty
  std::map<size_t, std::exception_ptr> errors_;  // by Job::index
  std::vector<std::thread> helpers_;
};

}  // namespace novacat
