// Identifiers and identities the runtime creates: UUID v4 (job_run_id,
// correlation_id), RFC 3339 timestamps and time buckets (idempotency keys),
// and error fingerprints (JobRun / Attempt records, log lines).
//
// Randomness is injected (`Random`) so that tests see exact identifiers; no
// function here keeps global state.
#pragma once

#include <cstdint>
#include <mutex>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <string_view>

#include "novacat/runtime/errors.h"

namespace novacat::runtime {

// A source of random 64-bit words. Implementations are thread-safe: Map
// items may run concurrently and share one.
class Random {
 public:
  virtual ~Random() = default;
  virtual uint64_t Next64() = 0;
};

// Deterministic: the same seed gives the same words on every platform
// (std::mt19937_64 is specified exactly by the standard). For tests and the
// local executor.
class SeededRandom : public Random {
 public:
  explicit SeededRandom(uint64_t seed) : engine_(seed) {}
  uint64_t Next64() override;

 private:
  std::mutex mutex_;
  std::mt19937_64 engine_;
};

// The default: std::mt19937_64 seeded with 256 bits from std::random_device.
class SystemRandom : public Random {
 public:
  SystemRandom();
  uint64_t Next64() override;

 private:
  std::mutex mutex_;
  std::mt19937_64 engine_;
};

// A random (version 4, variant 10) UUID, lower-case 8-4-4-4-12.
std::string NewUuidV4(Random& random);

// True for 8-4-4-4-12 hex digits (either case) whose version nibble is 4 and
// whose variant bits are 10 (the 17th digit is 8, 9, a or b).
bool IsUuidV4(std::string_view text);

// `epoch_seconds` as RFC 3339 UTC with second precision and a `Z` suffix:
// 1764028800 -> "2025-11-25T00:00:00Z". Every timestamp the runtime writes
// (log `ts`, JobRun/Attempt `started_at`/`ended_at`) has this form, so they
// sort as text.
std::string FormatTimestamp(int64_t epoch_seconds);

// `epoch_ms` as RFC 3339 UTC with millisecond precision, always three
// digits so that these too sort as text: 1764028800123 ->
// "2025-11-25T00:00:00.123Z". An Attempt's `started_at` / `ended_at` have
// this form: an invocation lasts milliseconds, not seconds.
std::string FormatTimestampMs(int64_t epoch_ms);

// The start of the time bucket holding `epoch_seconds`, formatted as
// FormatTimestamp: buckets are [k * bucket_seconds, (k + 1) * bucket_seconds)
// counted from the Unix epoch, so a 1-day bucket (86400) starts at midnight
// UTC: TimeBucket(<2026-11-25T13:45:00Z>, 86400) == "2026-11-25T00:00:00Z".
// This string is what `{time_bucket}` expands to in idempotency keys.
// Throws TerminalError when bucket_seconds <= 0.
std::string TimeBucket(int64_t epoch_seconds, int64_t bucket_seconds);

// Makes `input["correlation_id"]` a valid correlation id and returns it:
// keeps a UUID that is there (any version: upstream systems choose theirs),
// creates a UUID v4 when the member is absent. Throws TerminalError when
// `input` is not an object or the member is present but not a UUID string
// (null included: Step Functions' IsPresent treats null as present).
std::string EnsureCorrelationId(nlohmann::json& input, Random& random);

// The cause text with what varies between occurrences of the same failure
// replaced: UUIDs by "<uuid>", hex tokens (0x-prefixed, or 8+ hex digits
// with at least one decimal digit) by "<hex>", other digit runs (with a
// decimal fraction) by "<n>"; whitespace runs collapse to one space and the
// ends are trimmed. "HTTP 503 after 2.5s for 1f0e...c3" ->
// "HTTP <n> after <n>s for <uuid>".
std::string NormalizeCause(std::string_view cause);

// A stable identity of a failure: the first 16 lower-case hex digits (64
// bits) of SHA-256("<classification>\n<state_name>\n<NormalizeCause(cause)>").
// The same class, state and normalized cause always give the same
// fingerprint, across runs, hosts and versions of this library.
// `classification` is RETRYABLE, TERMINAL or QUARANTINE; `state_name` may
// be empty when no Task raised the failure (a Choice chose quarantine).
std::string ErrorFingerprint(std::string_view classification,
                             std::string_view state_name,
                             std::string_view cause);
// The fingerprint of a StepError raised by `state_name`: its
// classification() and what().
std::string ErrorFingerprint(const StepError& error,
                             std::string_view state_name);

// Lower-case hex SHA-256 of `data` (OpenSSL libcrypto).
std::string Sha256Hex(std::string_view data);

}  // namespace novacat::runtime
