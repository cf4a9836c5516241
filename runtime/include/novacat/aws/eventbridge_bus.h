// EventBridgeBus: runtime::EventBus on Amazon EventBridge. PublishEvent
// validates an event, then Publish sends it with one PutEvents call
// (AWSEvents.PutEvents, JSON 1.1, SigV4 service "events", through
// aws::JsonClient) holding one entry:
//
//   Source       = the publishing workflow's name, exactly (options.source)
//   DetailType   = the event name, exactly (e.g. "ingest_new_nova")
//   Detail       = the event document as JSON text
//   EventBusName = options.bus_name
//
// CONTRACT: "Source = workflow name, DetailType = event name" is what the
// CloudFormation stack's rules match on ({"source": [<publisher>],
// "detail-type": [<event>]}), and they pass `$.detail` (the event
// document) to the consuming state machine. Changing either side alone
// breaks the routing between workflows.
//
// Errors: a non-zero FailedEntryCount is runtime::RetryableError
// ("PutEvents <event> to <bus>: EventBridge failed the entry: <ErrorCode>:
// <ErrorMessage>"); throttling (ThrottlingException), InternalException,
// any HTTP 5xx, timeouts, refused and reset connections are RetryableError;
// any other answer (another 4xx: ValidationException,
// ResourceNotFoundException, AccessDeniedException...) is TerminalError.
// Messages are those of aws::JsonClient after "PutEvents <event> to <bus>".
// EventBridge delivers at least once: consumers dedupe by idempotency key.
//
// PublishAll (a `for_each: nova` sweep's one event per nova) sends the
// events in order, in PutEvents calls of at most 10 entries (EventBridge's
// limit) whose sizes add up to less than 256 KiB (EventBridge's reckoning:
// the UTF-8 bytes of Source, DetailType and Detail; an entry that large
// alone goes alone, and EventBridge judges it). The entries a call's
// answer marks failed (an ErrorCode), and every entry of a call that
// failed with a RetryableError, are sent again, after the others, up to
// options.sends_per_entry sends in all, waiting resend_backoff_ms, then
// twice that, ... between rounds. What still failed is one RetryableError
// ("PutEvents <event> to <bus>: EventBridge failed <n> of <total> entries,
// each sent <sends> times: <the last round's first ErrorCode>:
// <ErrorMessage>"), the others having been published; a TerminalError ends
// it at once.
//
// Threads: Publish may be called from several threads (one request at a
// time on the bus's connection).
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "novacat/aws/json_client.h"
#include "novacat/runtime/builtins.h"

namespace novacat::aws {

// The environment variable naming the bus when options.bus_name is empty.
inline constexpr const char* kEventBusNameVariable = "NOVACAT_EVENT_BUS_NAME";

// Endpoint, region, credentials and timeouts as ClientOptions (the endpoint
// from AWS_ENDPOINT_URL_EVENTS, else AWS_ENDPOINT_URL, else
// https://events.<region>.amazonaws.com).
struct EventBridgeOptions : ClientOptions {
  // Empty: NOVACAT_EVENT_BUS_NAME, else "default".
  std::string bus_name;
  // The publishing workflow's name (required): every event's Source.
  std::string source;
  // PublishAll: how many times an entry is sent before it is given up, and
  // the wait before the first resend (doubled for each later one).
  int sends_per_entry = 3;
  std::chrono::milliseconds resend_backoff{100};
  // How PublishAll waits (tests record the waits instead).
  std::function<void(std::chrono::milliseconds)> sleep;
};

// EventBridge's JSON protocol description (for JsonClient).
JsonService EventBridgeService();

class EventBridgeBus : public runtime::EventBus {
 public:
  // Fills the empty fields of `options` from the environment. Throws
  // runtime::TerminalError when the source is empty, no credentials are
  // found or libcurl cannot be initialized.
  explicit EventBridgeBus(EventBridgeOptions options);
  ~EventBridgeBus() override;
  EventBridgeBus(const EventBridgeBus&) = delete;
  EventBridgeBus& operator=(const EventBridgeBus&) = delete;

  // The options in effect (environment defaults filled in).
  const EventBridgeOptions& options() const;

  void Publish(std::string_view event_name,
               const nlohmann::json& event) override;
  void PublishAll(std::string_view event_name,
                  const std::vector<nlohmann::json>& events) override;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace novacat::aws
