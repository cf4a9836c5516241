// A step's answer to a domain failure: the spec's failure id (specs/<wf>.yaml,
// `failures`) and error class the step chose for the failure's case, with
// a switch over the domain's enum (novacat/domain/failure.h), thrown as the
// runtime's error of that class. The cause is "<failure_id>: <message>", so
// that the quarantine_reason, the JobRun's error and the log line name the
// case; the class is what Step Functions routes on.
//
// Also the helpers the dataset workflows (download_and_validate_spectra,
// ingest_photometry_dataset) share: Required, QuarantineReasonCode,
// LeaseLost and RequireHeld (the lease fence's answer), and for the steps that
// record a caught failure on a dataset, ClassifyCaughtError and LeaseHeldBy.
#pragma once

#include <cctype>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "novacat/runtime/errors.h"
#include "novacat/store/repository.h"

namespace novacat::workflows {

// Throws the runtime::StepError of `error_class` with cause
// "<failure_id>: <message>", or `message` alone when failure_id is empty (a
// case the spec has no id for).
[[noreturn]] inline void Fail(runtime::ErrorClass error_class,
                              std::string_view failure_id,
                              std::string_view message) {
  std::string cause = failure_id.empty() ? std::string(message)
                                         : std::string(failure_id) + ": " +
                                               std::string(message);
  switch (error_class) {
    case runtime::ErrorClass::kRetryable:
      throw runtime::RetryableError(std::move(cause));
    case runtime::ErrorClass::kQuarantine:
      throw runtime::QuarantineError(std::move(cause));
    case runtime::ErrorClass::kTerminal:
      break;
  }
  throw runtime::TerminalError(std::move(cause));
}

// A field the workflow always has at this point: its absence is a broken
// invariant (TerminalError "<state>: the document has no <member>").
inline const std::string& Required(const std::optional<std::string>& value,
                                   std::string_view state,
                                   std::string_view member) {
  if (!value || value->empty()) {
    throw runtime::TerminalError(std::string(state) + ": the document has no " +
                                 std::string(member));
  }
  return *value;
}

// Upper-case letters, digits and '_', not empty.
inline bool IsReasonCode(std::string_view text) {
  return !text.empty() &&
         text.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") ==
             std::string_view::npos;
}

// The reason code of a quarantine cause "<failure id>: <REASON_CODE>:
// <detail>": REASON_CODE when the second part is upper-case letters, digits
// and '_'; else the failure id upper-cased; else "UNSPECIFIED".
inline std::string QuarantineReasonCode(std::string_view cause) {
  size_t first = cause.find(": ");
  if (first != std::string_view::npos) {
    std::string_view rest = cause.substr(first + 2);
    std::string_view code = rest.substr(0, rest.find(": "));
    if (rest.find(": ") != std::string_view::npos && IsReasonCode(code))
      return std::string(code);
  }
  std::string id(cause.substr(0, first));
  if (first == std::string_view::npos || id.empty()) return "UNSPECIFIED";
  for (char& c : id) c = static_cast<char>(std::toupper(c));
  return IsReasonCode(id) ? id : "UNSPECIFIED";
}

// The spec failure id of a dataset lease lost while its run worked on it.
inline constexpr std::string_view kLeaseLost = "lease_lost";

// The dataset's lease is no longer the caller's (it expired, and another
// run may hold it now): the dataset is no longer this run's to work on, and
// no retry wins the lease back, so the item ends here, TERMINAL (the failure
// route that catches it records nothing on a dataset it does not hold):
// TerminalError "lease_lost: <state>: dataset <id>: <what>".
[[noreturn]] inline void LeaseLost(std::string_view state,
                                   std::string_view what,
                                   const store::DatasetKey& key) {
  Fail(runtime::ErrorClass::kTerminal, kLeaseLost,
       std::string(state) + ": dataset " + key.dataset_id + ": " +
           std::string(what));
}

// A fenced dataset write's answer (the repository's lease_owner argument):
// anything but kUpdated means the lease is no longer the caller's (or the
// dataset vanished): LeaseLost, what = "<operation> answered <outcome>".
inline void RequireHeld(store::UpdateOutcome outcome, std::string_view state,
                        std::string_view operation,
                        const store::DatasetKey& key) {
  if (outcome == store::UpdateOutcome::kUpdated) return;
  LeaseLost(
      state,
      std::string(operation) + " answered " + store::UpdateOutcomeName(outcome),
      key);
}

// A caught error ($.error: {Error, Cause}, as a Catch puts it) and what a
// step recording it makes of its dataset:
//   QuarantineError -> validation QUARANTINED with the cause's reason code
//     (QuarantineReasonCode), the lease ending QUARANTINED;
//   TerminalError -> TERMINAL_INVALID, FAILED_TERMINAL;
//   anything else (RetryableError, States.Timeout...) -> RETRYABLE_ERROR,
//     FAILED_RETRYABLE.
// outcome has no details (each workflow chooses them).
struct CaughtError {
  std::string error;  // the ASL error name
  std::string cause;
  store::ValidationOutcome outcome;
  store::ProcessingStatus next = store::ProcessingStatus::kFailedRetryable;
};

// TerminalError "<state>: the document has no error" when `error` is not
// an object.
inline CaughtError ClassifyCaughtError(
    const std::optional<nlohmann::json>& error, std::string_view state) {
  if (!error || !error->is_object())
    throw runtime::TerminalError(std::string(state) +
                                 ": the document has no error");
  CaughtError caught;
  caught.error = error->value("Error", "");
  caught.cause = error->value("Cause", "");
  caught.outcome.status = store::ValidationStatus::kRetryableError;
  if (caught.error == "QuarantineError") {
    caught.outcome.status = store::ValidationStatus::kQuarantined;
    caught.outcome.quarantine_reason_code = QuarantineReasonCode(caught.cause);
    caught.next = store::ProcessingStatus::kQuarantined;
  } else if (caught.error == "TerminalError") {
    caught.outcome.status = store::ValidationStatus::kTerminalInvalid;
    caught.next = store::ProcessingStatus::kFailedTerminal;
  }
  return caught;
}

// The dataset when `owner` holds its lease (IN_PROGRESS under it), else
// nullopt: a run that failed before taking the lease, or lost it, must not
// write on a dataset that belongs to its holder.
inline std::optional<store::Dataset> LeaseHeldBy(store::Repository& repository,
                                                 const store::DatasetKey& key,
                                                 const std::string& owner) {
  std::optional<store::Dataset> dataset = repository.GetDataset(key);
  if (!dataset || dataset->lease_owner != owner ||
      dataset->processing_status != store::ProcessingStatus::kInProgress)
    return std::nullopt;
  return dataset;
}

}  // namespace novacat::workflows
