// What a workflow's Lambda runs with, made once per process (not per
// invocation) from the environment the stack gives the function:
//
//   _HANDLER                the workflow's name (the stack's Handler), when
//                           set: any other is an init error
//   NOVACAT_TABLE_NAME      the NovaCat table (required)
//   NOVACAT_EVENT_BUS_NAME  the bus PublishEvent sends to (default "default")
//   AWS_REGION, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN
//                           Lambda's own credentials, as every AWS client
//   AWS_ENDPOINT_URL_DYNAMODB, AWS_ENDPOINT_URL_EVENTS, AWS_ENDPOINT_URL
//                           other endpoints (emulators in tests)
//
// Records and the idempotency locks go to DynamoDB (TableRecordStore over
// DynamoDbTable), events to EventBridge (Source = the workflow's name,
// DetailType = the event's), log lines to stdout, one JSON line each
// (CloudWatch).
#pragma once

#include <memory>
#include <string>

#include "novacat/runtime/host.h"
#include "novacat/runtime/ids.h"
#include "novacat/runtime/log.h"
#include "novacat/store/table.h"

namespace novacat::lambda {

// The table's variable; the bus's is aws::kEventBusNameVariable.
inline constexpr char kTableNameVariable[] = "NOVACAT_TABLE_NAME";

class Services {
 public:
  // Throws runtime::TerminalError naming what is missing (a variable, the
  // credentials): the loop reports it on the init endpoint.
  static std::unique_ptr<Services> FromEnvironment(const std::string& workflow);
  ~Services();

  // The table, for step logic that reads and writes the catalog.
  store::Table& table();
  runtime::Random& random() { return random_; }
  runtime::HostServices& host() { return host_; }

 private:
  Services(std::unique_ptr<store::Table> table,
           std::unique_ptr<runtime::RecordStore> records,
           std::unique_ptr<runtime::EventBus> bus);

  std::unique_ptr<store::Table> table_;
  std::unique_ptr<runtime::RecordStore> records_;
  std::unique_ptr<runtime::EventBus> bus_;
  runtime::StreamSink log_{stdout};
  runtime::SystemRandom random_;
  runtime::HostServices host_;
};

}  // namespace novacat::lambda
