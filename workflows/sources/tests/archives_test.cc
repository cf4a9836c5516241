#include "novacat/sources/archives.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "fake_http_server.h"
#include "novacat/domain/failure.h"
#include "novacat/runtime/errors.h"
#include "novacat/sources/replay.h"
#include "sources_test_util.h"

namespace novacat::sources {
namespace archives_test {
namespace {

using domain::ClientFailure;
using nlohmann::json;
using novacat::testing::FakeServer;
using testing_util::CountingClock;
using testing_util::ExpectClientError;

constexpr char kV1500Nova[] = "d4bbdda3-6824-4e82-b1ce-1b781190fbec";
constexpr char kTnsSkipped[] =
    "TNS: no API key configured (NOVACAT_TNS_API_KEY or NOVACAT_TNS_SECRET)";
constexpr char kAdsSkipped[] =
    "ADS: no token configured (NOVACAT_ADS_TOKEN or NOVACAT_ADS_SECRET); "
    "references come from SIMBAD's bibliography";

// Every variable these tests set or unset: the services' URLs, the
// secrets and their Secrets Manager names, the AWS client's configuration.
const std::vector<std::string>& TouchedVariables() {
  static const std::vector<std::string> names = {
      "NOVACAT_SIMBAD_TAP_URL",
      "NOVACAT_VSX_URL",
      "NOVACAT_TNS_URL",
      "NOVACAT_ESO_SSAP_URL",
      "NOVACAT_MAST_URL",
      "NOVACAT_ADS_URL",
      "NOVACAT_TNS_API_KEY",
      "NOVACAT_TNS_BOT_ID",
      "NOVACAT_TNS_BOT_NAME",
      "NOVACAT_TNS_SECRET",
      "NOVACAT_ADS_TOKEN",
      "NOVACAT_ADS_SECRET",
      "AWS_ENDPOINT_URL_SECRETS_MANAGER",
      "AWS_ENDPOINT_URL",
      "AWS_ACCESS_KEY_ID",
      "AWS_SECRET_ACCESS_KEY",
      "AWS_SESSION_TOKEN",
      "AWS_REGION",
      "AWS_DEFAULT_REGION"};
  return names;
}

// Unsets every TouchedVariables() variable for the test, and puts back
// what the process had when it ends.
class EnvironmentTest : public ::testing::Test {
 protected:
  EnvironmentTest() {
    for (const std::string& name : TouchedVariables()) {
      const char* value = std::getenv(name.c_str());
      saved_[name] = value ? std::optional<std::string>(value) : std::nullopt;
      ::unsetenv(name.c_str());
    }
  }
  ~EnvironmentTest() override {
    for (const auto& [name, value] : saved_) {
      if (value) {
        ::setenv(name.c_str(), value->c_str(), 1);
      } else {
        ::unsetenv(name.c_str());
      }
    }
  }
  static void Set(const std::string& name, const std::string& value) {
    ::setenv(name.c_str(), value.c_str(), 1);
  }

