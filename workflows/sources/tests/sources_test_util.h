// What the sources tests share: the clock they inject, the check of a
// client's error, the recorded bodies they read, the services they point
// at the scripted server (novacat::testing::FakeServer) or the replay
// server, and the temporary folders the replay server reads.
#pragma once

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "fake_http_server.h"
#include "novacat/domain/failure.h"
#include "novacat/domain/resolver.h"
#include "novacat/domain/spectra.h"
#include "novacat/sources/http.h"

namespace novacat::sources::testing_util {

// Time that moves only when slept: the waits are counted, not taken.
class CountingClock : public Clock {
 public:
  std::chrono::steady_clock::time_point Now() override { return now_; }
  void SleepFor(std::chrono::milliseconds duration) override {
    sleeps.push_back(duration.count());
    now_ += duration;
  }
  std::vector<int64_t> sleeps;

 private:
  std::chrono::steady_clock::time_point now_{};
};

// Expects `call` to throw a domain::ClientError of `failure` whose message
// is exactly `message`; and, when `secret` is not empty, a message that
// does not hold it.
inline void ExpectClientError(const std::function<void()>& call,
                              domain::ClientFailure failure,
                              const std::string& message,
                              std::string_view secret = "") {
  try {
    call();
    ADD_FAILURE() << "no ClientError; expected " << message;
  } catch (const domain::ClientError& e) {
    EXPECT_EQ(e.failure(), failure) << e.what();
    EXPECT_EQ(std::string(e.what()), message);
    if (!secret.empty()) {
      EXPECT_THAT(std::string(e.what()),
                  ::testing::Not(::testing::HasSubstr(std::string(secret))));
    }
  }
}

// The bytes of `path` (relative to the repository's root, where the tests
// run: "fixtures/archives/eso/v1500_cyg.xml"); a failure when it cannot be
// read.
inline std::string ReadFixture(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in) << path.generic_string();
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The service `name` at `base_url`, with the tests' timeouts (connect 2 s,
// the whole request `request_timeout_ms`).
inline Service ServiceAt(std::string name, std::string base_url,
                         long request_timeout_ms = 10000) {
  Service s;
  s.name = std::move(name);
  s.base_url = std::move(base_url);
  s.connect_timeout_ms = 2000;
  s.request_timeout_ms = request_timeout_ms;
  return s;
}

// The service `name` at `path` ("/simbad") of the scripted server.
inline Service ServiceAt(const novacat::testing::FakeServer& server,
                         std::string name, std::string_view path,
                         long request_timeout_ms = 10000) {
  return ServiceAt(std::move(name), server.endpoint() + std::string(path),
                   request_timeout_ms);
}

// A provider's cone search for `nova_id` at (ra, dec).
inline domain::ProviderQuery ConeQuery(std::string provider,
                                       std::string nova_id, double ra,
                                       double dec) {
  domain::ProviderQuery q;
  q.provider = std::move(provider);
  q.nova_id = std::move(nova_id);
  q.ra_deg = ra;
  q.dec_deg = dec;
  return q;
}

// Expects `got` to be `expected`, member by member.
inline void ExpectSourceMatch(const domain::SourceMatch& got,
                              const domain::SourceMatch& expected) {
  EXPECT_EQ(got.id, expected.id);
  EXPECT_EQ(got.object_type, expected.object_type);
  EXPECT_EQ(got.is_nova, expected.is_nova);
  EXPECT_EQ(got.classical_nova_status, expected.classical_nova_status);
  EXPECT_EQ(got.ra_deg, expected.ra_deg);
  EXPECT_EQ(got.dec_deg, expected.dec_deg);
  EXPECT_EQ(got.epoch, expected.epoch);
  EXPECT_EQ(got.aliases, expected.aliases);
}

// A fresh empty folder under the system's temporary folder, removed with
// everything in it when this goes.
class TempFolder {
 public:
  TempFolder() {
    static std::atomic<int> count{0};
    path_ = std::filesystem::temp_directory_path() /
            ("novacat-sources-test-" + std::to_string(::getpid()) + "-" +
             std::to_string(count++));
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempFolder() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  TempFolder(const TempFolder&) = delete;
  TempFolder& operator=(const TempFolder&) = delete;

  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// A temporary copy of the recordings of `services` (the folders of
// fixtures/archives/: "eso", "mast", ...), the root a ReplayServer reads:
// a test sees only the services it names.
class RecordingsCopy {
 public:
  explicit RecordingsCopy(const std::vector<std::string>& services) {
    for (const std::string& service : services) {
      std::filesystem::copy(
          std::filesystem::path("fixtures/archives") / service,
          folder_.path() / service, std::filesystem::copy_options::recursive);
    }
  }

  const std::filesystem::path& root() const { return folder_.path(); }

 private:
  TempFolder folder_;
};

}  // namespace novacat::sources::testing_util
