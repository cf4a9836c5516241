// EventBridgeBus: one PutEvents entry per published event; PutEvents calls
// of up to 10 entries for PublishAll.
#include "novacat/aws/eventbridge_bus.h"

#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

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

namespace {

// EventBridge's limits on one PutEvents call.
constexpr size_t kMaxEntriesPerCall = 10;
constexpr size_t kMaxEntryBytesPerCall = 256 * 1024;  // the sum, exclusive

// A member of an answer's entry, or "no <name>".
std::string EntryText(const nlohmann::json& entry, const char* name) {
  auto it = entry.find(name);
  return it != entry.end() && it->is_string() ? it->get<std::string>()
                                              : std::string("no ") + name;
}

// The event as PutEvents' Detail: its JSON text.
std::string Detail(const nlohmann::json& event, const std::string& what) {
  try {
    return event.dump();
  } catch (const nlohmann::json::exception& e) {
    throw TerminalError(what + ": cannot encode the event: " + e.what());
  }
}

// One PutEvents entry (see the CONTRACT in the header).
nlohmann::json Entry(const EventBridgeOptions& o, std::string_view event_name,
                     std::string detail) {
  return {{"Source", o.source},
          {"DetailType", event_name},
          {"Detail", std::move(detail)},
          {"EventBusName", o.bus_name}};
}

// The prefix of every message about publishing `event_name`.
std::string What(const EventBridgeOptions& o, std::string_view event_name) {
  return "PutEvents " + std::string(event_name) + " to " + o.bus_name;
}

// The entries of a call of `count` that its answer did not confirm, by
// position, each with its "ErrorCode: ErrorMessage". The answer lists
// {"FailedEntryCount": n, "Entries": [...]} in the request's order; when n
// is not 0, an entry without an EventId, or with an ErrorCode, failed.
std::vector<std::pair<size_t, std::string>> Unconfirmed(
    const nlohmann::json& answer, size_t count) {
  std::vector<std::pair<size_t, std::string>> failed;
  auto n = answer.find("FailedEntryCount");
  if (n == answer.end() || !n->is_number() || *n == 0) return failed;
  const nlohmann::json none = nlohmann::json::object();
  auto listed = answer.find("Entries");
  for (size_t i = 0; i < count; ++i) {
    const nlohmann::json& entry =
        listed != answer.end() && listed->is_array() && i < listed->size() &&
                (*listed)[i].is_object()
            ? (*listed)[i]
            : none;
    if (!entry.contains("ErrorCode") && entry.contains("EventId")) continue;
    failed.emplace_back(i, EntryText(entry, "ErrorCode") + ": " +
                               EntryText(entry, "ErrorMessage"));
  }
  return failed;
}

}  // namespace

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
  const std::string what = What(o, event_name);
  const nlohmann::json request = {
      {"Entries",
       nlohmann::json::array({Entry(o, event_name, Detail(event, what))})}};
  nlohmann::json answer;
  {
    std::lock_guard lock(impl_->mutex);
    answer = impl_->client->Call("PutEvents", request, what).body;
  }
  auto failed = answer.find("FailedEntryCount");
  if (failed == answer.end() || !failed->is_number() || *failed == 0) return;
  // {"FailedEntryCount": 1, "Entries": [{"ErrorCode": "...",
  //  "ErrorMessage": "..."}]}
  nlohmann::json entry = nlohmann::json::object();
  if (auto entries = answer.find("Entries");
      entries != answer.end() && entries->is_array() && !entries->empty() &&
      entries->front().is_object())
    entry = entries->front();
  throw RetryableError(what + ": EventBridge failed the entry: " +
                       EntryText(entry, "ErrorCode") + ": " +
                       EntryText(entry, "ErrorMessage"));
}

void EventBridgeBus::PublishAll(std::string_view event_name,
                                const std::vector<nlohmann::json>& events) {
  const EventBridgeOptions& o = impl_->options;
  const std::string what = What(o, event_name);
  // Every event encoded before the first call: one that cannot be sends
  // nothing.
  std::vector<std::string> details;
  details.reserve(events.size());
  for (const auto& event : events) details.push_back(Detail(event, what));
  const size_t fixed_bytes = o.source.size() + event_name.size();

  std::vector<size_t> pending(events.size());  // indexes into `events`
  for (size_t i = 0; i < pending.size(); ++i) pending[i] = i;
  std::chrono::milliseconds wait = o.resend_backoff;
  for (int send = 1;; ++send) {
    std::vector<size_t> failed;
    std::string last_error;  // this round's first failure
    for (size_t begin = 0; begin < pending.size();) {
      size_t end = begin, bytes = 0;
      while (end < pending.size() && end - begin < kMaxEntriesPerCall) {
        const size_t entry_bytes = fixed_bytes + details[pending[end]].size();
        if (end > begin && bytes + entry_bytes >= kMaxEntryBytesPerCall) break;
        bytes += entry_bytes;
        ++end;
      }
      nlohmann::json entries = nlohmann::json::array();
      for (size_t i = begin; i < end; ++i)
        entries.push_back(Entry(o, event_name, details[pending[i]]));
      const nlohmann::json request = {{"Entries", std::move(entries)}};
      nlohmann::json answer;
      try {
        std::lock_guard lock(impl_->mutex);
        answer = impl_->client->Call("PutEvents", request, what).body;
      } catch (const RetryableError& e) {
        // The whole call failed (throttled, 5xx, a timeout): each of its
        // entries is sent again. The message after "<what>: ".
        std::string message = e.what();
        if (message.rfind(what + ": ", 0) == 0)
          message.erase(0, what.size() + 2);
        if (last_error.empty()) last_error = message;
        failed.insert(failed.end(), pending.begin() + begin,
                      pending.begin() + end);
        begin = end;
        continue;
      }
      for (const auto& [i, error] : Unconfirmed(answer, end - begin)) {
        failed.push_back(pending[begin + i]);
        if (last_error.empty()) last_error = error;
      }
      begin = end;
    }
    if (failed.empty()) return;
    if (send >= o.sends_per_entry)
      throw RetryableError(what + ": EventBridge failed " +
                           std::to_string(failed.size()) + " of " +
                           std::to_string(events.size()) +
                           " entries, each sent " + std::to_string(send) +
                           (send == 1 ? " time: " : " times: ") + last_error);
    if (o.sleep)
      o.sleep(wait);
    else
      std::this_thread::sleep_for(wait);
    wait *= 2;
    pending = std::move(failed);
  }
}

}  // namespace novacat::aws