 private:
  std::map<std::string, std::optional<std::string>> saved_;
};

// A ServiceUrls' members in order: SIMBAD, VSX, TNS, ESO, MAST, ADS.
std::vector<std::string> Urls(const ServiceUrls& u) {
  return {u.simbad, u.vsx, u.tns, u.eso, u.mast, u.ads};
}

TEST(ArchivesConfigTest, TransientDesignationsAreTheOnesTnsIsAskedAbout) {
  for (const char* name :
       {"AT 2021ABC", "AT2021ABC", "AT 1975A", "SN 2021ABC", "SN2023IXF",
        "TCP J21113658+4809030", "PNV J17260708-2551454", "ASASSN-21AB",
        "ZTF21AAAAAAA", "GAIA21XYZ", "ATLAS21XYZ"}) {
    EXPECT_TRUE(IsTransientDesignation(name)) << name;
  }
  // A variable star's GCVS name may begin with "AT " too: AT CNC is no
  // transient designation.
  for (const char* name :
       {"V1500 CYG", "NOVA CYG 1975", "GK PER", "RS OPH", "AT CNC", "AT SGR",
        "NOVA SGR 2015 NO. 2", "", "AT", "AT ", "SN", "TCP", "TCP 21113658",
        "PNV", "AT2", "V* AT 2021ABC"}) {
    EXPECT_FALSE(IsTransientDesignation(name)) << name;
  }
}

TEST(ArchivesConfigTest, SourcesModesAreRecordedAndLive) {
  EXPECT_EQ(ParseSourcesMode("recorded"), SourcesMode::kRecorded);
  EXPECT_EQ(ParseSourcesMode("live"), SourcesMode::kLive);
  for (const char* text : {"", "Recorded", "LIVE", "replay", " live"})
    EXPECT_EQ(ParseSourcesMode(text), std::nullopt) << text;
  EXPECT_EQ(ToString(SourcesMode::kRecorded), "recorded");
  EXPECT_EQ(ToString(SourcesMode::kLive), "live");
  EXPECT_STREQ(kSourcesModeVariable, "NOVACAT_SOURCES");
}

TEST(ArchivesConfigTest, TheLiveUrlsAreTheRealServices) {
  EXPECT_EQ(Urls(LiveUrls()),
            (std::vector<std::string>{
                "https://simbad.cds.unistra.fr/simbad/sim-tap",
                "https://www.aavso.org/vsx", "https://www.wis-tns.org/api",
                "http://archive.eso.org/ssap", "https://mast.stsci.edu/api/v0",
                "https://api.adsabs.harvard.edu/v1"}));
}

TEST(ArchivesConfigTest, ServiceVariablesFollowTheMembersOrder) {
  // Each variable's service key, name, and the member it points to (read
  // from URLs that are their members' names).
  const ServiceUrls urls = {.simbad = "simbad",
                            .vsx = "vsx",
                            .tns = "tns",
                            .eso = "eso",
                            .mast = "mast",
                            .ads = "ads"};
  std::vector<std::string> variables;
  for (const ServiceVariable& v : ServiceVariables()) {
    variables.push_back(std::string(v.service) + " " + std::string(v.variable) +
                        " ." + urls.*v.url);
  }
  EXPECT_EQ(
      variables,
      (std::vector<std::string>{
          "simbad NOVACAT_SIMBAD_TAP_URL .simbad", "vsx NOVACAT_VSX_URL .vsx",
          "tns NOVACAT_TNS_URL .tns", "eso NOVACAT_ESO_SSAP_URL .eso",
          "mast NOVACAT_MAST_URL .mast", "ads NOVACAT_ADS_URL .ads"}));
}

using UrlsFromEnvironmentTest = EnvironmentTest;

TEST_F(UrlsFromEnvironmentTest, ASetVariableReplacesItsUrlOnly) {
  const ServiceUrls defaults = {.simbad = "s",
                                .vsx = "v",
                                .tns = "t",
                                .eso = "e",
                                .mast = "m",
                                .ads = "a"};
  EXPECT_EQ(Urls(UrlsFromEnvironment(defaults)),
            (std::vector<std::string>{"s", "v", "t", "e", "m", "a"}));

  Set("NOVACAT_VSX_URL", "http://127.0.0.1:9/vsx");
  Set("NOVACAT_MAST_URL", "");  // empty: as if unset
  Set("NOVACAT_ADS_URL", "http://127.0.0.1:9/ads");
  EXPECT_EQ(Urls(UrlsFromEnvironment(defaults)),
            (std::vector<std::string>{"s", "http://127.0.0.1:9/vsx", "t", "e",
                                      "m", "http://127.0.0.1:9/ads"}));

  for (const ServiceVariable& v : ServiceVariables())
    Set(std::string(v.variable), "x-" + std::string(v.service));
  EXPECT_EQ(Urls(UrlsFromEnvironment(LiveUrls())),
            (std::vector<std::string>{"x-simbad", "x-vsx", "x-tns", "x-eso",
                                      "x-mast", "x-ads"}));
}

// One world's clients over the recorded answers (a temporary copy of
// fixtures/archives, each exchange's responses counted from the first).
class ArchivesTest : public ::testing::Test {
 protected:
  SourcesConfig Config(SourceSecrets secrets) {
    SourcesConfig config;
    for (const ServiceVariable& v : ServiceVariables())
      config.urls.*v.url = replay_.BaseUrl(v.service);
    config.secrets = std::move(secrets);
    config.paced = false;
    return config;
  }
  static SourceSecrets WithoutTns() {
    SourceSecrets secrets = RecordedSecrets();
    secrets.tns_api_key.clear();
    return secrets;
  }
  static SourceSecrets WithoutAds() {
    SourceSecrets secrets = RecordedSecrets();
    secrets.ads_token.clear();
    return secrets;
  }
  static domain::ReferenceQuery V1500References() {
    domain::ReferenceQuery query;
    query.nova_id = kV1500Nova;
    query.names = {"V1500 CYG"};
    return query;
  }
  static domain::ProviderQuery V1500Spectra(std::string provider) {
    return testing_util::ConeQuery(std::move(provider), kV1500Nova, 317.9024208,
                                   48.1505417);
  }
  // Each candidate's or record's `member`, in order.
  static std::vector<json> Members(const std::vector<json>& records,
                                   const std::string& member) {
    std::vector<json> out;
    for (const json& r : records) out.push_back(r.value(member, json()));
    return out;
  }

