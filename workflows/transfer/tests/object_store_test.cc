// FolderObjectStore on a temporary folder, and S3ObjectStore's requests
// and error answers against the scripted HTTP server (its moto test,
// s3_moto_test.py, checks it against an S3 that keeps objects).
#include "novacat/transfer/object_store.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <string>
#include <vector>

#include "fake_http_server.h"
#include "transfer_test_support.h"

namespace novacat::transfer {
namespace object_store_test {
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
using testing::kSpectrumMd5;
using testing::kSpectrumSha256;

TEST(ObjectKeyTest, ValidKeys) {
  for (const std::string key :
       {"a", "a.fits", "spectra/2020/ADP.2020-06-01T10:00:00.000.fits",
        "a b/c%d", "..a/b..", ".hidden"})
    EXPECT_TRUE(IsValidObjectKey(key)) << key;
  for (const std::string key :
       {"", "/a", "a/../b", "..", "../a", "a/..", "a//b", "a/", "./a", "a/./b"})
    EXPECT_FALSE(IsValidObjectKey(key)) << key;
  EXPECT_FALSE(IsValidObjectKey(std::string("a\0b", 3)));
}

class FolderObjectStoreTest : public ::testing::Test {
 protected:
  FolderObjectStoreTest() : store_(root_.path(), "products") {
    WriteAll(work_.path() / "spectrum.fits", kSpectrum);
  }
  std::filesystem::path Source() const {
    return work_.path() / "spectrum.fits";
  }
  // Every file under the root, as paths relative to it.
  std::vector<std::string> Files() const {
    std::vector<std::string> files;
    for (const auto& entry :
         std::filesystem::recursive_directory_iterator(root_.path()))
      if (entry.is_regular_file())
        files.push_back(
            std::filesystem::relative(entry.path(), root_.path()).string());
    std::sort(files.begin(), files.end());
    return files;
  }

