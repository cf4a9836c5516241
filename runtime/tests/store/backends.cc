#include "backends.h"

#include <unistd.h>

#include <atomic>
#include <filesystem>

#include "dynalite.h"
#include "novacat/store/dynamodb_table.h"
#include "novacat/store/memory_table.h"
#include "novacat/store/sqlite_table.h"

namespace novacat::store::testing {

namespace {

// An SqliteTable on a fresh temporary file, removed (with its WAL and
// shared-memory files) when the table goes. Clients made by `connect` must
// go first.
class TempFileSqliteTable : public SqliteTable {
 public:
  explicit TempFileSqliteTable(std::string path)
      : SqliteTable(Fresh(path)), owned_(std::move(path)) {}
  ~TempFileSqliteTable() override {
    for (const char* suffix : {"", "-wal", "-shm", "-journal"})
      std::filesystem::remove(owned_ + suffix);
  }

 private:
  static std::string Fresh(const std::string& path) {
    for (const char* suffix : {"", "-wal", "-shm", "-journal"})
      std::filesystem::remove(path + suffix);
    return path;
  }
  std::string owned_;
};

std::string TempDatabasePath() {
  static std::atomic<int> counter{0};
  return (std::filesystem::temp_directory_path() /
          ("novacat_store_" + std::to_string(getpid()) + "_" +
           std::to_string(++counter) + ".db"))
      .string();
}

}  // namespace

std::vector<Backend> TestBackends() {
  std::vector<Backend> backends;
  backends.push_back({"memory", [] { return std::make_unique<MemoryTable>(); },
                      true, nullptr});
  backends.push_back({"sqlite_memory",
                      []() -> std::unique_ptr<Table> {
                        auto table = std::make_unique<SqliteTable>(":memory:");
                        table->EnsureCreated();
                        return table;
                      },
                      true, nullptr});
  backends.push_back({"sqlite_file",
                      []() -> std::unique_ptr<Table> {
                        auto table = std::make_unique<TempFileSqliteTable>(
                            TempDatabasePath());
                        table->EnsureCreated();
                        return table;
                      },
                      true,
                      [](Table& table) -> std::unique_ptr<Table> {
                        // Another connection to the same file: the
                        // multi-process case.
                        return std::make_unique<SqliteTable>(
                            dynamic_cast<SqliteTable&>(table).path());
                      }});
  backends.push_back({"dynamodb",
                      []() -> std::unique_ptr<Table> {
                        auto table = std::make_unique<DynamoDbTable>(
                            DynaliteOptions(UniqueTableName()));
                        table->EnsureCreated();
                        return table;
                      },
                      false,
                      [](Table& table) -> std::unique_ptr<Table> {
                        return std::make_unique<DynamoDbTable>(
                            dynamic_cast<DynamoDbTable&>(table).options());
                      }});
  return backends;
}

}  // namespace novacat::store::testing
