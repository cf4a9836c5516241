#include "novacat/lambda/services.h"

#include <cstdlib>

#include "novacat/aws/eventbridge_bus.h"
#include "novacat/runtime/errors.h"
#include "novacat/store/dynamodb_table.h"
#include "novacat/store/table_record_store.h"

namespace novacat::lambda {

namespace {

std::string Env(const char* name) {
  const char* value = std::getenv(name);
  return value ? value : "";
}

}  // namespace

std::unique_ptr<Services> Services::FromEnvironment(
    const std::string& workflow) {
  // The stack names each function's handler after its workflow: another
  // name means this zip was deployed to another workflow's function.
  if (std::string handler = Env("_HANDLER");
      !handler.empty() && handler != workflow)
    throw runtime::TerminalError("_HANDLER is '" + handler +
                                 "' but this package runs " + workflow +
                                 ": the function has another workflow's zip");
  store::DynamoDbOptions table_options;
  table_options.table_name = Env(kTableNameVariable);
  if (table_options.table_name.empty())
    throw runtime::TerminalError(
        std::string(kTableNameVariable) +
        " is not set: it names the NovaCat table (the stack sets it)");
  auto table = std::make_unique<store::DynamoDbTable>(table_options);
  auto records = std::make_unique<store::TableRecordStore>(*table);
  aws::EventBridgeOptions bus_options;
  bus_options.source = workflow;
  auto bus = std::make_unique<aws::EventBridgeBus>(bus_options);
  return std::unique_ptr<Services>(
      new Services(std::move(table), std::move(records), std::move(bus)));
}

Services::Services(std::unique_ptr<store::Table> table,
                   std::unique_ptr<runtime::RecordStore> records,
                   std::unique_ptr<runtime::EventBus> bus)
    : table_(std::move(table)),
      records_(std::move(records)),
      bus_(std::move(bus)),
      host_{*records_, log_, *bus_, random_} {}

Services::~Services() = default;

store::Table& Services::table() { return *table_; }

}  // namespace novacat::lambda
