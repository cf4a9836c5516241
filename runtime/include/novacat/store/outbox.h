// The events a local run published for the workflows they start (`novacat
// run --follow`), recorded in the store before they are delivered and
// removed once the run they start has ended, so that a run killed between
// the two loses none: the next `novacat run --follow` delivers what is
// left first.
//
// Items: PK=OUTBOX, SK=EVENT#<execution>#<sha256 of name and event>: the
// same event published again by a retried PublishEvent is the same item.
// Pending() is in SK order (by execution, then by content): an order, not
// the order they were published in.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "novacat/store/table.h"

namespace novacat::store {

class Outbox {
 public:
  struct Entry {
    std::string id;  // the item's SK
    std::string event_name;
    std::string source_workflow;  // the workflow that published it
    nlohmann::json event;
    bool operator==(const Entry&) const = default;
  };

  // `table` must outlive the outbox.
  explicit Outbox(Table& table) : table_(table) {}

  // Records `event_name`/`event` published by `execution` of
  // `source_workflow` (an unconditional put: a repeat rewrites it) and
  // returns its entry.
  Entry Record(const std::string& execution, const std::string& source_workflow,
               const std::string& event_name, const nlohmann::json& event);
  // Every entry not yet delivered.
  std::vector<Entry> Pending();
  // Removes the entry (absent: nothing happens).
  void Delivered(const std::string& id);

 private:
  Table& table_;
};

}  // namespace novacat::store
