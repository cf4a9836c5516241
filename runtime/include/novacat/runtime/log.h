// Structured JSON-lines logging with the spec's required fields enforced
// (seed: initialize_nova.md, "Required structured log fields").
//
// One line is one JSON object whose keys come in a fixed order:
//
//   ts, level, message,
//   the required fields (LogSpec::required, in order),
//   the when-known fields present (LogSpec::when_known, in order),
//   the line's extra fields (in the order given).
//
// A line that lacks a required field is a bug (a runtime invariant
// violation): Log() throws TerminalError and writes nothing, so tests fail
// loudly. There is no global logger: a StepLogger is built per invocation
// and writes to the LogSink it is given.
#pragma once

#include <cstdint>
#include <cstdio>
#include <functional>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "novacat/runtime/step_context.h"

namespace novacat::runtime {

// Where log lines go. Write gets one JSON object without the newline.
// Implementations are thread-safe.
class LogSink {
 public:
  virtual ~LogSink() = default;
  virtual void Write(const std::string& line) = 0;
};

// Writes each line and a newline to a stream, flushed per line: stdout in
// Lambda (CloudWatch keeps one record per line), stderr under `novacat run`
// (its stdout is the JSON report). Whole lines even from several threads.
class StreamSink : public LogSink {
 public:
  explicit StreamSink(std::FILE* stream) : stream_(stream) {}
  void Write(const std::string& line) override;

 private:
  std::mutex mutex_;
  std::FILE* stream_;
};

// Keeps the lines, for tests.
class CaptureSink : public LogSink {
 public:
  void Write(const std::string& line) override;
  std::vector<std::string> lines() const;
  void Clear();

 private:
  mutable std::mutex mutex_;
  std::vector<std::string> lines_;
};

// Which fields a workflow's log lines carry: the governance's log_fields
// followed by the workflow's own `logging`, merged by the generator into the
// workflow's binding (facts.log_spec). The runtime lists none itself.
struct LogSpec {
  // Every line must carry these (non-null).
  std::vector<std::string> required;
  // Lines carry these whenever the state document has them (null included:
  // a computed "no value", e.g. coordinate_match_min_sep_arcsec).
  std::vector<std::string> when_known;
};

enum class LogLevel { kDebug, kInfo, kWarn, kError };
// DEBUG, INFO, WARN, ERROR.
const char* LogLevelName(LogLevel level);

// What a line knows besides the state document.
struct LogContext {
  StepContext step;              // workflow_name, state_name, execution_arn,
                                 // attempt_number, correlation_id (if set)
  int64_t schema_version = 0;    // the workflow's schema_version
  std::function<int64_t()> now;  // seconds since the epoch (virtual clock)
};

// Writes the lines of one invocation. Field values come from, in order:
// the line's extra fields (an extra field named like a required or
// when-known field supplies that field, at its place), the context
// (workflow_name, execution_arn, state_name, attempt_number,
// schema_version, and correlation_id when the context has one), then the
// state document's top-level members.
class StepLogger {
 public:
  // `state` may be null (no document yet); the logger does not own it and
  // it must outlive the Log calls (see set_state).
  StepLogger(LogSpec spec, LogSink& sink, LogContext context,
             const nlohmann::json* state = nullptr);

  // The document lines read fields from (e.g. a builtin's output).
  void set_state(const nlohmann::json* state) { state_ = state; }

  // Writes one line. Throws TerminalError, writing nothing, when a required
  // field has no value, or when `fields` is not an object or uses a
  // reserved key (ts, level, message).
  void Log(LogLevel level, std::string_view message,
           const nlohmann::ordered_json& fields =
               nlohmann::ordered_json::object()) const;

  // As Log, but a missing required field never throws: it is written as
  // null and named in a trailing "missing_required_fields" array. Only for
  // failure paths, where the input may be what was invalid (a run whose
  // input event lacked candidate_name must still be logged as failing).
  void LogBestEffort(LogLevel level, std::string_view message,
                     const nlohmann::ordered_json& fields =
                         nlohmann::ordered_json::object()) const;

  // The line Log would write (no newline); throws as Log does.
  std::string Format(LogLevel level, std::string_view message,
                     const nlohmann::ordered_json& fields,
                     bool best_effort) const;

  const LogContext& context() const { return context_; }

 private:
  const nlohmann::json* Lookup(std::string_view name,
                               nlohmann::json& scratch) const;

  LogSpec spec_;
  LogSink& sink_;
  LogContext context_;
  const nlohmann::json* state_;
};

}  // namespace novacat::runtime
