// CurlDownloader against the scripted HTTP server (fake_http_server.h) and
// local files: the fingerprints of what arrives, every failure's class and
// whole message, and that a failure leaves nothing behind.
#include "novacat/transfer/download.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "fake_http_server.h"
#include "transfer_test_support.h"

namespace novacat::transfer {
namespace download_test {
namespace {

using novacat::testing::FakeServer;
using testing::Catch;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::MatchesRegex;
using testing::ReadAll;
using ::testing::StartsWith;
using testing::TempDir;
using testing::Thrown;
using testing::WriteAll;

using testing::kSpectrum;
using testing::kSpectrumSha256;

// 5 MiB and 123 bytes, byte i = (7i + i/1024) mod 256, and their SHA-256
// (from Python's hashlib).
std::string BigBody() {
  std::string body(5 * 1024 * 1024 + 123, '\0');
  for (size_t i = 0; i < body.size(); ++i)
    body[i] = static_cast<char>((i * 7 + i / 1024) & 0xff);
  return body;
}
const std::string kBigBodySha256 =
    "5a23fa757209fcca300817d4c7690e254f25d579f439d6abb93ed00276d8ec68";

FakeServer::Answer Fits(std::string body, std::string headers = "") {
  return {200, std::move(body), FakeServer::Mode::kAnswer, std::move(headers),
          "application/fits"};
}

FakeServer::Answer Status(int status) { return {status, "error page"}; }

FakeServer::Answer Broken(FakeServer::Mode mode) {
  return {200, kSpectrum, mode, "", "application/fits"};
}

class DownloadTest : public ::testing::Test {
 protected:
  // Fetches `locator` expecting a failure; the directory must stay empty.
  Thrown Failure(Downloader& downloader, const std::string& locator) {
    Thrown thrown = Catch([&] { downloader.Fetch(locator, dir_.path()); });
    EXPECT_THAT(dir_.Entries(), IsEmpty()) << thrown.message;
    return thrown;
  }
  TempDir dir_;
};

TEST_F(DownloadTest, FetchesABodyWithItsFingerprints) {
  FakeServer server({Fits(kSpectrum, "ETag: \"5f3a-abc\"\r\n")});
  CurlDownloader downloader;
  const std::string url = server.endpoint() + "/spectra/a.fits";
  Fetched fetched = downloader.Fetch(url, dir_.path());
  EXPECT_EQ(fetched.file.parent_path(), dir_.path());
  EXPECT_THAT(dir_.Entries(), ElementsAre(fetched.file.filename().string()));
  EXPECT_EQ(ReadAll(fetched.file), kSpectrum);
  EXPECT_EQ(fetched.byte_length, 44);
  EXPECT_EQ(fetched.sha256, kSpectrumSha256);
  EXPECT_EQ(fetched.etag, "5f3a-abc");
  EXPECT_EQ(fetched.content_type, "application/fits");
  ASSERT_EQ(server.requests().size(), 1u);
  EXPECT_THAT(server.requests()[0].first,
              StartsWith("GET /spectra/a.fits HTTP/1.1\r\n"));
}

TEST_F(DownloadTest, StreamsAMultiMegabyteBody) {
  const std::string body = BigBody();
  FakeServer server({Fits(body, "ETag: W/\"big\"\r\n")});
  CurlDownloader downloader;
  Fetched fetched = downloader.Fetch(server.endpoint() + "/big", dir_.path());
  EXPECT_EQ(fetched.byte_length, 5 * 1024 * 1024 + 123);
  EXPECT_EQ(fetched.sha256, kBigBodySha256);
  EXPECT_EQ(fetched.etag, "W/big");
  EXPECT_TRUE(ReadAll(fetched.file) == body);
  EXPECT_EQ(Sha256OfFile(fetched.file), kBigBodySha256);
}

TEST_F(DownloadTest, FetchesABodyOfUnannouncedLengthWithoutHeaders) {
  FakeServer server({{200, kSpectrum, FakeServer::Mode::kUnsized, "", ""}});
  CurlDownloader downloader;
  Fetched fetched = downloader.Fetch(server.endpoint() + "/a", dir_.path());
  EXPECT_EQ(ReadAll(fetched.file), kSpectrum);
  EXPECT_EQ(fetched.sha256, kSpectrumSha256);
  EXPECT_EQ(fetched.etag, "");
  EXPECT_EQ(fetched.content_type, "");
}

TEST_F(DownloadTest, FollowsRedirectsAndReportsTheLastAnswer) {
  FakeServer server(
      {{302, "", FakeServer::Mode::kAnswer,
        "Location: /moved/a.fits\r\nETag: \"redirect\"\r\n", "text/html"},
       Fits(kSpectrum, "ETag: \"final\"\r\n")});
  CurlDownloader downloader;
  Fetched fetched = downloader.Fetch(server.endpoint() + "/a", dir_.path());
  EXPECT_EQ(ReadAll(fetched.file), kSpectrum);
  EXPECT_EQ(fetched.etag, "final");
  EXPECT_EQ(fetched.content_type, "application/fits");
  ASSERT_EQ(server.requests().size(), 2u);
  EXPECT_THAT(server.requests()[1].first,
              StartsWith("GET /moved/a.fits HTTP/1.1\r\n"));
}

TEST_F(DownloadTest, TransientAnswersAreRetryable) {
  FakeServer server({Status(429), Status(503), Status(408), Status(500)});
  CurlDownloader downloader;
  const std::string url = server.endpoint() + "/a.fits";
  for (int status : {429, 503, 408, 500}) {
    Thrown thrown = Failure(downloader, url);
    EXPECT_EQ(thrown.kind, "retryable");
    EXPECT_EQ(thrown.message,
              "fetch " + url + ": HTTP " + std::to_string(status));
  }
}

TEST_F(DownloadTest, BrokenTransfersAreRetryable) {
  struct Case {
    FakeServer::Mode mode;
    std::string detail;
  };
  const std::vector<Case> cases = {
      {FakeServer::Mode::kTruncate, "curl: Transferred a partial file"},
      {FakeServer::Mode::kResetInBody,
       "curl: Failure when receiving data from the peer"},
      {FakeServer::Mode::kStall, "curl: Timeout was reached"},
      {FakeServer::Mode::kHang, "curl: Timeout was reached"},
  };
  for (const Case& c : cases) {
    FakeServer server({Broken(c.mode)});
    DownloaderOptions options;
    options.low_speed_time_s = 1;  // a stall ends after a second
    options.request_timeout_ms = 5000;
    if (c.mode == FakeServer::Mode::kHang) options.request_timeout_ms = 300;
    CurlDownloader downloader(options);
    const std::string url = server.endpoint() + "/a.fits";
    Thrown thrown = Failure(downloader, url);
    EXPECT_EQ(thrown.kind, "retryable") << c.detail;
    EXPECT_EQ(thrown.message, "fetch " + url + ": " + c.detail);
  }
}

TEST_F(DownloadTest, ResetsAndRefusedConnectionsAreRetryable) {
  {
    FakeServer server({Broken(FakeServer::Mode::kReset)});
    CurlDownloader downloader;
    const std::string url = server.endpoint() + "/a.fits";
    Thrown thrown = Failure(downloader, url);
    EXPECT_EQ(thrown.kind, "retryable");
    // A reset before any answer: either, depending on timing.
    EXPECT_THAT(thrown.message,
                MatchesRegex("fetch .*: curl: (Failure when receiving data "
                             "from the peer|Server returned nothing \\(no "
                             "headers, no data\\))"));
  }
  std::string closed;
  {
    FakeServer server({});
    closed = server.endpoint() + "/a.fits";
  }
  CurlDownloader downloader;
  Thrown thrown = Failure(downloader, closed);
  EXPECT_EQ(thrown.kind, "retryable");
  EXPECT_EQ(thrown.message,
            "fetch " + closed + ": curl: Couldn't connect to server");
}

TEST_F(DownloadTest, PermanentAnswersAreFetchErrors) {
  struct Case {
    int status;
    FetchFailure failure;
  };
  const std::vector<Case> cases = {{404, FetchFailure::kNotFound},
                                   {410, FetchFailure::kNotFound},
                                   {403, FetchFailure::kRefused},
                                   {401, FetchFailure::kRefused},
                                   {400, FetchFailure::kRefused}};
  std::vector<FakeServer::Answer> answers;
  for (const Case& c : cases) answers.push_back(Status(c.status));
  FakeServer server(answers);
  CurlDownloader downloader;
  const std::string url = server.endpoint() + "/a.fits";
  for (const Case& c : cases) {
    Thrown thrown = Failure(downloader, url);
    EXPECT_EQ(thrown.kind, "fetch") << c.status;
    EXPECT_EQ(thrown.failure, c.failure) << c.status;
    EXPECT_EQ(thrown.message,
              "fetch " + url + ": HTTP " + std::to_string(c.status));
  }
}

TEST_F(DownloadTest, TheDetailIsTheMessageAfterTheSubject) {
  FakeServer server({Status(404)});
  CurlDownloader downloader;
  try {
    downloader.Fetch(server.endpoint() + "/a", dir_.path());
    FAIL() << "no FetchError";
  } catch (const FetchError& e) {
    EXPECT_EQ(e.detail(), "HTTP 404");
  }
}

TEST_F(DownloadTest, BadLocators) {
  CurlDownloader downloader;
  for (const std::string locator :
       {"ftp://archive.example/a.fits", "garbage", "", "/srv/a.fits"}) {
    Thrown thrown = Failure(downloader, locator);
    EXPECT_EQ(thrown.kind, "fetch") << locator;
    EXPECT_EQ(thrown.failure, FetchFailure::kBadLocator) << locator;
    EXPECT_EQ(thrown.message,
              "fetch " + locator + ": not an http, https or file URL");
  }
  Thrown thrown = Failure(downloader, "http://");
  EXPECT_EQ(thrown.kind, "fetch");
  EXPECT_EQ(thrown.failure, FetchFailure::kBadLocator);
  EXPECT_EQ(thrown.message,
            "fetch http://: curl: URL using bad/illegal format or missing URL");
}

TEST_F(DownloadTest, RedirectsEndSomewhere) {
  {
    // Six redirects: one too many.
    std::vector<FakeServer::Answer> answers(
        6, {302, "", FakeServer::Mode::kAnswer, "Location: /again\r\n"});
    FakeServer server(answers);
    CurlDownloader downloader;
    const std::string url = server.endpoint() + "/a";
    Thrown thrown = Failure(downloader, url);
    EXPECT_EQ(thrown.kind, "fetch");
    EXPECT_EQ(thrown.failure, FetchFailure::kRefused);
    EXPECT_EQ(
        thrown.message,
        "fetch " + url + ": curl: Number of redirects hit maximum amount");
  }
  {
    // Never to a local file.
    FakeServer server({{302, "", FakeServer::Mode::kAnswer,
                        "Location: file:///etc/passwd\r\n"}});
    CurlDownloader downloader;
    const std::string url = server.endpoint() + "/a";
    Thrown thrown = Failure(downloader, url);
    EXPECT_EQ(thrown.kind, "fetch");
    EXPECT_EQ(thrown.failure, FetchFailure::kRefused);
    EXPECT_EQ(thrown.message, "fetch " + url + ": curl: Unsupported protocol");
  }
  {
    // A final 3xx (no Location) is not the product.
    FakeServer server({Status(304)});
    CurlDownloader downloader;
    const std::string url = server.endpoint() + "/a";
    Thrown thrown = Failure(downloader, url);
    EXPECT_EQ(thrown.kind, "fetch");
    EXPECT_EQ(thrown.failure, FetchFailure::kRefused);
    EXPECT_EQ(thrown.message, "fetch " + url + ": HTTP 304");
  }
}

TEST_F(DownloadTest, TooLargeBodiesAreRefused) {
  DownloaderOptions options;
  options.max_bytes = 43;
  {
    // Announced: refused from its Content-Length.
    FakeServer server({Fits(kSpectrum)});
    CurlDownloader downloader(options);
    const std::string url = server.endpoint() + "/a";
    Thrown thrown = Failure(downloader, url);
    EXPECT_EQ(thrown.kind, "fetch");
    EXPECT_EQ(thrown.failure, FetchFailure::kTooLarge);
    EXPECT_EQ(thrown.message, "fetch " + url + ": more than 43 bytes");
  }
  {
    // Unannounced: refused as it grows.
    FakeServer server({{200, kSpectrum, FakeServer::Mode::kUnsized}});
    CurlDownloader downloader(options);
    const std::string url = server.endpoint() + "/a";
    Thrown thrown = Failure(downloader, url);
    EXPECT_EQ(thrown.kind, "fetch");
    EXPECT_EQ(thrown.failure, FetchFailure::kTooLarge);
    EXPECT_EQ(thrown.message, "fetch " + url + ": more than 43 bytes");
  }
  {
    // Exactly the limit is fine.
    options.max_bytes = 44;
    FakeServer server({{200, kSpectrum, FakeServer::Mode::kUnsized}});
    CurlDownloader downloader(options);
    EXPECT_EQ(downloader.Fetch(server.endpoint() + "/a", dir_.path()).sha256,
              kSpectrumSha256);
  }
}

TEST_F(DownloadTest, FetchesFileUrls) {
  TempDir source;
  WriteAll(source.path() / "a.fits", kSpectrum);
  CurlDownloader downloader;
  const std::string url = "file://" + (source.path() / "a.fits").string();
  Fetched fetched = downloader.Fetch(url, dir_.path());
  EXPECT_EQ(fetched.file.parent_path(), dir_.path());
  EXPECT_EQ(ReadAll(fetched.file), kSpectrum);
  EXPECT_EQ(fetched.byte_length, 44);
  EXPECT_EQ(fetched.sha256, kSpectrumSha256);
  EXPECT_EQ(fetched.etag, "");
  EXPECT_EQ(fetched.content_type, "");
  EXPECT_EQ(ReadAll(source.path() / "a.fits"), kSpectrum);  // untouched

  std::filesystem::remove(fetched.file);
  const std::string missing = "file://" + (source.path() / "b.fits").string();
  Thrown thrown = Failure(downloader, missing);
  EXPECT_EQ(thrown.kind, "fetch");
  EXPECT_EQ(thrown.failure, FetchFailure::kNotFound);
  EXPECT_EQ(thrown.message,
            "fetch " + missing + ": curl: Couldn't read a file:// file");
}

TEST_F(DownloadTest, MirrorsRewriteLocators) {
  TempDir source;
  WriteAll(source.path() / "ADP.2020-06-01T10:00:00.000", kSpectrum);
  DownloaderOptions options;
  options.mirrors = {
      {"https://other.example/", "file:///nowhere/"},
      {"https://dataportal.eso.org/dataportal_new/file/",
       "file://" + source.path().string() + "/"},
      {"https://dataportal.eso.org/", "file:///never/"},  // the first wins
  };
  CurlDownloader downloader(options);
  const std::string prefix = "https://dataportal.eso.org/dataportal_new/file/";
  Fetched fetched =
      downloader.Fetch(prefix + "ADP.2020-06-01T10:00:00.000", dir_.path());
  EXPECT_EQ(ReadAll(fetched.file), kSpectrum);
  EXPECT_EQ(fetched.sha256, kSpectrumSha256);
  std::filesystem::remove(fetched.file);

  Thrown thrown = Failure(downloader, prefix + "missing");
  EXPECT_EQ(thrown.kind, "fetch");
  EXPECT_EQ(thrown.failure, FetchFailure::kNotFound);
  EXPECT_EQ(thrown.message, "fetch " + prefix + "missing via file://" +
                                source.path().string() +
                                "/missing: curl: Couldn't read a file:// file");

  // The rewritten URL is what is checked.
  DownloaderOptions ftp;
  ftp.mirrors = {{"https://a.example/", "ftp://a.example/"}};
  CurlDownloader to_ftp(ftp);
  thrown = Failure(to_ftp, "https://a.example/x");
  EXPECT_EQ(thrown.failure, FetchFailure::kBadLocator);
  EXPECT_EQ(thrown.message,
            "fetch https://a.example/x via ftp://a.example/x: not an http, "
            "https or file URL");
}

TEST_F(DownloadTest, AFolderThatCannotTakeTheFileIsTerminal) {
  FakeServer server({Fits(kSpectrum)});
  CurlDownloader downloader;
  const std::string url = server.endpoint() + "/a";
  const std::filesystem::path missing = dir_.path() / "missing";
  Thrown thrown = Catch([&] { downloader.Fetch(url, missing); });
  EXPECT_EQ(thrown.kind, "terminal");
  EXPECT_EQ(thrown.message, "fetch " + url + ": cannot create a file in " +
                                missing.string() +
                                ": No such file or directory");
}

TEST_F(DownloadTest, Sha256OfFile) {
  WriteAll(dir_.path() / "a", kSpectrum);
  EXPECT_EQ(Sha256OfFile(dir_.path() / "a"), kSpectrumSha256);
  WriteAll(dir_.path() / "empty", "");
  EXPECT_EQ(Sha256OfFile(dir_.path() / "empty"),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  Thrown thrown = Catch([&] { Sha256OfFile(dir_.path() / "b"); });
  EXPECT_EQ(thrown.kind, "terminal");
  EXPECT_EQ(thrown.message, "sha256 " + (dir_.path() / "b").string() +
                                ": No such file or directory");
}

}  // namespace
}  // namespace download_test
}  // namespace novacat::transfer