  TempDir root_, work_, out_;
  FolderObjectStore store_;
};

TEST_F(FolderObjectStoreTest, PutAndGetRoundTrip) {
  StoredObject stored =
      store_.Put("spectra/v1500/a.fits", Source(), "application/fits");
  EXPECT_EQ(stored.bucket, "products");
  EXPECT_EQ(stored.key, "spectra/v1500/a.fits");
  EXPECT_EQ(stored.byte_length, 44);
  EXPECT_EQ(stored.sha256, kSpectrumSha256);
  EXPECT_EQ(stored.etag, kSpectrumMd5);
  EXPECT_EQ(store_.bucket(), "products");
  // Where it lives, and nothing else (no temporary file left).
  EXPECT_THAT(Files(), ElementsAre("products/spectra/v1500/a.fits"));
  EXPECT_EQ(ReadAll(store_.PathOf("spectra/v1500/a.fits")), kSpectrum);
  struct stat info {};
  ASSERT_EQ(stat(store_.PathOf("spectra/v1500/a.fits").c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0644u);

  std::optional<Fetched> got = store_.Get("spectra/v1500/a.fits", out_.path());
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->file.parent_path(), out_.path());
  EXPECT_EQ(ReadAll(got->file), kSpectrum);
  EXPECT_EQ(got->byte_length, 44);
  EXPECT_EQ(got->sha256, kSpectrumSha256);
  EXPECT_EQ(got->etag, kSpectrumMd5);
  EXPECT_EQ(got->content_type, "");
  EXPECT_THAT(out_.Entries(), ElementsAre(got->file.filename().string()));
}

TEST_F(FolderObjectStoreTest, PutIsIdempotentAndReplaces) {
  StoredObject first = store_.Put("a.fits", Source(), "application/fits");
  StoredObject again = store_.Put("a.fits", Source(), "application/fits");
  EXPECT_EQ(again.sha256, first.sha256);
  EXPECT_EQ(again.etag, first.etag);
  EXPECT_EQ(again.byte_length, first.byte_length);
  EXPECT_THAT(Files(), ElementsAre("products/a.fits"));
  EXPECT_EQ(ReadAll(store_.PathOf("a.fits")), kSpectrum);

  WriteAll(work_.path() / "other", "other bytes");
  StoredObject replaced = store_.Put("a.fits", work_.path() / "other", "");
  EXPECT_EQ(replaced.byte_length, 11);
  EXPECT_NE(replaced.sha256, first.sha256);
  EXPECT_EQ(ReadAll(store_.PathOf("a.fits")), "other bytes");
  EXPECT_THAT(Files(), ElementsAre("products/a.fits"));
}

TEST_F(FolderObjectStoreTest, AMissingObjectIsNullopt) {
  EXPECT_FALSE(store_.Get("a.fits", out_.path()).has_value());
  store_.Put("dir/a.fits", Source(), "");
  EXPECT_FALSE(store_.Get("dir", out_.path()).has_value());  // a folder
  EXPECT_THAT(out_.Entries(), IsEmpty());
}

TEST_F(FolderObjectStoreTest, BadKeysAreTerminal) {
  for (const std::string key :
       {"", "/etc/passwd", "../escape", "a/../../b", "a//b"}) {
    Thrown put = Catch([&] { store_.Put(key, Source(), ""); });
    EXPECT_EQ(put.kind, "terminal") << key;
    EXPECT_EQ(put.message, "put products/" + key + ": invalid key");
    Thrown get = Catch([&] { store_.Get(key, out_.path()); });
    EXPECT_EQ(get.kind, "terminal") << key;
    EXPECT_EQ(get.message, "get products/" + key + ": invalid key");
  }
  EXPECT_THAT(Files(), IsEmpty());
  EXPECT_THAT(out_.Entries(), IsEmpty());
}

TEST_F(FolderObjectStoreTest, AFailedPutLeavesNothing) {
  const std::filesystem::path missing = work_.path() / "missing.fits";
  Thrown thrown = Catch([&] { store_.Put("a.fits", missing, ""); });
  EXPECT_EQ(thrown.kind, "terminal");
  EXPECT_EQ(thrown.message, "put products/a.fits: cannot read " +
                                missing.string() +
                                ": No such file or directory");
  EXPECT_THAT(Files(), IsEmpty());
  // A key whose folder is a file.
  store_.Put("a", Source(), "");
  thrown = Catch([&] { store_.Put("a/b", Source(), ""); });
  EXPECT_EQ(thrown.kind, "terminal");
  EXPECT_THAT(thrown.message, StartsWith("put products/a/b: cannot make "));
  EXPECT_THAT(Files(), ElementsAre("products/a"));
  // A key that is a folder: the rename fails, its temporary file goes.
  store_.Put("dir/a.fits", Source(), "");
  thrown = Catch([&] { store_.Put("dir", Source(), ""); });
  EXPECT_EQ(thrown.kind, "terminal");
  EXPECT_THAT(thrown.message,
              StartsWith("put products/dir: cannot rename " +
                         (root_.path() / "products").string() + "/.dir.tmp-"));
  EXPECT_THAT(Files(), ElementsAre("products/a", "products/dir/a.fits"));
}

// --- S3ObjectStore against the scripted server ---

aws::ClientOptions FakeOptions(const std::string& endpoint) {
  aws::ClientOptions options;
  options.endpoint = endpoint;
  options.region = "eu-west-1";
  options.access_key_id = "AKIDEXAMPLE";
  options.secret_access_key = "secret";
  options.session_token = "";
  return options;
}

std::string S3Error(const std::string& code, const std::string& message) {
  return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>" + code +
         "</Code><Message>" + message +
         "</Message><RequestId>4442587FB7D0A2F9</RequestId></Error>";
}

FakeServer::Answer Xml(int status, std::string body) {
  return {status, std::move(body), FakeServer::Mode::kAnswer, "",
          "application/xml"};
}

class S3ObjectStoreTest : public ::testing::Test {
 protected:
  S3ObjectStoreTest() { WriteAll(work_.path() / "spectrum.fits", kSpectrum); }
  std::filesystem::path Source() const {
    return work_.path() / "spectrum.fits";
  }
  TempDir work_, out_;
};

TEST_F(S3ObjectStoreTest, PutSendsASignedStreamedBody) {
  FakeServer server({{200, "", FakeServer::Mode::kAnswer,
                      "ETag: \"" + kSpectrumMd5 + "\"\r\n", ""}});
  S3ObjectStore store(FakeOptions(server.endpoint()), "novacat-products");
  StoredObject stored =
      store.Put("spectra/V1500 Cyg/a.fits", Source(), "application/fits");
  EXPECT_EQ(stored.bucket, "novacat-products");
  EXPECT_EQ(stored.key, "spectra/V1500 Cyg/a.fits");
  EXPECT_EQ(stored.byte_length, 44);
  EXPECT_EQ(stored.sha256, kSpectrumSha256);
  EXPECT_EQ(stored.etag, kSpectrumMd5);  // unquoted

  const auto requests = server.requests();
  ASSERT_EQ(requests.size(), 1u);
  const auto& [head, body] = requests[0];
  EXPECT_EQ(body, kSpectrum);
  EXPECT_THAT(head, StartsWith("PUT /novacat-products/spectra/V1500%20Cyg/"
                               "a.fits HTTP/1.1\r\n"));
  EXPECT_THAT(head, HasSubstr("\r\nx-amz-content-sha256: " + kSpectrumSha256));
  // A PUT waits for S3's go-ahead before its body.
  EXPECT_THAT(head, HasSubstr("\r\nExpect: 100-continue"));
  EXPECT_THAT(head, HasSubstr("\r\nContent-Type: application/fits\r\n"));
  EXPECT_THAT(head, HasSubstr("\r\nContent-Length: 44\r\n"));
  EXPECT_THAT(
      head,
      MatchesRegex("(.|\r|\n)*\r\nAuthorization: AWS4-HMAC-SHA256 "
                   "Credential=AKIDEXAMPLE/[0-9]{8}/eu-west-1/s3/aws4_request, "
                   "SignedHeaders=content-type;host;x-amz-content-sha256;"
                   "x-amz-date, Signature=[0-9a-f]{64}\r\n(.|\r|\n)*"));
  EXPECT_THAT(head, MatchesRegex("(.|\r|\n)*\r\nX-Amz-Date: "
                                 "[0-9]{8}T[0-9]{6}Z\r\n(.|\r|\n)*"));
}

TEST_F(S3ObjectStoreTest, GetStreamsTheObjectIntoAFile) {
  FakeServer server(
      {{200, kSpectrum, FakeServer::Mode::kAnswer,
        "ETag: \"" + kSpectrumMd5 + "\"\r\n", "application/fits"},
       Xml(404, S3Error("NoSuchKey", "The specified key does not exist."))});
  S3ObjectStore store(FakeOptions(server.endpoint()), "novacat-products");
  std::optional<Fetched> got = store.Get("a.fits", out_.path());
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->file.parent_path(), out_.path());
  EXPECT_EQ(ReadAll(got->file), kSpectrum);
  EXPECT_EQ(got->byte_length, 44);
  EXPECT_EQ(got->sha256, kSpectrumSha256);
  EXPECT_EQ(got->etag, kSpectrumMd5);
  EXPECT_EQ(got->content_type, "application/fits");
  std::filesystem::remove(got->file);

