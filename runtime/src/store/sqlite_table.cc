// SqliteTable: items as JSON text in one WITHOUT ROWID table, one partial
// index per GSI, conditional writes in BEGIN IMMEDIATE transactions.
#include "novacat/store/sqlite_table.h"

#include <sqlite3.h>

#include <map>
#include <mutex>
#include <utility>

#include "novacat/runtime/errors.h"
#include "novacat/store/memory_table.h"

namespace novacat::store {

using runtime::RetryableError;
using runtime::TerminalError;

namespace {

constexpr Index kGsis[] = {Index::kGsi1, Index::kGsi2, Index::kGsi3};

// The SQL columns holding an index's partition and sort key.
std::pair<const char*, const char*> Columns(Index index) {
  switch (index) {
    case Index::kTable:
      return {"pk", "sk"};
    case Index::kGsi1:
      return {"gsi1pk", "gsi1sk"};
    case Index::kGsi2:
      return {"gsi2pk", "gsi2sk"};
    case Index::kGsi3:
      return {"gsi3pk", "gsi3sk"};
  }
  return {"pk", "sk"};
}

// The schema. The GSI indexes are partial (an item without an index's keys
// is not in it, as DynamoDB's sparse indexes) and end with the table key so
// that ties on the index key come back in table key order, as MemoryTable.
constexpr const char* kSchema = R"sql(
CREATE TABLE IF NOT EXISTS items (
  pk TEXT NOT NULL,
  sk TEXT NOT NULL,
  body TEXT NOT NULL,
  gsi1pk TEXT, gsi1sk TEXT,
  gsi2pk TEXT, gsi2sk TEXT,
  gsi3pk TEXT, gsi3sk TEXT,
  PRIMARY KEY (pk, sk)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS items_gsi1 ON items (gsi1pk, gsi1sk, pk, sk)
  WHERE gsi1pk IS NOT NULL;
CREATE INDEX IF NOT EXISTS items_gsi2 ON items (gsi2pk, gsi2sk, pk, sk)
  WHERE gsi2pk IS NOT NULL;
CREATE INDEX IF NOT EXISTS items_gsi3 ON items (gsi3pk, gsi3sk, pk, sk)
  WHERE gsi3pk IS NOT NULL;
)sql";

std::string Describe(std::string_view operation, const std::string& pk,
                     const std::string& sk) {
  return std::string(operation) + " " + pk + " / " + sk;
}

// Throws the error class `rc` calls for, naming `what` (operation and key).
[[noreturn]] void Fail(sqlite3* db, int rc, const std::string& what) {
  std::string message =
      what + ": SQLite: " + (db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
  int primary = rc & 0xff;
  if (primary == SQLITE_BUSY || primary == SQLITE_LOCKED)
    throw RetryableError(message);
  throw TerminalError(message);
}

std::string Dump(const Item& item, const std::string& what) {
  try {
    return item.dump();
  } catch (const nlohmann::json::exception& e) {
    throw TerminalError(what + ": cannot encode the item: " + e.what());
  }
}

}  // namespace

std::optional<std::string> PrefixSuccessor(std::string_view prefix) {
  std::string s(prefix);
  while (!s.empty() && static_cast<unsigned char>(s.back()) == 0xFF)
    s.pop_back();
  if (s.empty()) return std::nullopt;
  s.back() = static_cast<char>(static_cast<unsigned char>(s.back()) + 1);
  return s;
}

struct SqliteTable::Impl {
  std::string path;
  SqliteOptions options;
  // Guards everything below: a connection runs one statement at a time.
  std::mutex mutex;
  sqlite3* db = nullptr;
  // Prepared statements by SQL text, finalized with the connection.
  std::map<std::string, sqlite3_stmt*, std::less<>> statements;

  ~Impl() {
    for (auto& [sql, stmt] : statements) sqlite3_finalize(stmt);
    sqlite3_close_v2(db);
  }

