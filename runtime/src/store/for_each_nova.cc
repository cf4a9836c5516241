#include "novacat/store/for_each_nova.h"

#include "novacat/runtime/errors.h"
#include "novacat/runtime/ids.h"
#include "novacat/runtime/validation.h"

namespace novacat::store {

using nlohmann::json;

std::optional<json> SweepInput(const json& payload) {
  if (!payload.is_object() || !payload.contains("for_each"))
    return std::nullopt;
  const json& each = payload["for_each"];
  if (each != "nova")
    throw runtime::TerminalError("a sweep's for_each must be \"nova\"; got " +
                                 each.dump());
  json input = payload.value("input", json::object());
  if (!input.is_object())
    throw runtime::TerminalError("a sweep's input must be an object; got " +
                                 input.dump());
  return input;
}

std::vector<json> PerNovaEvents(Repository& repository, const json& input) {
  std::vector<json> events;
  for (const auto& nova_id : repository.ListNovae()) {
    json event = input;
    event["nova_id"] = nova_id;
    events.push_back(std::move(event));
  }
  return events;
}

int64_t PublishPerNova(const runtime::WorkflowFacts& workflow,
                       Repository& repository, runtime::EventBus& bus,
                       runtime::LogSink& log, const json& input, int64_t now) {
  std::vector<json> events = PerNovaEvents(repository, input);
  if (!workflow.validate_event)
    throw runtime::TerminalError("no event validator for " +
                                 workflow.workflow_name);
  // Every event is checked before the first is published: a bad schedule
  // input starts no run at all.
  std::string problems;
  for (const auto& event : events) {
    std::optional<runtime::ValidationErrors> errors =
        workflow.validate_event(workflow.input_event, event);
    if (!errors)
      throw runtime::TerminalError(workflow.workflow_name +
                                   " does not know its input event '" +
                                   workflow.input_event + "'");
    if (!errors->empty())
      problems += "nova " + event["nova_id"].get<std::string>() + ":\n" +
                  runtime::FormatErrors(*errors);
  }
  if (!problems.empty())
    throw runtime::TerminalError("the sweep's " + workflow.input_event +
                                 " events are invalid:\n" + problems);
  bus.PublishAll(workflow.input_event, events);
  nlohmann::ordered_json line = {
      {"ts", runtime::FormatTimestamp(now)},
      {"level", "INFO"},
      {"message", "published one input event per nova"},
      {"workflow_name", workflow.workflow_name},
      {"event", workflow.input_event},
      {"published", events.size()}};
  log.Write(line.dump());
  return static_cast<int64_t>(events.size());
}

}  // namespace novacat::store
