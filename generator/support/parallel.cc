#include "support/parallel.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <system_error>
#include <thread>
#include <vector>

namespace novacat {

void ParallelFor(size_t n, const std::function<void(size_t)>& job,
                 unsigned threads) {
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  std::vector<std::exception_ptr> errors(n);
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i; (i = next.fetch_add(1)) < n;) {
      try {
        job(i);
      } catch (...) {
        errors[i] = std::current_exception();
      }
    }
  };
  std::vector<std::thread> helpers;
  const size_t wanted = std::min<size_t>(threads, n);
  for (size_t t = 1; t < wanted; ++t) {
    try {
      helpers.emplace_back(work);
    } catch (const std::system_error&) {
      break;  // no more threads: the ones running take the remaining jobs
    }
  }
  work();
  for (auto& helper : helpers) helper.join();
  for (const auto& error : errors)
    if (error) std::rethrow_exception(error);
}

}  // namespace novacat
