// The single-table interface (seed: dynamodb_access_patterns.md): the table
// `NovaCat` with key (PK, SK) and three global secondary indexes, reduced to
// the operations the access patterns use. Backends: MemoryTable (reference
// semantics, tests), SqliteTable (the embedded default) and DynamoDbTable
// (DynamoDB's HTTP JSON API; tested against dynalite).
//
// Contract shared by every backend (the `store_table_*` test suite runs the
// same cases on each):
//   - An item is a JSON object. It always has string attributes PK and SK.
//     Attribute values are strings, numbers (int64 or double), booleans,
//     null, arrays and objects; DynamoDbTable maps them to S, N, BOOL, NULL,
//     L and M. Attribute names starting with ':' or '#' are refused, and so
//     is what DynamoDB cannot store (ValidateItem in memory_table.h): every
//     backend accepts the same items. DynamoDB keeps no integer/double
//     distinction, so on DynamoDbTable an integral double (2.0) comes back
//     as the integer 2; non-integral doubles round-trip exactly everywhere.
//   - An item belongs to index GSIn exactly when it has both string
//     attributes GSInPK and GSInSK (DynamoDB's sparse indexes).
//   - Conditions are evaluated against the item as it is at the moment of
//     the write, atomically with the write: of several writers racing on one
//     item under a condition that only one can meet, exactly one succeeds.
//   - A write whose condition fails writes nothing and returns
//     WriteStatus::kConditionFailed. It is an answer, not an error.
//   - Transient failures (throttling, timeouts, 5xx, a reset connection, a
//     busy database) throw runtime::RetryableError; anything else that
//     stops an operation (a malformed item, a missing table, an access
//     denial) throws runtime::TerminalError. Messages name the operation and
//     the key.
#pragma once

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace novacat::store {

using Item = nlohmann::json;  // a JSON object

// The table name and the indexes, as the seed names them.
inline constexpr const char* kTableName = "NovaCat";
enum class Index {
  kTable,  // PK / SK
  kGsi1,   // DatasetEligibilityIndex: GSI1PK / GSI1SK
  kGsi2,   // NameResolutionIndex: GSI2PK / GSI2SK
  kGsi3,   // S3ObjectIndex: GSI3PK / GSI3SK
};
// "NovaCat", "DatasetEligibilityIndex", "NameResolutionIndex",
// "S3ObjectIndex".
const char* IndexName(Index index);
// The partition and sort key attributes of an index: ("PK","SK"),
// ("GSI1PK","GSI1SK"), ...
const char* PartitionKeyAttribute(Index index);
const char* SortKeyAttribute(Index index);

struct Key {
  std::string pk;
  std::string sk;
  bool operator==(const Key&) const = default;
};

// A condition on the item a write targets. A small tree rather than a
// DynamoDB expression string, so that every backend evaluates the same
// thing: DynamoDbTable renders it to a ConditionExpression with placeholder
// names and values; MemoryTable and SqliteTable evaluate it with
// EvaluateCondition() inside their write transaction.
struct Condition {
  enum class Kind {
    kAttributeExists,     // attribute_exists(name)
    kAttributeNotExists,  // attribute_not_exists(name)
    kEquals,              // name = value    (false when absent)
    kNotEquals,           // name <> value   (true when absent, as DynamoDB)
    kLessThan,            // name < value    (false when absent or the
    kLessOrEqual,         // name <= value    types differ: numbers compare
    kGreaterThan,         // name > value     numerically, strings by bytes)
    kGreaterOrEqual,      // name >= value
    kIn,                  // name IN (values...)  (false when absent)
    kAnd,                 // all of children
    kOr,                  // any of children
    kNot,                 // !children[0]
  };
  Kind kind = Kind::kAttributeExists;
  std::string name;                    // top-level attribute name (leaves)
  nlohmann::json value;                // comparisons
  std::vector<nlohmann::json> values;  // kIn
  std::vector<Condition> children;     // kAnd / kOr / kNot

  static Condition Exists(std::string name);
  static Condition NotExists(std::string name);
  static Condition Eq(std::string name, nlohmann::json value);
  static Condition Ne(std::string name, nlohmann::json value);
  static Condition Lt(std::string name, nlohmann::json value);
  static Condition Le(std::string name, nlohmann::json value);
  static Condition Gt(std::string name, nlohmann::json value);
  static Condition Ge(std::string name, nlohmann::json value);
  static Condition In(std::string name, std::vector<nlohmann::json> values);
  static Condition And(std::vector<Condition> children);
  static Condition Or(std::vector<Condition> children);
  static Condition Not(Condition child);
};

// True when `condition` holds for `item` (nullopt: no such item, so every
// attribute is absent).
bool EvaluateCondition(const Condition& condition,
                       const std::optional<Item>& item);

// UpdateItem's actions: SET name = value for each of `set`, then REMOVE
// each of `remove`. Keys (PK, SK) may not be set or removed. Updating an
// absent item creates it with its key and the set attributes (DynamoDB),
// unless the condition refuses.
struct Update {
  nlohmann::json set = nlohmann::json::object();  // name -> value
  std::vector<std::string> remove;
};

enum class WriteStatus { kApplied, kConditionFailed };

struct WriteResult {
  WriteStatus status = WriteStatus::kApplied;
  // UpdateItem: the item after the update (ALL_NEW) when applied.
  // PutItem / DeleteItem: unset.
  std::optional<Item> item;
  bool applied() const { return status == WriteStatus::kApplied; }
};

// Query by partition key equality on the table or one index, with an
// optional sort key condition, in ascending sort key order. Ties on an
// index key are broken by the table key on the local backends; DynamoDB
// leaves their order unspecified (dynalite: by a hash of the table key), but
// its pages are exact there too: each item comes once.
struct QueryRequest {
  Index index = Index::kTable;
  std::string partition_key;
  // At most one of the two.
  std::optional<std::string> sort_key_prefix;  // begins_with(SK, prefix)
  std::optional<std::string> sort_key_equals;  // SK = value
  // Page size; 0 means no limit (the backend may still page: DynamoDB stops
  // at 1 MB, and callers that want everything use QueryAll).
  int limit = 0;
  // Continue after this key (the previous page's last_evaluated_key).
  std::optional<Item> exclusive_start_key;
};

struct QueryPage {
  std::vector<Item> items;
  // Set when there may be more items: pass it as exclusive_start_key. It
  // holds PK and SK and, on an index, that index's key attributes.
  std::optional<Item> last_evaluated_key;
};

class Table {
 public:
  virtual ~Table() = default;

  // Creates the table and its three indexes if they do not exist (on
  // DynamoDB: waits until ACTIVE). Idempotent.
  virtual void EnsureCreated() = 0;

  // Strongly consistent read of one item.
  virtual std::optional<Item> GetItem(const Key& key) = 0;
  // Replaces the whole item (which must carry PK and SK) if the condition
  // holds on the current item.
  virtual WriteResult PutItem(const Item& item,
                              const std::optional<Condition>& condition) = 0;
  virtual WriteResult UpdateItem(const Key& key, const Update& update,
                                 const std::optional<Condition>& condition) = 0;
  virtual WriteResult DeleteItem(const Key& key,
                                 const std::optional<Condition>& condition) = 0;
  // One page. Index queries may lag writes on DynamoDB (eventually
  // consistent); the local backends are immediate.
  virtual QueryPage Query(const QueryRequest& request) = 0;

  // Every page of `request` concatenated.
  std::vector<Item> QueryAll(QueryRequest request);
};

}  // namespace novacat::store