  sqlite3_stmt* Prepare(const std::string& sql, const std::string& what) {
    auto it = statements.find(sql);
    if (it != statements.end()) return it->second;
    sqlite3_stmt* stmt = nullptr;
    int rc = sqlite3_prepare_v3(db, sql.c_str(), static_cast<int>(sql.size()),
                                SQLITE_PREPARE_PERSISTENT, &stmt, nullptr);
    if (rc != SQLITE_OK) Fail(db, rc, what);
    statements.emplace(sql, stmt);
    return stmt;
  }

  void Execute(const std::string& sql, const std::string& what) {
    char* error = nullptr;
    int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error);
    sqlite3_free(error);
    if (rc != SQLITE_OK) Fail(db, rc, what);
  }

  std::optional<Item> Read(const std::string& pk, const std::string& sk,
                           const std::string& what);
  void Write(const Item& item, const std::string& what);
  void Delete(const std::string& pk, const std::string& sk,
              const std::string& what);
};

namespace {

// A prepared statement in use: bound on the way in, reset (bindings
// cleared) on the way out, whatever happened.
class Statement {
 public:
  Statement(sqlite3* db, sqlite3_stmt* stmt, std::string what)
      : db_(db), stmt_(stmt), what_(std::move(what)) {}
  ~Statement() {
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
  }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  void Bind(int index, std::string_view text) {
    Check(sqlite3_bind_text(stmt_, index, text.data(),
                            static_cast<int>(text.size()), SQLITE_TRANSIENT));
  }
  void BindNull(int index) { Check(sqlite3_bind_null(stmt_, index)); }
  void Bind(int index, int64_t value) {
    Check(sqlite3_bind_int64(stmt_, index, value));
  }
  // True while there is a row; throws on failure.
  bool Step() {
    int rc = sqlite3_step(stmt_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    Fail(db_, rc, what_);
  }
  Item Body(int column) {
    const auto* text =
        reinterpret_cast<const char*>(sqlite3_column_text(stmt_, column));
    int size = sqlite3_column_bytes(stmt_, column);
    try {
      return nlohmann::json::parse(std::string_view(text ? text : "", size));
    } catch (const nlohmann::json::exception& e) {
      throw TerminalError(what_ + ": a stored item is not JSON: " + e.what());
    }
  }

 private:
  void Check(int rc) {
    if (rc != SQLITE_OK) Fail(db_, rc, what_);
  }
  sqlite3* db_;
  sqlite3_stmt* stmt_;
  std::string what_;
};

// BEGIN IMMEDIATE takes the database's write lock at once (waiting up to the
// busy timeout), so the read-evaluate-write that follows cannot interleave
// with another connection's. Rolled back unless committed.
class Transaction {
 public:
  Transaction(sqlite3* db, sqlite3_stmt* begin, sqlite3_stmt* commit,
              const std::string& what)
      : db_(db), commit_(commit), what_(what) {
    Statement(db_, begin, what_).Step();
  }
  ~Transaction() {
    if (!done_) sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
  }
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  void Commit() {
    Statement(db_, commit_, what_).Step();
    done_ = true;
  }

