#include "novacat/store/outbox.h"

#include "novacat/runtime/errors.h"
#include "novacat/runtime/ids.h"

namespace novacat::store {
namespace {

constexpr const char* kPartition = "OUTBOX";

}  // namespace

Outbox::Entry Outbox::Record(const std::string& execution,
                             const std::string& source_workflow,
                             const std::string& event_name,
                             const nlohmann::json& event) {
  Entry entry;
  entry.id = "EVENT#" + execution + "#" +
             runtime::Sha256Hex(event_name + "\n" + event.dump());
  entry.event_name = event_name;
  entry.source_workflow = source_workflow;
  entry.event = event;
  Item item = Item::object();
  item["PK"] = kPartition;
  item["SK"] = entry.id;
  item["entity"] = "OutboxEvent";
  item["event_name"] = event_name;
  item["source_workflow"] = source_workflow;
  item["event"] = event.dump();
  table_.PutItem(item, std::nullopt);
  return entry;
}

std::vector<Outbox::Entry> Outbox::Pending() {
  QueryRequest request;
  request.partition_key = kPartition;
  request.sort_key_prefix = "EVENT#";
  std::vector<Entry> out;
  for (const Item& item : table_.QueryAll(request)) {
    Entry entry;
    entry.id = item.value("SK", "");
    entry.event_name = item.value("event_name", "");
    entry.source_workflow = item.value("source_workflow", "");
    entry.event =
        nlohmann::json::parse(item.value("event", ""), nullptr, false);
    if (entry.event.is_discarded() || entry.event_name.empty())
      throw runtime::TerminalError("stored outbox item " + entry.id +
                                   " is malformed");
    out.push_back(std::move(entry));
  }
  return out;
}

void Outbox::Delivered(const std::string& id) {
  table_.DeleteItem({kPartition, id}, std::nullopt);
}

}  // namespace novacat::store
