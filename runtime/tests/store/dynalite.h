// dynalite (a DynamoDB API server in Node, pinned in tests/tools) for the
// DynamoDbTable tests and benchmarks.
//
// Under ctest one server serves the whole run: the fixture test
// store.dynalite.start starts it and writes its endpoint to the file named
// by NOVACAT_DYNALITE_STATE, which every test that needs it reads;
// store.dynalite.stop kills it. A test binary run by hand (variable unset)
// starts its own server on first use and kills it at exit.
#pragma once

#include <sys/types.h>

#include <memory>
#include <string>

#include "novacat/store/dynamodb_table.h"

namespace novacat::store::testing {

class DynaliteServer {
 public:
  // Starts `node <dynalite>/cli.js` on 127.0.0.1 and a free port, in memory,
  // with instant table creation, and waits until it accepts connections.
  // The server runs in its own session (process group). With
  // `die_with_parent` the kernel kills it if this process dies without
  // running destructors (Linux); the fixture passes false so the server
  // outlives it. Throws std::runtime_error naming scripts/setup.sh when
  // node or dynalite is missing, or with dynalite's output when it fails.
  static std::unique_ptr<DynaliteServer> Start(bool die_with_parent);
  // Kills the server's process group (unless Release()d) and reaps it.
  ~DynaliteServer();
  DynaliteServer(const DynaliteServer&) = delete;
  DynaliteServer& operator=(const DynaliteServer&) = delete;

  const std::string& endpoint() const { return endpoint_; }  // http://...
  pid_t pid() const { return pid_; }  // also the process group id
  // Leaves the server running when this object goes.
  void Release() { pid_ = 0; }

  // Kills the process group `pgid` (SIGTERM, then SIGKILL after a grace
  // period). For the fixture's stop step.
  static void Kill(pid_t pgid);

 private:
  DynaliteServer(std::string endpoint, pid_t pid)
      : endpoint_(std::move(endpoint)), pid_(pid) {}
  std::string endpoint_;
  pid_t pid_;
};

// The endpoint tests use: the fixture's (NOVACAT_DYNALITE_STATE), else a
// server this process starts once and kills at exit. Throws
// std::runtime_error when neither works.
std::string DynaliteEndpoint();

// Options for a client of table `table_name` on DynaliteEndpoint(), with
// fake credentials (dynalite checks that requests are signed, not by whom).
DynamoDbOptions DynaliteOptions(std::string table_name);

// A table name no other table of this test run has.
std::string UniqueTableName();

}  // namespace novacat::store::testing
