#include "novacat/runtime/log.h"

#include <algorithm>
#include <cstdio>
#include <optional>

#include "novacat/runtime/errors.h"
#include "novacat/runtime/ids.h"

namespace novacat::runtime {

namespace {

using ordered_json = nlohmann::ordered_json;

bool Contains(const std::vector<std::string>& list, std::string_view name) {
  return std::find(list.begin(), list.end(), name) != list.end();
}

bool IsReserved(std::string_view key) {
  return key == "ts" || key == "level" || key == "message" ||
         key == "missing_required_fields";
}

}  // namespace

void StreamSink::Write(const std::string& line) {
  std::lock_guard<std::mutex> lock(mutex_);
  std::fwrite(line.data(), 1, line.size(), stream_);
  std::fputc('\n', stream_);
  std::fflush(stream_);
}

void CaptureSink::Write(const std::string& line) {
  std::lock_guard<std::mutex> lock(mutex_);
  lines_.push_back(line);
}

std::vector<std::string> CaptureSink::lines() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return lines_;
}

void CaptureSink::Clear() {
  std::lock_guard<std::mutex> lock(mutex_);
  lines_.clear();
}

const char* LogLevelName(LogLevel level) {
  switch (level) {
    case LogLevel::kDebug:
      return "DEBUG";
    case LogLevel::kInfo:
      return "INFO";
    case LogLevel::kWarn:
      return "WARN";
    case LogLevel::kError:
      return "ERROR";
  }
  return "INFO";
}

StepLogger::StepLogger(LogSpec spec, LogSink& sink, LogContext context,
                       const nlohmann::json* state)
    : spec_(std::move(spec)),
      sink_(sink),
      context_(std::move(context)),
      state_(state) {}

// The value of field `name` from the context or the state document, or null
// when neither has one. `scratch` holds a value built from the context.
const nlohmann::json* StepLogger::Lookup(std::string_view name,
                                         nlohmann::json& scratch) const {
  const StepContext& step = context_.step;
  auto text = [&](const std::string& value) -> const nlohmann::json* {
    if (value.empty()) return nullptr;
    scratch = value;
    return &scratch;
  };
  if (name == "workflow_name") return text(step.workflow_name);
  if (name == "execution_arn") return text(step.execution_arn);
  if (name == "state_name") return text(step.state_name);
  if (name == "attempt_number") return &(scratch = step.attempt_number);
  if (name == "schema_version") return &(scratch = context_.schema_version);
  if (name == "correlation_id" && !step.correlation_id.empty())
    return text(step.correlation_id);
  if (state_ && state_->is_object()) {
    auto it = state_->find(name);
    if (it != state_->end()) return &*it;
  }
  return nullptr;
}

std::string StepLogger::Format(LogLevel level, std::string_view message,
                               const ordered_json& fields,
                               bool best_effort) const {
  if (!fields.is_object())
    throw TerminalError("log line \"" + std::string(message) +
                        "\": extra fields must be an object");
  for (auto it = fields.begin(); it != fields.end(); ++it)
    if (IsReserved(it.key()))
      throw TerminalError("log line \"" + std::string(message) +
                          "\": field name '" + it.key() + "' is reserved");

  ordered_json line = ordered_json::object();
  line["ts"] = FormatTimestamp(context_.now ? context_.now() : 0);
  line["level"] = LogLevelName(level);
  line["message"] = std::string(message);

  std::vector<std::string> missing;
  nlohmann::json scratch;
  for (const auto& name : spec_.required) {
    auto given = fields.find(name);
    if (given != fields.end() && !given->is_null()) {
      line[name] = *given;
      continue;
    }
    const nlohmann::json* value = Lookup(name, scratch);
    if (value && !value->is_null()) {
      line[name] = ordered_json(*value);
    } else {
      missing.push_back(name);
      line[name] = nullptr;
    }
  }
  if (!missing.empty() && !best_effort) {
    std::string list;
    for (const auto& m : missing) list += (list.empty() ? "" : ", ") + m;
    throw TerminalError("log line \"" + std::string(message) + "\" in " +
                        context_.step.state_name +
                        " lacks required field(s): " + list);
  }
  for (const auto& name : spec_.when_known) {
    auto given = fields.find(name);
    if (given != fields.end()) {
      line[name] = *given;
      continue;
    }
    if (const nlohmann::json* value = Lookup(name, scratch))
      line[name] = ordered_json(*value);
  }
  for (auto it = fields.begin(); it != fields.end(); ++it) {
    if (Contains(spec_.required, it.key()) ||
        Contains(spec_.when_known, it.key()))
      continue;
    line[it.key()] = it.value();
  }
  if (!missing.empty()) line["missing_required_fields"] = missing;
  // Invalid UTF-8 in a value (a provider's bytes) must not lose the line.
  return line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

void StepLogger::Log(LogLevel level, std::string_view message,
                     const ordered_json& fields) const {
  sink_.Write(Format(level, message, fields, /*best_effort=*/false));
}

void StepLogger::LogBestEffort(LogLevel level, std::string_view message,
                               const ordered_json& fields) const {
  sink_.Write(Format(level, message, fields, /*best_effort=*/true));
}

}  // namespace novacat::runtime
