// aws_publish_event: publishes events through EventBridgeBus, for the moto
// test (eventbridge_moto_test.py) and by hand:
//
//   aws_publish_event <bus> <source workflow> <event name> <event JSON>...
//
// One event goes through Publish, several through PublishAll (PutEvents
// calls of up to 10 entries).
//
// Endpoint, region and credentials come from the environment
// (AWS_ENDPOINT_URL_EVENTS, AWS_REGION, AWS_ACCESS_KEY_ID, ...). Exit 0 when
// published; else the error's class and message on stderr and exit 1
// (RetryableError) or 2 (anything else).
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "novacat/aws/eventbridge_bus.h"
#include "novacat/runtime/errors.h"

int main(int argc, char** argv) {
  if (argc < 5) {
    std::fprintf(stderr,
                 "usage: %s <bus> <source workflow> <event name> <event "
                 "JSON>...\n",
                 argv[0]);
    return 2;
  }
  try {
    novacat::aws::EventBridgeOptions options;
    options.bus_name = argv[1];
    options.source = argv[2];
    novacat::aws::EventBridgeBus bus(options);
    if (argc == 5) {
      bus.Publish(argv[3], nlohmann::json::parse(argv[4]));
      return 0;
    }
    std::vector<nlohmann::json> events;
    for (int i = 4; i < argc; ++i)
      events.push_back(nlohmann::json::parse(argv[i]));
    bus.PublishAll(argv[3], events);
    return 0;
  } catch (const novacat::runtime::StepError& e) {
    std::fprintf(stderr, "%s: %s\n", e.classification(), e.what());
    return e.error_class() == novacat::runtime::ErrorClass::kRetryable ? 1 : 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  }
}