  testing_util::RecordingsCopy recordings_{RecordedServices()};
  ReplayServer replay_{recordings_.root()};
  CountingClock clock_;
};

TEST_F(ArchivesTest, WithTheSecretsTnsResolvesATransientDesignation) {
  Archives archives(Config(RecordedSecrets()), clock_);
  EXPECT_EQ(archives.skipped(), std::vector<std::string>{});
  domain::Resolution r =
      archives.resolver().Resolve("TCP J21113658+4809030", 25000);
  EXPECT_TRUE(r.found);
  EXPECT_TRUE(r.is_nova);
  EXPECT_EQ(r.sources, (std::vector<std::string>{"VSX", "TNS"}));
  EXPECT_EQ(r.ra_deg, 317.9024208);
  EXPECT_EQ(r.dec_deg, 48.15081947777777);
  EXPECT_EQ(r.skipped, std::vector<std::string>{});
  EXPECT_EQ(replay_.unmatched(), std::vector<std::string>{});
  EXPECT_TRUE(clock_.sleeps.empty());
}

TEST_F(ArchivesTest, TnsIsNotAskedAboutANameThatIsNoTransientDesignation) {
  // TNS on the scripted server: any request would be kept there.
  FakeServer tns({FakeServer::Answer(500, "asked")});
  SourcesConfig config = Config(RecordedSecrets());
  config.urls.tns = tns.endpoint();
  Archives archives(config, clock_);
  domain::Resolution r = archives.resolver().Resolve("V1500 CYG", 25000);
  EXPECT_EQ(r.sources, (std::vector<std::string>{"SIMBAD", "VSX"}));
  EXPECT_EQ(r.skipped, std::vector<std::string>{});
  EXPECT_TRUE(tns.requests().empty());
  EXPECT_EQ(replay_.unmatched(), std::vector<std::string>{});
}

TEST_F(ArchivesTest, WithoutATnsKeyATransientIsResolvedWithoutTns) {
  Archives archives(Config(WithoutTns()), clock_);
  EXPECT_EQ(archives.skipped(), std::vector<std::string>{kTnsSkipped});
  domain::Resolution transient =
      archives.resolver().Resolve("TCP J21113658+4809030", 25000);
  EXPECT_TRUE(transient.is_nova);
  EXPECT_EQ(transient.sources, std::vector<std::string>{"VSX"});
  EXPECT_EQ(transient.skipped, std::vector<std::string>{kTnsSkipped});
  // A name TNS would not be asked about skips nothing.
  domain::Resolution classical =
      archives.resolver().Resolve("V1500 CYG", 25000);
  EXPECT_TRUE(classical.is_nova);
  EXPECT_EQ(classical.sources, (std::vector<std::string>{"SIMBAD", "VSX"}));
  EXPECT_EQ(classical.skipped, std::vector<std::string>{});
  EXPECT_EQ(replay_.unmatched(), std::vector<std::string>{});
}

TEST_F(ArchivesTest, WithoutEitherSecretBothAreSkipped) {
  SourceSecrets none = RecordedSecrets();
  none.tns_api_key.clear();
  none.ads_token.clear();
  Archives archives(Config(none), clock_);
  EXPECT_EQ(archives.skipped(),
            (std::vector<std::string>{kTnsSkipped, kAdsSkipped}));
  // The resolution lists only TNS's reason: ADS does not resolve names.
  EXPECT_EQ(archives.resolver().Resolve("TCP J21113658+4809030", 25000).skipped,
            std::vector<std::string>{kTnsSkipped});
  Archives ads_only(Config(WithoutAds()), clock_);
  EXPECT_EQ(ads_only.skipped(), std::vector<std::string>{kAdsSkipped});
}

TEST_F(ArchivesTest, ReferencesComeFromAdsWithATokenElseFromSimbad) {
  Archives with_token(Config(RecordedSecrets()), clock_);
  domain::ReferenceAnswer from_ads =
      with_token.references().Fetch(V1500References());
  EXPECT_EQ(from_ads.source, "ADS");
  EXPECT_EQ(from_ads.quota,
            (domain::SourceQuota{
                .limit = 5000, .remaining = 4987, .reset = 1767312000}));
  const std::vector<json>& ads = from_ads.candidates;
  EXPECT_EQ(Members(ads, "source"), std::vector<json>(5, "ADS"));
  EXPECT_EQ(Members(ads, "bibcode"),
            (std::vector<json>{"1975IBVS.1050....1W", "1975IAUC.2826....1H",
                               "1977ApJ...215..873F", "1985GCVS4.C......0K",
                               "1988ApJ...332..282S"}));

  Archives without_token(Config(WithoutAds()), clock_);
  domain::ReferenceAnswer from_simbad =
      without_token.references().Fetch(V1500References());
  EXPECT_EQ(from_simbad.source, "SIMBAD");
  EXPECT_EQ(from_simbad.quota, std::nullopt);
  const std::vector<json>& simbad = from_simbad.candidates;
  EXPECT_EQ(Members(simbad, "source"), std::vector<json>(5, "SIMBAD"));
  EXPECT_EQ(replay_.unmatched(), std::vector<std::string>{});
}

TEST_F(ArchivesTest, ProvidersRouteEsoAndMast) {
  Archives archives(Config(RecordedSecrets()), clock_);
  std::vector<json> eso = archives.providers().Query(V1500Spectra("ESO"));
  EXPECT_EQ(Members(eso, "dp_id"),
            (std::vector<json>{"ADP.2016-06-02T10:01:19.436",
                               "ADP.2016-06-02T10:01:19.512"}));
  std::vector<json> mast = archives.providers().Query(V1500Spectra("MAST"));
  EXPECT_EQ(Members(mast, "obs_id"),
            (std::vector<json>{"swp01744", "lwr01642"}));
  ExpectClientError([&] { archives.providers().Query(V1500Spectra("AAVSO")); },
                    ClientFailure::kInvalidRequest,
                    "no client for provider \"AAVSO\"");
  EXPECT_EQ(replay_.unmatched(), std::vector<std::string>{});
}

// A SourceSecrets' members in order: TNS's key, bot id and bot name, ADS's
// token.
std::vector<std::string> Members(const SourceSecrets& s) {
  return {s.tns_api_key, s.tns_bot_id, s.tns_bot_name, s.ads_token};
}

// SecretsFromEnvironment: the variables, else Secrets Manager (the scripted
// server at AWS_ENDPOINT_URL_SECRETS_MANAGER).
class SecretsTest : public EnvironmentTest {
 protected:
  // Points the Secrets Manager client at `server`, with test credentials.
  static void UseSecretsManager(const FakeServer& server) {
    Set("AWS_ENDPOINT_URL_SECRETS_MANAGER", server.endpoint());
    Set("AWS_ACCESS_KEY_ID", "AKIDEXAMPLE");
    Set("AWS_SECRET_ACCESS_KEY", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY");
    Set("AWS_REGION", "eu-west-1");
  }
  // A GetSecretValue answer whose SecretString is `secret`.
  static FakeServer::Answer Secret(const std::string& name,
                                   const std::string& secret) {
    return FakeServer::Answer(200,
                              json{{"ARN",
                                    "arn:aws:secretsmanager:eu-west-1:"
                                    "123456789012:secret:" +
                                        name + "-AbCdEf"},
                                   {"Name", name},
                                   {"SecretString", secret},
                                   {"VersionId", "v1"}}
                                  .dump(),
                              FakeServer::Mode::kAnswer, "",
                              "application/x-amz-json-1.1");
  }
  // Expects `request` to be GetSecretValue of `secret_id`.
  static void ExpectGetSecretValue(
      const std::pair<std::string, std::string>& request,
      const std::string& secret_id) {
    EXPECT_THAT(request.first, ::testing::StartsWith("POST / HTTP/1.1\r\n"));
    EXPECT_THAT(request.first + "\r\n",
                ::testing::HasSubstr(
                    "\r\nX-Amz-Target: secretsmanager.GetSecretValue\r\n"));
    EXPECT_THAT(request.first + "\r\n",
                ::testing::HasSubstr(
                    "\r\nContent-Type: application/x-amz-json-1.1\r\n"));
    EXPECT_EQ(json::parse(request.second), json({{"SecretId", secret_id}}));
  }
  // Expects SecretsFromEnvironment to throw `Error` with `message`, a
  // message without `secret_value`.
  template <typename Error>
  static void ExpectSecretsError(const std::string& message,
                                 const std::string& secret_value = "") {
    try {
      SecretsFromEnvironment();
      ADD_FAILURE() << "no error; expected " << message;
    } catch (const Error& e) {
      EXPECT_EQ(std::string(e.what()), message);
      if (!secret_value.empty()) {
        EXPECT_THAT(std::string(e.what()),
                    ::testing::Not(::testing::HasSubstr(secret_value)));
      }
    }
  }
};

TEST_F(SecretsTest, NothingConfiguredIsNoSecret) {
  EXPECT_EQ(Members(SecretsFromEnvironment()),
            (std::vector<std::string>{"", "", "", ""}));
}

TEST_F(SecretsTest, TheVariablesGiveTheSecretsWithoutSecretsManager) {
  Set("NOVACAT_TNS_API_KEY", "tns-key-1");
  Set("NOVACAT_TNS_BOT_ID", "123456");
  Set("NOVACAT_TNS_BOT_NAME", "novacat_bot");
  Set("NOVACAT_ADS_TOKEN", "ads-token-1");
  // Named secrets are not read when the variables give the values: a
  // Secrets Manager nobody listens at would fail the read.
  Set("NOVACAT_TNS_SECRET", "novacat/tns");
  Set("NOVACAT_ADS_SECRET", "novacat/ads");
  Set("AWS_ENDPOINT_URL_SECRETS_MANAGER", "http://127.0.0.1:9");
  EXPECT_EQ(Members(SecretsFromEnvironment()),
            (std::vector<std::string>{"tns-key-1", "123456", "novacat_bot",
                                      "ads-token-1"}));
}

TEST_F(SecretsTest, RecordedSecretsAreTheRecordingsPlaceholders) {
  EXPECT_EQ(Members(RecordedSecrets()),
            (std::vector<std::string>{"novacat-recorded-tns-key", "0",
                                      "novacat_recorded",
                                      "novacat-recorded-ads-token"}));
}

TEST_F(SecretsTest, TheTnsSecretHoldsKeyBotIdAndBotName) {
  FakeServer server({Secret("novacat/tns", R"({"api_key": "tns-key-2",
      "bot_id": 123456, "bot_name": "novacat_bot"})")});
  UseSecretsManager(server);
  Set("NOVACAT_TNS_SECRET", "novacat/tns");
  Set("NOVACAT_TNS_BOT_ID", "ignored");
  // The bot id, a number, as its digits.
  EXPECT_EQ(
      Members(SecretsFromEnvironment()),
      (std::vector<std::string>{"tns-key-2", "123456", "novacat_bot", ""}));
  auto requests = server.requests();
  ASSERT_EQ(requests.size(), 1u);
  ExpectGetSecretValue(requests[0], "novacat/tns");
}

TEST_F(SecretsTest, TheAdsSecretIsATokenMemberOrTheTokenAlone) {
  const std::string arn =
      "arn:aws:secretsmanager:eu-west-1:123456789012:secret:novacat/ads";
  FakeServer server({Secret("novacat/ads", R"({"token": "ads-token-2"})"),
                     Secret("novacat/ads", "ads-token-3")});
  UseSecretsManager(server);
  Set("NOVACAT_ADS_SECRET", arn);
  EXPECT_EQ(Members(SecretsFromEnvironment()),
            (std::vector<std::string>{"", "", "", "ads-token-2"}));
  EXPECT_EQ(Members(SecretsFromEnvironment()),
            (std::vector<std::string>{"", "", "", "ads-token-3"}));
  auto requests = server.requests();
  ASSERT_EQ(requests.size(), 2u);
  ExpectGetSecretValue(requests[0], arn);
  ExpectGetSecretValue(requests[1], arn);
}

TEST_F(SecretsTest, ASecretMissingAMemberIsTerminalWithoutItsValue) {
  FakeServer server(
      {Secret("novacat/tns", R"({"api_key": "tns-key-3", "bot_id": "123456"})"),
       Secret("novacat/ads", R"({"api_token": "ads-token-4"})")});
  UseSecretsManager(server);
  Set("NOVACAT_TNS_SECRET", "novacat/tns");
  ExpectSecretsError<runtime::TerminalError>(
      "the secret NOVACAT_TNS_SECRET names has no \"bot_name\" member",
      "tns-key-3");
  ::unsetenv("NOVACAT_TNS_SECRET");
  Set("NOVACAT_ADS_SECRET", "novacat/ads");
  ExpectSecretsError<runtime::TerminalError>(
      "the secret NOVACAT_ADS_SECRET names has no \"token\" member",
      "ads-token-4");
}

TEST_F(SecretsTest, ASecretThatDoesNotExistIsTerminalNamingTheVariable) {
  FakeServer server({FakeServer::Answer(
      400,
      R"({"__type": "ResourceNotFoundException", "message": "Secrets Manager can't find the specified secret."})",
      FakeServer::Mode::kAnswer, "", "application/x-amz-json-1.1")});
  UseSecretsManager(server);
  Set("NOVACAT_TNS_SECRET", "novacat/missing");
  ExpectSecretsError<runtime::TerminalError>(
      "reading the secret NOVACAT_TNS_SECRET names: Secrets Manager "
      "ResourceNotFoundException: Secrets Manager can't find the specified "
      "secret.");
  ASSERT_EQ(server.requests().size(), 1u);
  ExpectGetSecretValue(server.requests()[0], "novacat/missing");
}

TEST_F(SecretsTest, ASecretsManagerServerErrorIsRetryable) {
  FakeServer server({FakeServer::Answer(
      500, "Internal Failure", FakeServer::Mode::kAnswer, "", "text/plain")});
  UseSecretsManager(server);
  Set("NOVACAT_ADS_SECRET", "novacat/ads");
  ExpectSecretsError<runtime::RetryableError>(
      "reading the secret NOVACAT_ADS_SECRET names: Secrets Manager HTTP "
      "500: Internal Failure");
}

}  // namespace
}  // namespace archives_test
}  // namespace novacat::sources
