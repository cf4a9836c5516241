// MemoryTable: the reference implementation of store::Table, a sorted map
// guarded by one mutex. Tests use it as the model the real backends must
// match; nothing is persisted.
#pragma once

#include <map>
#include <mutex>

#include "novacat/store/table.h"

namespace novacat::store {

class MemoryTable : public Table {
 public:
  void EnsureCreated() override {}
  std::optional<Item> GetItem(const Key& key) override;
  WriteResult PutItem(const Item& item,
                      const std::optional<Condition>& condition) override;
  WriteResult UpdateItem(const Key& key, const Update& update,
                         const std::optional<Condition>& condition) override;
  WriteResult DeleteItem(const Key& key,
                         const std::optional<Condition>& condition) override;
  QueryPage Query(const QueryRequest& request) override;

  // Every item in (PK, SK) order: what tests compare.
  std::vector<Item> Scan() const;

 private:
  mutable std::mutex mutex_;
  std::map<std::pair<std::string, std::string>, Item> items_;
};

// Helpers every backend shares, so that they agree on validation and on the
// order of query results.

// Throws runtime::TerminalError unless `item` is an object with string PK
// and SK and no attribute names starting with ':' or '#'. `operation` names
// the call in the message ("PutItem").
void ValidateItem(const Item& item, std::string_view operation);
// Throws runtime::TerminalError when `update` sets or removes PK or SK, or
// names an attribute both in set and remove.
void ValidateUpdate(const Update& update, std::string_view operation);
// Applies `update` to `item` (nullopt: a new item with `key`).
Item ApplyUpdate(const Key& key, const std::optional<Item>& item,
                 const Update& update);
// The key of `item` on `index` (index PK, index SK, then the table key), for
// sorting query results and building last_evaluated_key; nullopt when the
// item is not in that index.
struct IndexKey {
  std::string pk, sk, table_pk, table_sk;
  auto operator<=>(const IndexKey&) const = default;
};
std::optional<IndexKey> IndexKeyOf(const Item& item, Index index);
// Does `item` match the request's partition and sort key conditions?
bool MatchesQuery(const Item& item, const QueryRequest& request);
// The exclusive_start_key / last_evaluated_key item for an item on `index`.
Item LastEvaluatedKeyOf(const Item& item, Index index);

}  // namespace novacat::store
