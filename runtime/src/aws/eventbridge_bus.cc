// EventBridgeBus: one PutEvents entry per published event.
#include "novacat/aws/eventbridge_bus.h"

#include <cstdlib>
#include <mutex>
#include <utility>

#include "novacat/runtime/errors.h"

namespace novacat::aws {

using runtime::RetryableError;
using runtime::TerminalError;

JsonService EventBridgeService() {
  return {"EventBridge",
          "events",
          "AWS_ENDPOINT_URL_EVENTS",
          "AWSEvents",
          "1.1",
          {"ThrottlingException", "InternalException", "InternalFailure",
           "ServiceUnavailable", "ServiceUnavailableException"}};
}

struct EventBridgeBus::Impl {
  EventBridgeOptions options;
  std::mutex mutex;  // one request at a time on the client
  std::unique_ptr<JsonClient> client;
};

EventBridgeBus::EventBridgeBus(EventBridgeOptions options)
    : impl_(std::make_unique<Impl>()) {
  if (options.source.empty())
    throw TerminalError(
        "EventBridge: no source (the publishing workflow's name)");
  if (options.bus_name.empty()) {
    const char* bus = std::getenv(kEventBusNameVariable);
    options.bus_name = bus && *bus ? bus : "default";
  }
  impl_->client = std::make_unique<JsonClient>(EventBridgeService(), options);
  impl_->options = std::move(options);
  // The client's options, environment defaults filled in.
  static_cast<ClientOptions&>(impl_->options) = impl_->client->options();
}

EventBridgeBus::~EventBridgeBus() = default;

const EventBridgeOptions& EventBridgeBus::options() const {
  return impl_->options;
}

void EventBridgeBus::Publish(std::string_view event_name,
                             const nlohmann::json& event) {
  const EventBridgeOptions& o = impl_->options;
  const std::string what =
      "PutEvents " + std::string(event_name) + " to " + o.bus_name;
  std::string detail;
  try {
    detail = event.dump();
  } catch (const nlohmann::json::exception& e) {
    throw TerminalError(what + ": cannot encode the event: " + e.what());
  }
  const nlohmann::json request = {{"Entries",
                                   {{{"Source", o.source},
                                     {"DetailType", event_name},
                                     {"Detail", std::move(detail)},
                                     {"EventBusName", o.bus_name}}}}};
  nlohmann::json answer;
  {
    std::lock_guard lock(impl_->mutex);
    answer = impl_->client->Call("PutEvents", request, what).body;
  }
  auto failed = answer.find("FailedEntryCount");
  if (failed == answer.end() || !failed->is_number() || *failed == 0) return;
  // {"FailedEntryCount": 1, "Entries": [{"ErrorCode": "...",
  //  "ErrorMessage": "..."}]}
  auto text = [](const nlohmann::json& entry, const char* name) {
    auto it = entry.find(name);
    return it != entry.end() && it->is_string() ? it->get<std::string>()
                                                : std::string("no ") + name;
  };
  nlohmann::json entry = nlohmann::json::object();
  if (auto entries = answer.find("Entries");
      entries != answer.end() && entries->is_array() && !entries->empty() &&
      entries->front().is_object())
    entry = entries->front();
  throw RetryableError(
      what + ": EventBridge failed the entry: " + text(entry, "ErrorCode") +
      ": " + text(entry, "ErrorMessage"));
}

}  // namespace novacat::aws
