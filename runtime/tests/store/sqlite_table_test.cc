// What only SqliteTable has: files, connections, locks.
#include "novacat/store/sqlite_table.h"

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <filesystem>

#include "store_test_util.h"

namespace novacat::store::testing {
namespace sqlite_table_test {
namespace {

using runtime::RetryableError;
using runtime::TerminalError;

class SqliteFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = (std::filesystem::temp_directory_path() /
             ("novacat_sqlite_test_" + std::to_string(getpid()) + ".db"))
                .string();
    Remove();
  }
  void TearDown() override { Remove(); }
  void Remove() {
    for (const char* suffix : {"", "-wal", "-shm", "-journal"})
      std::filesystem::remove(path_ + suffix);
  }
  std::string path_;
};

TEST(PrefixSuccessorTest, IncrementsTheLastByteBelowFF) {
  EXPECT_EQ(PrefixSuccessor("abc"), "abd");
  EXPECT_EQ(PrefixSuccessor("a#"), "a$");
  EXPECT_EQ(PrefixSuccessor("a\xff"), "b");
  EXPECT_EQ(PrefixSuccessor("a\xfe\xff\xff"), "a\xff");
  EXPECT_EQ(PrefixSuccessor("\xc3\xbf"), "\xc3\xc0");
  EXPECT_EQ(PrefixSuccessor(std::string("a\0", 2)), std::string("a\x01", 2));
  EXPECT_EQ(PrefixSuccessor("\xff\xff"), std::nullopt);
  EXPECT_EQ(PrefixSuccessor(""), std::nullopt);
}

TEST_F(SqliteFileTest, ItemsOutliveTheConnection) {
  const Item item = MakeItem("NOVA#1", "META", {{"name", "V1500 Aql"}});
  {
    SqliteTable table(path_);
    table.EnsureCreated();
    ASSERT_TRUE(table.PutItem(item, std::nullopt).applied());
  }
  SqliteTable reopened(path_);
  reopened.EnsureCreated();
  EXPECT_EQ(reopened.GetItem({"NOVA#1", "META"}), item);
}

TEST_F(SqliteFileTest, ConnectionsSeeEachOthersWrites) {
  SqliteTable a(path_);
  a.EnsureCreated();
  SqliteTable b(path_);
  ASSERT_TRUE(
      a.PutItem(MakeItem("P", "S", {{"v", 1}}), std::nullopt).applied());
  EXPECT_EQ(b.GetItem({"P", "S"}), MakeItem("P", "S", {{"v", 1}}));
  EXPECT_FALSE(
      b.PutItem(MakeItem("P", "S", {{"v", 2}}), Condition::NotExists("PK"))
          .applied());
}

TEST_F(SqliteFileTest, BeforeEnsureCreatedThereIsNoTable) {
  SqliteTable table(path_);
  ExpectError<TerminalError>(
      [&] {
        table.GetItem({"P", "S"});
      },
      "GetItem P / S: SQLite: no such table: items");
  ExpectError<TerminalError>(
      [&] { table.PutItem(MakeItem("P", "S"), std::nullopt); },
      "PutItem P / S: SQLite: no such table: items");
}

TEST_F(SqliteFileTest, ALockHeldPastTheBusyTimeoutIsRetryable) {
  SqliteTable table(path_, {.busy_timeout_ms = 50});
  table.EnsureCreated();
  ASSERT_TRUE(
      table.PutItem(MakeItem("P", "S", {{"v", 1}}), std::nullopt).applied());
  // Another process (here: a raw connection) holds the write lock.
  sqlite3* other = nullptr;
  ASSERT_EQ(sqlite3_open(path_.c_str(), &other), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(other, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr),
            SQLITE_OK);
  ExpectError<RetryableError>(
      [&] {
        table.PutItem(MakeItem("P", "S", {{"v", 2}}), Condition::Exists("PK"));
      },
      "PutItem P / S: SQLite: database is locked");
  Update update;
  update.set = {{"v", 3}};
  ExpectError<RetryableError>(
      [&] {
        table.UpdateItem({"P", "S"}, update, std::nullopt);
      },
      "UpdateItem P / S: SQLite: database is locked");
  // Readers are not blocked (WAL), and see the last commit.
  EXPECT_EQ(table.GetItem({"P", "S"}), MakeItem("P", "S", {{"v", 1}}));
  ASSERT_EQ(sqlite3_exec(other, "ROLLBACK", nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(other);
  // Once the lock is gone the same write goes through.
  EXPECT_TRUE(table.UpdateItem({"P", "S"}, update, std::nullopt).applied());
  EXPECT_EQ(table.GetItem({"P", "S"}), MakeItem("P", "S", {{"v", 3}}));
}

// The operator's listings open the file read-only: they read what the runs
// wrote, change nothing, create nothing, and are not blocked by a writer.
TEST_F(SqliteFileTest, AReadOnlyConnectionReadsAndNeverWrites) {
  ExpectError<TerminalError>(
      [&] { SqliteTable table(path_, {.read_only = true}); },
      "open " + path_ + ": SQLite: unable to open database file");
  EXPECT_FALSE(std::filesystem::exists(path_));
  SqliteTable writer(path_);
  writer.EnsureCreated();
  ASSERT_TRUE(
      writer.PutItem(MakeItem("P", "S", {{"v", 1}}), std::nullopt).applied());

  SqliteTable reader(path_, {.read_only = true});
  EXPECT_EQ(reader.GetItem({"P", "S"}), MakeItem("P", "S", {{"v", 1}}));
  ExpectError<TerminalError>(
      [&] { reader.PutItem(MakeItem("P", "T"), std::nullopt); },
      "PutItem P / T: SQLite: attempt to write a readonly database");
  Update update;
  update.set = {{"v", 2}};
  ExpectError<TerminalError>(
      [&] {
        reader.UpdateItem({"P", "S"}, update, std::nullopt);
      },
      "UpdateItem P / S: SQLite: attempt to write a readonly database");
  // A writer holding its write lock does not block the reader.
  sqlite3* other = nullptr;
  ASSERT_EQ(sqlite3_open(path_.c_str(), &other), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(other, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr),
            SQLITE_OK);
  EXPECT_EQ(reader.GetItem({"P", "S"}), MakeItem("P", "S", {{"v", 1}}));
  ASSERT_EQ(sqlite3_exec(other, "ROLLBACK", nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(other);
  EXPECT_EQ(writer.GetItem({"P", "S"}), MakeItem("P", "S", {{"v", 1}}));
}

TEST(SqliteTableTest, AnUnopenableFileIsTerminal) {
  ExpectError<TerminalError>(
      [] { SqliteTable table("/nonexistent-novacat-dir/store.db"); },
      "open /nonexistent-novacat-dir/store.db: SQLite: unable to open "
      "database file");
}

TEST(SqliteTableTest, InMemoryTablesAreIndependent) {
  SqliteTable a(":memory:"), b(":memory:");
  a.EnsureCreated();
  b.EnsureCreated();
  ASSERT_TRUE(a.PutItem(MakeItem("P", "S"), std::nullopt).applied());
  EXPECT_EQ(b.GetItem({"P", "S"}), std::nullopt);
}

}  // namespace
}  // namespace sqlite_table_test
}  // namespace novacat::store::testing
