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
//
// It also refuses, on every backend, what DynamoDB would refuse, so that an
// item the embedded store accepts is one DynamoDB accepts too: a string
// that is not valid UTF-8 (anywhere in the item), a number that is not
// finite or whose magnitude DynamoDB cannot store (non-zero and below
// 1e-130 or from 1e126 up), and an index key attribute (GSInPK, GSInSK)
// that is present but not a non-empty string.
void ValidateItem(const Item& item, std::string_view operation);
// Throws runtime::TerminalError when `update` sets or removes PK or SK, or
// names an attribute both in set and remove; SET values are checked as
// ValidateItem checks attributes.
void ValidateUpdate(const Update& update, std::string_view operation);
// Throws runtime::TerminalError unless PK and SK are non-empty valid UTF-8
// (GetItem, UpdateItem and DeleteItem).
void ValidateKey(const Key& key, std::string_view operation);
// Throws runtime::TerminalError when `request` has an empty partition key,
// both sort key conditions, an empty sort_key_equals, a negative limit, a
// string that is not valid UTF-8, or an exclusive_start_key without the
// string attributes of the index's key and the table's key.
void ValidateQuery(const QueryRequest& request, std::string_view operation);
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