 private:
  sqlite3* db_;
  sqlite3_stmt* commit_;
  const std::string& what_;
  bool done_ = false;
};

}  // namespace

std::optional<Item> SqliteTable::Impl::Read(const std::string& pk,
                                            const std::string& sk,
                                            const std::string& what) {
  Statement s(db,
              Prepare("SELECT body FROM items WHERE pk = ?1 AND sk = ?2", what),
              what);
  s.Bind(1, pk);
  s.Bind(2, sk);
  if (!s.Step()) return std::nullopt;
  return s.Body(0);
}

void SqliteTable::Impl::Write(const Item& item, const std::string& what) {
  std::string body = Dump(item, what);
  Statement s(db,
              Prepare("INSERT OR REPLACE INTO items (pk, sk, body, gsi1pk, "
                      "gsi1sk, gsi2pk, gsi2sk, gsi3pk, gsi3sk) VALUES (?1, ?2, "
                      "?3, ?4, ?5, ?6, ?7, ?8, ?9)",
                      what),
              what);
  s.Bind(1, item["PK"].get_ref<const std::string&>());
  s.Bind(2, item["SK"].get_ref<const std::string&>());
  s.Bind(3, body);
  int column = 4;
  for (Index index : kGsis) {
    std::optional<IndexKey> key = IndexKeyOf(item, index);
    if (key) {
      s.Bind(column, key->pk);
      s.Bind(column + 1, key->sk);
    } else {
      s.BindNull(column);
      s.BindNull(column + 1);
    }
    column += 2;
  }
  s.Step();
}

void SqliteTable::Impl::Delete(const std::string& pk, const std::string& sk,
                               const std::string& what) {
  Statement s(db, Prepare("DELETE FROM items WHERE pk = ?1 AND sk = ?2", what),
              what);
  s.Bind(1, pk);
  s.Bind(2, sk);
  s.Step();
}

SqliteTable::SqliteTable(std::string path, SqliteOptions options)
    : impl_(std::make_unique<Impl>()) {
  impl_->path = std::move(path);
  impl_->options = options;
  const std::string what = "open " + impl_->path;
  // NOMUTEX: Impl::mutex already serializes the use of the connection.
  int rc = sqlite3_open_v2(
      impl_->path.c_str(), &impl_->db,
      (options.read_only ? SQLITE_OPEN_READONLY
                         : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE) |
          SQLITE_OPEN_NOMUTEX,
      nullptr);
  if (rc != SQLITE_OK) Fail(impl_->db, rc, what);
  sqlite3_extended_result_codes(impl_->db, 1);
  sqlite3_busy_timeout(impl_->db, options.busy_timeout_ms);
  if (impl_->path != ":memory:" && !impl_->path.empty() && !options.read_only) {
    if (options.wal) impl_->Execute("PRAGMA journal_mode=WAL", what);
    impl_->Execute(options.synchronous_full ? "PRAGMA synchronous=FULL"
                                            : "PRAGMA synchronous=NORMAL",
                   what);
  }
}

SqliteTable::~SqliteTable() = default;

const std::string& SqliteTable::path() const { return impl_->path; }
const SqliteOptions& SqliteTable::options() const { return impl_->options; }

void SqliteTable::EnsureCreated() {
  const std::string what = std::string("CreateTable ") + kTableName;
  std::lock_guard lock(impl_->mutex);
  Transaction transaction(impl_->db, impl_->Prepare("BEGIN IMMEDIATE", what),
                          impl_->Prepare("COMMIT", what), what);
  impl_->Execute(kSchema, what);
  transaction.Commit();
}

std::optional<Item> SqliteTable::GetItem(const Key& key) {
  ValidateKey(key, "GetItem");
  const std::string what = Describe("GetItem", key.pk, key.sk);
  std::lock_guard lock(impl_->mutex);
  return impl_->Read(key.pk, key.sk, what);
}

WriteResult SqliteTable::PutItem(const Item& item,
                                 const std::optional<Condition>& condition) {
  ValidateItem(item, "PutItem");
  const std::string& pk = item["PK"].get_ref<const std::string&>();
  const std::string& sk = item["SK"].get_ref<const std::string&>();
  const std::string what = Describe("PutItem", pk, sk);
  std::lock_guard lock(impl_->mutex);
  Transaction transaction(impl_->db, impl_->Prepare("BEGIN IMMEDIATE", what),
                          impl_->Prepare("COMMIT", what), what);
  if (condition && !EvaluateCondition(*condition, impl_->Read(pk, sk, what)))
    return {WriteStatus::kConditionFailed, std::nullopt};
  impl_->Write(item, what);
  transaction.Commit();
  return {};
}

WriteResult SqliteTable::UpdateItem(const Key& key, const Update& update,
                                    const std::optional<Condition>& condition) {
  ValidateKey(key, "UpdateItem");
  ValidateUpdate(update, "UpdateItem");
  const std::string what = Describe("UpdateItem", key.pk, key.sk);
  std::lock_guard lock(impl_->mutex);
  Transaction transaction(impl_->db, impl_->Prepare("BEGIN IMMEDIATE", what),
                          impl_->Prepare("COMMIT", what), what);
  std::optional<Item> current = impl_->Read(key.pk, key.sk, what);
  if (condition && !EvaluateCondition(*condition, current))
    return {WriteStatus::kConditionFailed, std::nullopt};
  Item updated = ApplyUpdate(key, current, update);
  impl_->Write(updated, what);
  transaction.Commit();
  return {WriteStatus::kApplied, std::move(updated)};
}

WriteResult SqliteTable::DeleteItem(const Key& key,
                                    const std::optional<Condition>& condition) {
  ValidateKey(key, "DeleteItem");
  const std::string what = Describe("DeleteItem", key.pk, key.sk);
  std::lock_guard lock(impl_->mutex);
  Transaction transaction(impl_->db, impl_->Prepare("BEGIN IMMEDIATE", what),
                          impl_->Prepare("COMMIT", what), what);
  if (condition &&
      !EvaluateCondition(*condition, impl_->Read(key.pk, key.sk, what)))
    return {WriteStatus::kConditionFailed, std::nullopt};
  impl_->Delete(key.pk, key.sk, what);
  transaction.Commit();
  return {};
}

QueryPage SqliteTable::Query(const QueryRequest& request) {
  ValidateQuery(request, "Query");
  const std::string what = std::string("Query ") + IndexName(request.index) +
                           " " + request.partition_key;
  auto [pk_column, sk_column] = Columns(request.index);
  const bool on_table = request.index == Index::kTable;
  std::optional<std::string> upper;
  if (request.sort_key_prefix)
    upper = PrefixSuccessor(*request.sort_key_prefix);

  // ?1 partition key, ?2 sort key (prefix or equals), ?3 the prefix's
  // successor, ?4..?6 the exclusive start (index SK, PK, SK), ?7 the limit.
  std::string sql =
      std::string("SELECT body FROM items WHERE ") + pk_column + " = ?1";
  if (request.sort_key_equals) {
    sql += std::string(" AND ") + sk_column + " = ?2";
  } else if (request.sort_key_prefix && !request.sort_key_prefix->empty()) {
    sql += std::string(" AND ") + sk_column + " >= ?2";
    if (upper) sql += std::string(" AND ") + sk_column + " < ?3";
  }
  if (request.exclusive_start_key) {
    sql += on_table
               ? " AND sk > ?4"
               : std::string(" AND (") + sk_column + ", pk, sk) > (?4, ?5, ?6)";
  }
  sql += on_table ? " ORDER BY sk"
                  : std::string(" ORDER BY ") + sk_column + ", pk, sk";
  sql += " LIMIT ?7";

  std::lock_guard lock(impl_->mutex);
  Statement s(impl_->db, impl_->Prepare(sql, what), what);
  s.Bind(1, request.partition_key);
  if (request.sort_key_equals) s.Bind(2, *request.sort_key_equals);
  if (request.sort_key_prefix && !request.sort_key_prefix->empty()) {
    s.Bind(2, *request.sort_key_prefix);
    if (upper) s.Bind(3, *upper);
  }
  if (request.exclusive_start_key) {
    const Item& start = *request.exclusive_start_key;
    s.Bind(
        4,
        start[SortKeyAttribute(request.index)].get_ref<const std::string&>());
    if (!on_table) {
      s.Bind(5, start["PK"].get_ref<const std::string&>());
      s.Bind(6, start["SK"].get_ref<const std::string&>());
    }
  }
  s.Bind(7, static_cast<int64_t>(request.limit > 0 ? request.limit : -1));
  QueryPage page;
  while (s.Step()) page.items.push_back(s.Body(0));
  // As DynamoDB (and MemoryTable): a full page carries its last key even
  // when nothing follows.
  if (request.limit > 0 &&
      page.items.size() == static_cast<size_t>(request.limit))
    page.last_evaluated_key =
        LastEvaluatedKeyOf(page.items.back(), request.index);
  return page;
}

}  // namespace novacat::store
