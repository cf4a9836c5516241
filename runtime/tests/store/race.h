// Helpers of the store tests that race threads on one table.
#pragma once

#include <gtest/gtest.h>

#include <exception>
#include <latch>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "backends.h"
#include "novacat/store/table.h"

namespace novacat::store::testing {

// Runs body(i, client) for i in [0, n) on n threads that start together (a
// latch releases them only when all have been created), each with its own
// client of `table` when the backend cannot share one across threads.
// Clients are made before the threads start, so that connecting does not
// stagger the race. An exception in a thread is a test failure.
template <class Body>
void Race(const Backend& backend, Table& table, int n, Body body) {
  std::vector<std::unique_ptr<Table>> clients;
  std::vector<Table*> tables;
  for (int i = 0; i < n; ++i) {
    if (backend.shared_across_threads || !backend.connect) {
      tables.push_back(&table);
    } else {
      clients.push_back(backend.connect(table));
      tables.push_back(clients.back().get());
    }
  }
  std::latch start(n);
  std::mutex mutex;
  std::vector<std::string> errors;
  std::vector<std::thread> threads;
  for (int i = 0; i < n; ++i)
    threads.emplace_back([&, i] {
      start.arrive_and_wait();
      try {
        body(i, *tables[i]);
      } catch (const std::exception& e) {
        std::lock_guard lock(mutex);
        errors.push_back("thread " + std::to_string(i) + ": " + e.what());
      }
    });
  for (auto& t : threads) t.join();
  for (const std::string& e : errors) ADD_FAILURE() << e;
}

}  // namespace novacat::store::testing
