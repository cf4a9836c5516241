// SqliteTable: store::Table on an SQLite database, the embedded default.
//
// One SQL table `items` holds every item as JSON text beside its key and the
// key attributes of the three indexes; each GSI is an SQL index over (index
// PK, index SK, PK, SK), so a Query is an index range scan returning items
// in exactly MemoryTable's order. A conditional write is one `BEGIN
// IMMEDIATE` transaction (read the item, EvaluateCondition, write, commit),
// so writers racing on one item, in this process or in others, get
// DynamoDB's semantics: exactly one of them meets a condition only one can
// meet, and nothing is half-written.
//
// Threads: one SqliteTable may be shared by any number of threads (its one
// connection is guarded by a mutex, so they take turns). Several SqliteTable
// objects on the same file (in one process or several) are separate
// connections; SQLite's file locks serialize their writes and a writer waits
// up to `busy_timeout_ms` for another's transaction to end.
//
// Errors: SQLITE_BUSY / SQLITE_LOCKED still there after the busy timeout are
// runtime::RetryableError; any other failure is runtime::TerminalError with
// SQLite's message, the operation and the key.
#pragma once

#include <memory>
#include <string>

#include "novacat/store/table.h"

namespace novacat::store {

struct SqliteOptions {
  // How long a write waits for another connection's write transaction to
  // finish before it fails with RetryableError.
  int busy_timeout_ms = 5000;
  // Files only (":memory:" has no journal): write-ahead logging, so that
  // readers do not wait for writers and commits are one append.
  bool wal = true;
  // PRAGMA synchronous=FULL instead of NORMAL. With WAL, NORMAL survives
  // process crashes and may lose the last commits on power loss.
  bool synchronous_full = false;
  // Opens an existing file for reading only (the operator's listings): the
  // file is never created or changed, a write is a TerminalError
  // ("attempt to write a readonly database"), and the file's journal mode
  // is left as it is.
  bool read_only = false;
};

class SqliteTable : public Table {
 public:
  // Opens (creating the file if needed) the database at `path`; ":memory:"
  // is a private in-memory database that lives as long as this object.
  // Throws runtime::TerminalError when the file cannot be opened. The
  // schema is created by EnsureCreated(); other calls before it throw
  // TerminalError ("no such table"), like DynamoDB's missing table.
  explicit SqliteTable(std::string path, SqliteOptions options = {});
  ~SqliteTable() override;
  SqliteTable(const SqliteTable&) = delete;
  SqliteTable& operator=(const SqliteTable&) = delete;

  const std::string& path() const;
  const SqliteOptions& options() const;

  void EnsureCreated() override;
  std::optional<Item> GetItem(const Key& key) override;
  WriteResult PutItem(const Item& item,
                      const std::optional<Condition>& condition) override;
  WriteResult UpdateItem(const Key& key, const Update& update,
                         const std::optional<Condition>& condition) override;
  WriteResult DeleteItem(const Key& key,
                         const std::optional<Condition>& condition) override;
  QueryPage Query(const QueryRequest& request) override;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The least string greater than every string that starts with `prefix`
// (byte order), or nullopt when there is none (empty, or all bytes 0xFF):
// begins_with(sk, prefix) is sk >= prefix AND sk < PrefixSuccessor(prefix),
// correct for any bytes, where LIKE and GLOB would treat '%', '_', '*' or
// '[' specially. Exposed for tests.
std::optional<std::string> PrefixSuccessor(std::string_view prefix);

}  // namespace novacat::store
