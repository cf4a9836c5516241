// SchemaEmitter: an event of a spec → its JSON Schema (draft 2020-12).
//
// The schema is what producers and consumers of the event validate with;
// the generated C++ parsers implement the same rules (a corpus proves they
// agree with ajv). Conventions:
// - every event carries `schema_version` (integer, const the event's
//   version), optional: absent means the current version;
// - uuid fields have `format: uuid` and a pattern, so validators that skip
//   formats still check them; date and date_time use `format`;
// - unknown properties are rejected unless the event says
//   `unknown_properties: allow` (nested objects follow the event).
#pragma once

#include <string>

#include "model/spec.h"

namespace novacat {

// The JSON text (2-space indent, trailing newline) of `event`'s schema.
std::string EmitEventSchema(const WorkflowSpec& spec, const EventDef& event);

// "schemas/events/<event>/v<N>.json".
std::string EventSchemaPath(const EventDef& event, int version);

// The pattern every uuid field carries (lower- or upper-case hex).
extern const char* const kUuidPattern;

}  // namespace novacat
