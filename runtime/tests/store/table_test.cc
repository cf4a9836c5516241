// The Table contract, run on every backend (TestBackends()): MemoryTable is
// the reference; SqliteTable and DynamoDbTable (on dynalite) must give the
// same answers.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "store_test_util.h"

namespace novacat::store::testing {
namespace table_test {
namespace {

using runtime::TerminalError;

class TableTest : public BackendTest {
 protected:
  std::vector<std::string> SortKeys(const std::vector<Item>& items,
                                    Index index = Index::kTable) {
    std::vector<std::string> keys;
    for (const Item& item : items)
      keys.push_back(item.at(SortKeyAttribute(index)).get<std::string>());
    return keys;
  }
  void PutAll(const std::string& pk, const std::vector<std::string>& sks) {
    for (const std::string& sk : sks)
      ASSERT_TRUE(table().PutItem(MakeItem(pk, sk), std::nullopt).applied());
  }
  std::vector<std::string> Prefix(const std::string& pk,
                                  const std::string& prefix) {
    QueryRequest request;
    request.partition_key = pk;
    request.sort_key_prefix = prefix;
    return SortKeys(table().QueryAll(request));
  }
};

TEST_P(TableTest, RoundTripsEveryValueType) {
  Item item = MakeItem(
      "NOVA#1", "META",
      {{"int", 42},
       {"negative", -7},
       {"int64_max", std::numeric_limits<int64_t>::max()},
       {"int64_min", std::numeric_limits<int64_t>::min()},
       {"zero", 0},
       {"tenth", 0.1},
       {"small", -2.5e-7},
       {"tiny", 1e-130},
       {"large", 1.2345678901234567e125},
       {"third", 1.0 / 3},
       {"unicode",
        "Nova Cas 1995 \xc3\xbf \xe4\xb8\xad\xe6\x96\x87 \xf0\x9f\x8c\x9f"},
       {"escapes", "quote \" backslash \\ newline \n tab \t nul \x01"},
       {"empty", ""},
       {"yes", true},
       {"no", false},
       {"nothing", nullptr},
       {"list", {1, "two", 3.5, nullptr, false, {{"k", "v"}}}},
       {"map", {{"nested", {{"deeper", {1, 2}}}}, {"e", ""}}},
       {"empty_list", Item::array()},
       {"empty_map", Item::object()}});
  ASSERT_TRUE(table().PutItem(item, std::nullopt).applied());
  std::optional<Item> got = table().GetItem({"NOVA#1", "META"});
  ASSERT_TRUE(got);
  EXPECT_EQ(*got, item);
  // Equality compares numbers by value; the kinds must survive too.
  for (const char* name : {"int", "negative", "int64_max", "int64_min", "zero"})
    EXPECT_TRUE(got->at(name).is_number_integer()) << name;
  for (const char* name : {"tenth", "small", "tiny", "large", "third"}) {
    EXPECT_TRUE(got->at(name).is_number_float()) << name;
    EXPECT_EQ(got->at(name).get<double>(), item[name].get<double>()) << name;
  }
  EXPECT_EQ(got->at("int64_max").get<int64_t>(),
            std::numeric_limits<int64_t>::max());
  EXPECT_EQ(got->at("int64_min").get<int64_t>(),
            std::numeric_limits<int64_t>::min());
}

TEST_P(TableTest, GetOfAnAbsentItemIsNullopt) {
  EXPECT_EQ(table().GetItem({"NOVA#1", "META"}), std::nullopt);
}

TEST_P(TableTest, PutReplacesTheWholeItem) {
  ASSERT_TRUE(
      table()
          .PutItem(MakeItem("P", "S", {{"a", 1}, {"b", 2}}), std::nullopt)
          .applied());
  ASSERT_TRUE(
      table().PutItem(MakeItem("P", "S", {{"c", 3}}), std::nullopt).applied());
  EXPECT_EQ(table().GetItem({"P", "S"}), MakeItem("P", "S", {{"c", 3}}));
}

TEST_P(TableTest, EveryConditionKind) {
  const Item item = MakeItem("P", "S",
                             {{"status", "READY"},
                              {"count", 5},
                              {"name", "b"},
                              {"flag", true},
                              {"ratio", 0.5}});
  ASSERT_TRUE(table().PutItem(item, std::nullopt).applied());
  using C = Condition;
  const std::vector<std::pair<Condition, bool>> cases = {
      {C::Exists("status"), true},
      {C::Exists("missing"), false},
      {C::NotExists("missing"), true},
      {C::NotExists("status"), false},
      {C::Eq("status", "READY"), true},
      {C::Eq("status", "DONE"), false},
      {C::Eq("missing", "x"), false},
      {C::Eq("count", 5), true},
      {C::Eq("count", "5"), false},  // type mismatch
      {C::Eq("flag", true), true},
      {C::Eq("flag", false), false},
      {C::Eq("ratio", 0.5), true},
      {C::Ne("status", "DONE"), true},
      {C::Ne("status", "READY"), false},
      {C::Ne("missing", "x"), true},  // absent: not equal
      {C::Ne("count", "5"), true},    // type mismatch: not equal
      {C::Lt("count", 6), true},
      {C::Lt("count", 5), false},
      {C::Lt("count", 5.5), true},
      {C::Le("count", 5), true},
      {C::Le("count", 4), false},
      {C::Gt("count", 4), true},
      {C::Gt("count", 5), false},
      {C::Ge("count", 5), true},
      {C::Ge("count", 6), false},
      {C::Gt("ratio", 0.25), true},
      {C::Lt("name", "c"), true},
      {C::Lt("name", "b"), false},
      {C::Gt("name", "a"), true},
      {C::Ge("name", "b"), true},
      {C::Lt("count", "9"), false},  // type mismatch
      {C::Gt("name", 1), false},     // type mismatch
      {C::Lt("missing", 1), false},  // absent
      {C::Ge("missing", "a"), false},
      {C::In("status", {"DONE", "READY"}), true},
      {C::In("status", {"DONE"}), false},
      {C::In("missing", {"x"}), false},
      {C::In("count", {4, 5}), true},
      {C::In("count", {"5"}), false},
      {C::In("status", {}), false},
      {C::And({C::Exists("status"), C::Eq("count", 5)}), true},
      {C::And({C::Exists("status"), C::Eq("count", 6)}), false},
      {C::And({}), true},
      {C::Or({C::Eq("count", 6), C::Eq("status", "READY")}), true},
      {C::Or({C::Eq("count", 6), C::NotExists("status")}), false},
      {C::Or({}), false},
      {C::Not(C::Eq("count", 6)), true},
      {C::Not(C::Exists("status")), false},
      {C::And({C::Or({C::Eq("status", "X"), C::Lt("count", 9)}),
               C::Not(C::In("name", {"a", "c"}))}),
       true},
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE("case " + std::to_string(i));
    Update update;
    update.set["probe"] = static_cast<int>(i);
    WriteResult result = table().UpdateItem({"P", "S"}, update, cases[i].first);
    EXPECT_EQ(result.applied(), cases[i].second);
    EXPECT_EQ(result.item.has_value(), cases[i].second);
    EXPECT_EQ(EvaluateCondition(cases[i].first, item), cases[i].second);
  }
}

TEST_P(TableTest, ConditionsOnAnAbsentItem) {
  const Item item = MakeItem("P", "S", {{"v", 1}});
  EXPECT_FALSE(table().PutItem(item, Condition::Exists("PK")).applied());
  EXPECT_FALSE(
      table().PutItem(item, Condition::Eq("status", "READY")).applied());
  EXPECT_EQ(table().GetItem({"P", "S"}), std::nullopt);
  EXPECT_TRUE(table().PutItem(item, Condition::Ne("status", "X")).applied());
  EXPECT_EQ(table().GetItem({"P", "S"}), item);
}

TEST_P(TableTest, AttributeNotExistsCreatesOnce) {
  const Condition once =
      Condition::And({Condition::NotExists("PK"), Condition::NotExists("SK")});
  WriteResult first =
      table().PutItem(MakeItem("NOVA#1", "META", {{"writer", 1}}), once);
  EXPECT_EQ(first.status, WriteStatus::kApplied);
  EXPECT_EQ(first.item, std::nullopt);
  WriteResult second =
      table().PutItem(MakeItem("NOVA#1", "META", {{"writer", 2}}), once);
  EXPECT_EQ(second.status, WriteStatus::kConditionFailed);
  EXPECT_EQ(table().GetItem({"NOVA#1", "META"}),
            MakeItem("NOVA#1", "META", {{"writer", 1}}));
}

TEST_P(TableTest, UpdateCreatesAnAbsentItem) {
  Update update;
  update.set = {{"a", 1}, {"b", "x"}};
  WriteResult result = table().UpdateItem({"P", "S"}, update, std::nullopt);
  EXPECT_TRUE(result.applied());
  EXPECT_EQ(result.item, MakeItem("P", "S", {{"a", 1}, {"b", "x"}}));
  EXPECT_EQ(table().GetItem({"P", "S"}),
            MakeItem("P", "S", {{"a", 1}, {"b", "x"}}));
}

TEST_P(TableTest, UpdateWithoutActionsCreatesTheKeyOnly) {
  WriteResult result = table().UpdateItem({"P", "S"}, Update{}, std::nullopt);
  EXPECT_TRUE(result.applied());
  EXPECT_EQ(result.item, MakeItem("P", "S"));
  EXPECT_EQ(table().GetItem({"P", "S"}), MakeItem("P", "S"));
  Update remove_only;
  remove_only.remove = {"a"};
  result = table().UpdateItem({"P", "T"}, remove_only, std::nullopt);
  EXPECT_EQ(result.item, MakeItem("P", "T"));
  EXPECT_EQ(table().GetItem({"P", "T"}), MakeItem("P", "T"));
}

TEST_P(TableTest, UpdateSetsAndRemovesAndReturnsAllNew) {
  ASSERT_TRUE(table()
                  .PutItem(MakeItem("P", "S", {{"a", 1}, {"b", 2}, {"c", 3}}),
                           std::nullopt)
                  .applied());
  Update update;
  update.set = {{"a", 10}, {"d", {{"nested", {"x", 0.25}}}}};
  update.remove = {"b", "absent"};
  WriteResult result =
      table().UpdateItem({"P", "S"}, update, Condition::Eq("c", 3));
  const Item expected = MakeItem(
      "P", "S", {{"a", 10}, {"c", 3}, {"d", {{"nested", {"x", 0.25}}}}});
  EXPECT_EQ(result.status, WriteStatus::kApplied);
  EXPECT_EQ(result.item, expected);
  EXPECT_EQ(table().GetItem({"P", "S"}), expected);
}

TEST_P(TableTest, AFailedUpdateWritesNothing) {
  const Item item = MakeItem("P", "S", {{"status", "IN_PROGRESS"}});
  ASSERT_TRUE(table().PutItem(item, std::nullopt).applied());
  Update update;
  update.set = {{"status", "DONE"}, {"extra", 1}};
  update.remove = {"status_reason"};
  WriteResult result =
      table().UpdateItem({"P", "S"}, update, Condition::Eq("status", "READY"));
  EXPECT_EQ(result.status, WriteStatus::kConditionFailed);
  EXPECT_EQ(result.item, std::nullopt);
  EXPECT_EQ(table().GetItem({"P", "S"}), item);
  // Nor does a failed conditional update of an absent item create it.
  EXPECT_FALSE(table()
                   .UpdateItem({"P", "T"}, update, Condition::Exists("PK"))
                   .applied());
  EXPECT_EQ(table().GetItem({"P", "T"}), std::nullopt);
}

TEST_P(TableTest, DeleteWithCondition) {
  const Item item = MakeItem("P", "S", {{"status", "READY"}});
  ASSERT_TRUE(table().PutItem(item, std::nullopt).applied());
  EXPECT_EQ(
      table().DeleteItem({"P", "S"}, Condition::Eq("status", "DONE")).status,
      WriteStatus::kConditionFailed);
  EXPECT_EQ(table().GetItem({"P", "S"}), item);
  EXPECT_EQ(
      table().DeleteItem({"P", "S"}, Condition::Eq("status", "READY")).status,
      WriteStatus::kApplied);
  EXPECT_EQ(table().GetItem({"P", "S"}), std::nullopt);
  // Deleting an absent item is applied (unconditionally) or a failed
  // condition (when the condition needs the item).
  EXPECT_TRUE(table().DeleteItem({"P", "S"}, std::nullopt).applied());
  EXPECT_FALSE(
      table().DeleteItem({"P", "S"}, Condition::Exists("PK")).applied());
}

TEST_P(TableTest, QueryByPrefixInByteOrder) {
  PutAll("NOVA#1", {"A#2", "A#10", "A#1", "AB#1", "B#1", "a#1", "A"});
  PutAll("NOVA#2", {"A#3"});
  EXPECT_EQ(Prefix("NOVA#1", "A#"),
            (std::vector<std::string>{"A#1", "A#10", "A#2"}));
  EXPECT_EQ(Prefix("NOVA#1", "A"),
            (std::vector<std::string>{"A", "A#1", "A#10", "A#2", "AB#1"}));
  EXPECT_EQ(Prefix("NOVA#1", ""),
            (std::vector<std::string>{"A", "A#1", "A#10", "A#2", "AB#1", "B#1",
                                      "a#1"}));
  EXPECT_EQ(Prefix("NOVA#1", "C"), std::vector<std::string>{});
  EXPECT_EQ(Prefix("NOVA#3", "A"), std::vector<std::string>{});
}

TEST_P(TableTest, QueryPrefixesWithSpecialAndNonAsciiBytes) {
  // '%' and '_' are LIKE's wildcards, '*' '?' '[' GLOB's; none is special
  // here. Non-ASCII sorts by UTF-8 bytes: U+00FF (c3 bf) < U+4E2D (e4 b8 ad)
  // < U+1F31F (f0 9f 8c 9f).
  PutAll("P", {"x%1", "x%", "xa%", "x_1", "xa_", "x#1", "x*1", "x?", "x[1]",
               "xb", "\xc3\xbf",
               "\xc3\xbf"
               "1",
               "\xc3\xbe", "\xe4\xb8\xad", "\xe4\xb8\xad\xe6\x96\x87",
               "\xf0\x9f\x8c\x9f",
               "\xf0\x9f\x8c\x9f"
               "a",
               "\xf0\x9f\x8c\xa0"});
  EXPECT_EQ(Prefix("P", "x%"), (std::vector<std::string>{"x%", "x%1"}));
  EXPECT_EQ(Prefix("P", "x_"), (std::vector<std::string>{"x_1"}));
  EXPECT_EQ(Prefix("P", "x#"), (std::vector<std::string>{"x#1"}));
  EXPECT_EQ(Prefix("P", "x*"), (std::vector<std::string>{"x*1"}));
  EXPECT_EQ(Prefix("P", "x["), (std::vector<std::string>{"x[1]"}));
  EXPECT_EQ(Prefix("P", "x?"), (std::vector<std::string>{"x?"}));
  EXPECT_EQ(Prefix("P", "\xc3\xbf"), (std::vector<std::string>{"\xc3\xbf",
                                                               "\xc3\xbf"
                                                               "1"}));
  EXPECT_EQ(
      Prefix("P", "\xe4\xb8\xad"),
      (std::vector<std::string>{"\xe4\xb8\xad", "\xe4\xb8\xad\xe6\x96\x87"}));
  EXPECT_EQ(Prefix("P", "\xf0\x9f\x8c\x9f"),
            (std::vector<std::string>{"\xf0\x9f\x8c\x9f",
                                      "\xf0\x9f\x8c\x9f"
                                      "a"}));
  EXPECT_EQ(Prefix("P", "x"),
            (std::vector<std::string>{"x#1", "x%", "x%1", "x*1", "x?", "x[1]",
                                      "x_1", "xa%", "xa_", "xb"}));
}

TEST_P(TableTest, QueryBySortKeyEquals) {
  PutAll("P", {"A#1", "A#10", "A#2"});
  QueryRequest request;
  request.partition_key = "P";
  request.sort_key_equals = "A#1";
  EXPECT_EQ(SortKeys(table().Query(request).items),
            std::vector<std::string>{"A#1"});
  request.sort_key_equals = "A#";
  EXPECT_EQ(table().Query(request).items, std::vector<Item>{});
}

// The seed's three indexes, sparse: an item is in GSIn only with both
// GSInPK and GSInSK.
TEST_P(TableTest, QueriesEachSparseIndex) {
  auto put = [&](Item item) {
    ASSERT_TRUE(table().PutItem(item, std::nullopt).applied());
  };
  put(MakeItem("NOVA#1", "DATASET#d2",
               {{"GSI1PK", "NOVA#1"}, {"GSI1SK", "ELIG#DOWNLOAD#d2"}}));
  put(MakeItem("NOVA#1", "DATASET#d1",
               {{"GSI1PK", "NOVA#1"}, {"GSI1SK", "ELIG#DOWNLOAD#d1"}}));
  put(MakeItem("NOVA#1", "DATASET#d3",
               {{"GSI1PK", "NOVA#1"}, {"GSI1SK", "ELIG#NONE#d3"}}));
  put(MakeItem("NOVA#1", "DATASET#d4", {{"GSI1PK", "NOVA#1"}}));  // no SK
  put(MakeItem("NOVA#1", "DATASET#d5"));                          // neither
  put(MakeItem("NOVA#2", "DATASET#d6",
               {{"GSI1PK", "NOVA#2"}, {"GSI1SK", "ELIG#DOWNLOAD#d6"}}));
  put(MakeItem("NAME#v1500 aql", "NOVA#2",
               {{"GSI2PK", "NAME#v1500 aql"}, {"GSI2SK", "NOVA#2"}}));
  put(MakeItem("NAME#v1500 aql#alias", "NOVA#1",
               {{"GSI2PK", "NAME#v1500 aql"}, {"GSI2SK", "NOVA#1"}}));
  put(MakeItem("NOVA#1", "FILE#f1",
               {{"GSI3PK", "S3#bucket"},
                {"GSI3SK", "raw/f1.fits"},
                {"dataset_id", "d1"}}));
  put(MakeItem("NOVA#1", "FILE#f2",
               {{"GSI3PK", "S3#bucket"}, {"GSI3SK", "raw/f10.fits"}}));

  QueryRequest eligible;
  eligible.index = Index::kGsi1;
  eligible.partition_key = "NOVA#1";
  eligible.sort_key_prefix = "ELIG#DOWNLOAD#";
  std::vector<Item> items = table().QueryAll(eligible);
  EXPECT_EQ(SortKeys(items, Index::kGsi1),
            (std::vector<std::string>{"ELIG#DOWNLOAD#d1", "ELIG#DOWNLOAD#d2"}));
  ASSERT_EQ(items.size(), 2u);
  EXPECT_EQ(items[0],
            MakeItem("NOVA#1", "DATASET#d1",
                     {{"GSI1PK", "NOVA#1"}, {"GSI1SK", "ELIG#DOWNLOAD#d1"}}));
  QueryRequest all = eligible;
  all.sort_key_prefix.reset();
  EXPECT_EQ(SortKeys(table().QueryAll(all), Index::kGsi1),
            (std::vector<std::string>{"ELIG#DOWNLOAD#d1", "ELIG#DOWNLOAD#d2",
                                      "ELIG#NONE#d3"}));

  QueryRequest names;
  names.index = Index::kGsi2;
  names.partition_key = "NAME#v1500 aql";
  EXPECT_EQ(SortKeys(table().QueryAll(names), Index::kGsi2),
            (std::vector<std::string>{"NOVA#1", "NOVA#2"}));

  QueryRequest object;
  object.index = Index::kGsi3;
  object.partition_key = "S3#bucket";
  object.sort_key_equals = "raw/f1.fits";
  EXPECT_EQ(table().QueryAll(object),
            std::vector<Item>{MakeItem("NOVA#1", "FILE#f1",
                                       {{"GSI3PK", "S3#bucket"},
                                        {"GSI3SK", "raw/f1.fits"},
                                        {"dataset_id", "d1"}})});

  // REMOVE of GSI1SK moves d1 out of the index; SET moves d4 in.
  Update out;
  out.remove = {"GSI1SK"};
  ASSERT_TRUE(table()
                  .UpdateItem({"NOVA#1", "DATASET#d1"}, out, std::nullopt)
                  .applied());
  Update in;
  in.set = {{"GSI1SK", "ELIG#DOWNLOAD#d4"}};
  ASSERT_TRUE(
      table().UpdateItem({"NOVA#1", "DATASET#d4"}, in, std::nullopt).applied());
  EXPECT_EQ(SortKeys(table().QueryAll(eligible), Index::kGsi1),
            (std::vector<std::string>{"ELIG#DOWNLOAD#d2", "ELIG#DOWNLOAD#d4"}));
  // Deleting an item removes it from its indexes.
  ASSERT_TRUE(
      table().DeleteItem({"NOVA#1", "DATASET#d2"}, std::nullopt).applied());
  EXPECT_EQ(SortKeys(table().QueryAll(eligible), Index::kGsi1),
            (std::vector<std::string>{"ELIG#DOWNLOAD#d4"}));
}

// Items with the same index key: every page is exact and each item comes
// once. The local backends order them by table key; DynamoDB does not say
// (dynalite orders them by a hash of the table key), so there only the set
// is compared.
TEST_P(TableTest, IndexKeyTiesPageExactly) {
  for (const char* pk : {"NAME#d", "NAME#b", "NAME#a", "NAME#c"})
    ASSERT_TRUE(
        table()
            .PutItem(MakeItem(pk, "NOVA#1",
                              {{"GSI2PK", "NAME#x"}, {"GSI2SK", "NOVA#1"}}),
                     std::nullopt)
            .applied());
  QueryRequest request;
  request.index = Index::kGsi2;
  request.partition_key = "NAME#x";
  request.limit = 1;
  std::vector<std::string> pks;
  for (int page = 0; page < 10; ++page) {
    QueryPage result = table().Query(request);
    for (const Item& item : result.items) pks.push_back(item["PK"]);
    if (!result.last_evaluated_key) break;
    ASSERT_EQ(result.items.size(), 1u);
    EXPECT_EQ(*result.last_evaluated_key, (Item{{"PK", result.items[0]["PK"]},
                                                {"SK", "NOVA#1"},
                                                {"GSI2PK", "NAME#x"},
                                                {"GSI2SK", "NOVA#1"}}));
    request.exclusive_start_key = result.last_evaluated_key;
  }
  std::vector<std::string> sorted = pks;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(sorted,
            (std::vector<std::string>{"NAME#a", "NAME#b", "NAME#c", "NAME#d"}));
  if (GetParam().name != "dynamodb") {
    EXPECT_EQ(pks, sorted);
  }
}

TEST_P(TableTest, PagesOfOneTwoAndThree) {
  PutAll("P", {"S#4", "S#1", "S#7", "S#3", "S#5", "S#2", "S#6"});
  PutAll("Q", {"S#0"});
  const std::map<int, std::vector<std::vector<std::string>>> expected = {
      {1, {{"S#1"}, {"S#2"}, {"S#3"}, {"S#4"}, {"S#5"}, {"S#6"}, {"S#7"}, {}}},
      {2, {{"S#1", "S#2"}, {"S#3", "S#4"}, {"S#5", "S#6"}, {"S#7"}}},
      {3, {{"S#1", "S#2", "S#3"}, {"S#4", "S#5", "S#6"}, {"S#7"}}},
      {7, {{"S#1", "S#2", "S#3", "S#4", "S#5", "S#6", "S#7"}, {}}},
      {8, {{"S#1", "S#2", "S#3", "S#4", "S#5", "S#6", "S#7"}}},
  };
  for (const auto& [limit, pages] : expected) {
    SCOPED_TRACE("limit " + std::to_string(limit));
    QueryRequest request;
    request.partition_key = "P";
    request.sort_key_prefix = "S#";
    request.limit = limit;
    std::vector<std::vector<std::string>> got;
    for (int i = 0; i < 20; ++i) {
      QueryPage page = table().Query(request);
      got.push_back(SortKeys(page.items));
      // A full page carries its last key, even the one that ends the
      // partition; a short page ends the query.
      if (page.items.size() == static_cast<size_t>(limit)) {
        EXPECT_EQ(page.last_evaluated_key,
                  (Item{{"PK", "P"}, {"SK", got.back().back()}}));
      } else {
        EXPECT_EQ(page.last_evaluated_key, std::nullopt);
      }
      if (!page.last_evaluated_key) break;
      request.exclusive_start_key = page.last_evaluated_key;
    }
    EXPECT_EQ(got, pages);
    request.exclusive_start_key.reset();
    EXPECT_EQ(SortKeys(table().QueryAll(request)),
              (std::vector<std::string>{"S#1", "S#2", "S#3", "S#4", "S#5",
                                        "S#6", "S#7"}));
  }
}

TEST_P(TableTest, PagesOnAnIndexCarryBothKeys) {
  for (int i = 1; i <= 5; ++i)
    ASSERT_TRUE(table()
                    .PutItem(MakeItem("NOVA#1", "DATASET#" + std::to_string(i),
                                      {{"GSI1PK", "NOVA#1"},
                                       {"GSI1SK", "ELIG#DOWNLOAD#" +
                                                      std::to_string(6 - i)}}),
                             std::nullopt)
                    .applied());
  QueryRequest request;
  request.index = Index::kGsi1;
  request.partition_key = "NOVA#1";
  request.sort_key_prefix = "ELIG#";
  request.limit = 2;
  QueryPage first = table().Query(request);
  EXPECT_EQ(SortKeys(first.items, Index::kGsi1),
            (std::vector<std::string>{"ELIG#DOWNLOAD#1", "ELIG#DOWNLOAD#2"}));
  EXPECT_EQ(first.last_evaluated_key, (Item{{"PK", "NOVA#1"},
                                            {"SK", "DATASET#4"},
                                            {"GSI1PK", "NOVA#1"},
                                            {"GSI1SK", "ELIG#DOWNLOAD#2"}}));
  request.exclusive_start_key = first.last_evaluated_key;
  QueryPage second = table().Query(request);
  EXPECT_EQ(SortKeys(second.items, Index::kGsi1),
            (std::vector<std::string>{"ELIG#DOWNLOAD#3", "ELIG#DOWNLOAD#4"}));
  request.exclusive_start_key = second.last_evaluated_key;
  QueryPage third = table().Query(request);
  EXPECT_EQ(SortKeys(third.items, Index::kGsi1),
            (std::vector<std::string>{"ELIG#DOWNLOAD#5"}));
  EXPECT_EQ(third.last_evaluated_key, std::nullopt);
}

TEST_P(TableTest, InvalidRequestsAreTerminalWithExactMessages) {
  ExpectError<TerminalError>(
      [&] { table().PutItem(Item::array(), std::nullopt); },
      "PutItem: the item is not an object");
  ExpectError<TerminalError>(
      [&] {
        table().PutItem(Item{{"PK", "P"}}, std::nullopt);
      },
      "PutItem: the item has no string SK");
  ExpectError<TerminalError>(
      [&] {
        table().PutItem(Item{{"PK", "P"}, {"SK", 1}}, std::nullopt);
      },
      "PutItem: the item has no string SK");
  ExpectError<TerminalError>(
      [&] {
        table().PutItem(MakeItem("P", "S", {{":v", 1}}), std::nullopt);
      },
      "PutItem P / S: invalid attribute name ':v'");
  ExpectError<TerminalError>(
      [&] {
        table().PutItem(MakeItem("P", "S", {{"#n", 1}}), std::nullopt);
      },
      "PutItem P / S: invalid attribute name '#n'");
  ExpectError<TerminalError>(
      [&] {
        table().PutItem(MakeItem("P", "S", {{"GSI1PK", 7}, {"GSI1SK", "x"}}),
                        std::nullopt);
      },
      "PutItem P / S: index key attribute GSI1PK must be a non-empty string");
  ExpectError<TerminalError>(
      [&] {
        table().PutItem(MakeItem("P", "S", {{"GSI3SK", ""}}), std::nullopt);
      },
      "PutItem P / S: index key attribute GSI3SK must be a non-empty string");
  ExpectError<TerminalError>(
      [&] {
        table().PutItem(MakeItem("P", "S", {{"tiny", 1e-300}}), std::nullopt);
      },
      "PutItem P / S: attribute 'tiny' holds a number DynamoDB cannot store "
      "(1e-300)");
  ExpectError<TerminalError>(
      [&] {
        table().PutItem(
            MakeItem("P", "S",
                     {{"m", {{"x", std::numeric_limits<double>::infinity()}}}}),
            std::nullopt);
      },
      "PutItem P / S: attribute 'm' holds a number DynamoDB cannot store "
      "(inf)");
  ExpectError<TerminalError>(
      [&] {
        table().PutItem(MakeItem("P", "S", {{"s", {"ok", "bad \xff"}}}),
                        std::nullopt);
      },
      "PutItem P / S: attribute 's' holds a string that is not valid UTF-8");
  ExpectError<TerminalError>(
      [&] { table().PutItem(MakeItem("P\xc0\xaf", "S"), std::nullopt); },
      "PutItem: the item's PK is not valid UTF-8");

  Update set_key;
  set_key.set = {{"PK", "other"}};
  ExpectError<TerminalError>(
      [&] {
        table().UpdateItem({"P", "S"}, set_key, std::nullopt);
      },
      "UpdateItem: cannot SET the key attribute PK");
  Update remove_key;
  remove_key.remove = {"SK"};
  ExpectError<TerminalError>(
      [&] {
        table().UpdateItem({"P", "S"}, remove_key, std::nullopt);
      },
      "UpdateItem: cannot REMOVE the key attribute SK");
  Update both;
  both.set = {{"a", 1}};
  both.remove = {"a"};
  ExpectError<TerminalError>(
      [&] {
        table().UpdateItem({"P", "S"}, both, std::nullopt);
      },
      "UpdateItem: attribute a is both SET and REMOVEd");
  Update bad_index;
  bad_index.set = {{"GSI2SK", false}};
  ExpectError<TerminalError>(
      [&] {
        table().UpdateItem({"P", "S"}, bad_index, std::nullopt);
      },
      "UpdateItem: index key attribute GSI2SK must be a non-empty string");
  ExpectError<TerminalError>(
      [&] {
        table().UpdateItem({"P", ""}, Update{}, std::nullopt);
      },
      "UpdateItem: the key has an empty SK");
  ExpectError<TerminalError>(
      [&] {
        table().GetItem({"", "S"});
      },
      "GetItem: the key has an empty PK");
  ExpectError<TerminalError>(
      [&] {
        table().DeleteItem({"P", "S\xff"}, std::nullopt);
      },
      "DeleteItem: the key's SK is not valid UTF-8");

  QueryRequest request;
  ExpectError<TerminalError>([&] { table().Query(request); },
                             "Query NovaCat: the partition key is empty");
  request.partition_key = "P";
  request.sort_key_prefix = "a";
  request.sort_key_equals = "a";
  ExpectError<TerminalError>(
      [&] { table().Query(request); },
      "Query NovaCat P: sort_key_prefix and sort_key_equals are both set");
  request.sort_key_equals.reset();
  request.sort_key_prefix = "\xff";
  ExpectError<TerminalError>(
      [&] { table().Query(request); },
      "Query NovaCat P: the sort key condition is not valid UTF-8");
  request.sort_key_prefix.reset();
  request.limit = -1;
  ExpectError<TerminalError>([&] { table().Query(request); },
                             "Query NovaCat P: negative limit -1");
  request.limit = 0;
  request.index = Index::kGsi1;
  request.exclusive_start_key = Item{{"PK", "P"}, {"SK", "S"}, {"GSI1PK", "P"}};
  ExpectError<TerminalError>(
      [&] { table().Query(request); },
      "Query DatasetEligibilityIndex P: exclusive_start_key has no string "
      "GSI1SK");
  // Nothing was written by any of it.
  QueryRequest everything;
  everything.partition_key = "P";
  EXPECT_EQ(table().QueryAll(everything), std::vector<Item>{});
}

TEST_P(TableTest, EnsureCreatedIsIdempotent) {
  ASSERT_TRUE(table().PutItem(MakeItem("P", "S"), std::nullopt).applied());
  table().EnsureCreated();
  table().EnsureCreated();
  EXPECT_EQ(table().GetItem({"P", "S"}), MakeItem("P", "S"));
}

INSTANTIATE_TEST_SUITE_P(Backends, TableTest,
                         ::testing::ValuesIn(TestBackends()), BackendName());

}  // namespace
}  // namespace table_test
}  // namespace novacat::store::testing