  EXPECT_FALSE(store.Get("b.fits", out_.path()).has_value());
  EXPECT_THAT(out_.Entries(), IsEmpty());

  const auto requests = server.requests();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_THAT(requests[0].first,
              StartsWith("GET /novacat-products/a.fits HTTP/1.1\r\n"));
  EXPECT_THAT(requests[0].first,
              HasSubstr("\r\nx-amz-content-sha256: e3b0c44298fc1c149afbf4c8996"
                        "fb92427ae41e4649b934ca495991b7852b855"));
  EXPECT_THAT(requests[0].first,
              HasSubstr("\r\nAuthorization: AWS4-HMAC-SHA256 Credential="));
}

TEST_F(S3ObjectStoreTest, ErrorAnswers) {
  struct Case {
    FakeServer::Answer answer;
    std::string kind;
    std::string detail;
  };
  const std::vector<Case> cases = {
      {Xml(503, S3Error("SlowDown", "Please reduce your request rate.")),
       "retryable", "S3 SlowDown: Please reduce your request rate."},
      {Xml(400, S3Error("RequestTimeout", "Your socket connection timed out.")),
       "retryable", "S3 RequestTimeout: Your socket connection timed out."},
      {Xml(500, ""), "retryable", "S3 HTTP 500"},
      // By its code whatever the status (S3 says 503; not every
      // S3-compatible store does).
      {Xml(400, S3Error("SlowDown", "Reduce your request rate.")), "retryable",
       "S3 SlowDown: Reduce your request rate."},
      {Xml(403, S3Error("AccessDenied", "Access &amp; &lt;Denied&gt;")),
       "terminal", "S3 AccessDenied: Access & <Denied>"},
      {Xml(404, S3Error("NoSuchBucket", "The specified bucket does not exist")),
       "terminal", "S3 NoSuchBucket: The specified bucket does not exist"},
      {Xml(400, "not xml"), "terminal", "S3 HTTP 400"},
  };
  std::vector<FakeServer::Answer> answers;
  for (const Case& c : cases) {
    answers.push_back(c.answer);
    answers.push_back(c.answer);
  }
  FakeServer server(answers);
  S3ObjectStore store(FakeOptions(server.endpoint()), "bucket");
  for (const Case& c : cases) {
    Thrown put = Catch([&] { store.Put("k.fits", Source(), ""); });
    EXPECT_EQ(put.kind, c.kind) << c.detail;
    EXPECT_EQ(put.message, "put s3://bucket/k.fits: " + c.detail);
    Thrown get = Catch([&] { store.Get("k.fits", out_.path()); });
    EXPECT_EQ(get.kind, c.kind) << c.detail;
    EXPECT_EQ(get.message, "get s3://bucket/k.fits: " + c.detail);
    EXPECT_THAT(out_.Entries(), IsEmpty());
  }
}

TEST_F(S3ObjectStoreTest, LocalAndNetworkFailures) {
  std::string closed;
  {
    FakeServer server({});
    closed = server.endpoint();
  }
  S3ObjectStore store(FakeOptions(closed), "bucket");
  Thrown thrown = Catch([&] { store.Put("a", Source(), ""); });
  EXPECT_EQ(thrown.kind, "retryable");
  EXPECT_THAT(
      thrown.message,
      StartsWith("put s3://bucket/a: curl: Couldn't connect to server"));
  thrown = Catch([&] { store.Get("a", out_.path()); });
  EXPECT_EQ(thrown.kind, "retryable");
  EXPECT_THAT(out_.Entries(), IsEmpty());

  const std::filesystem::path missing = work_.path() / "missing";
  thrown = Catch([&] { store.Put("a", missing, ""); });
  EXPECT_EQ(thrown.kind, "terminal");
  EXPECT_EQ(thrown.message, "put s3://bucket/a: cannot read " +
                                missing.string() +
                                ": No such file or directory");
  thrown = Catch([&] { store.Put("/a", Source(), ""); });
  EXPECT_EQ(thrown.kind, "terminal");
  EXPECT_EQ(thrown.message, "put s3://bucket//a: invalid key");
}

TEST(S3ObjectStoreOptionsTest, EndpointAndTimeoutDefaults) {
  aws::ClientOptions options = FakeOptions("");
  options.region = "eu-west-1";
  unsetenv("AWS_ENDPOINT_URL_S3");
  unsetenv("AWS_ENDPOINT_URL");
  {
    S3ObjectStore store(options, "b");
    EXPECT_EQ(store.options().endpoint, "https://s3.eu-west-1.amazonaws.com");
    EXPECT_EQ(store.options().request_timeout_ms, 14 * 60 * 1000);
  }
  setenv("AWS_ENDPOINT_URL", "http://127.0.0.1:1", 1);
  EXPECT_EQ(S3ObjectStore(options, "b").options().endpoint,
            "http://127.0.0.1:1");
  setenv("AWS_ENDPOINT_URL_S3", "http://127.0.0.1:2", 1);
  EXPECT_EQ(S3ObjectStore(options, "b").options().endpoint,
            "http://127.0.0.1:2");
  options.endpoint = "http://127.0.0.1:3";
  options.request_timeout_ms = 500;
  S3ObjectStore explicit_store(options, "b");
  EXPECT_EQ(explicit_store.options().endpoint, "http://127.0.0.1:3");
  EXPECT_EQ(explicit_store.options().request_timeout_ms, 500);
  unsetenv("AWS_ENDPOINT_URL_S3");
  unsetenv("AWS_ENDPOINT_URL");
}

}  // namespace
}  // namespace object_store_test
}  // namespace novacat::transfer
