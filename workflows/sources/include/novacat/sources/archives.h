// The public archives as the seed workflows ask them: every client of one
// world behind the domain's interfaces, configured from the environment.
//
//   ArchiveResolver   SIMBAD (TAP), VSX and, for transient designations
//                     ("TCP J...", "AT 2021abc", ...) when a TNS API key is
//                     configured, TNS; their answers combined by
//                     domain::CombineSourceAnswers
//   ProviderClient    "ESO": ESO's SSAP service; "MAST": MAST's API
//   ReferenceSource   ADS when a token is configured, else SIMBAD's own
//                     bibliography of the object
//
// A client whose secret is absent is skipped, with the reason in
// Resolution::skipped (names) and in Archives::skipped() (logged once per
// cold start); the run decides from the others.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "novacat/domain/references.h"
#include "novacat/domain/resolver.h"
#include "novacat/domain/spectra.h"
#include "novacat/sources/http.h"

namespace novacat::sources {

// Where the archives' answers come from: `recorded` (the replay server over
// fixtures/archives/, the default of `novacat run` and the tests) or `live`
// (the real services, the default in Lambda). NOVACAT_SOURCES names it.
enum class SourcesMode { kRecorded, kLive };
inline constexpr char kSourcesModeVariable[] = "NOVACAT_SOURCES";
std::optional<SourcesMode> ParseSourcesMode(std::string_view text);
std::string_view ToString(SourcesMode mode);

// Each service's base URL: the real service's, replaced by its variable
// when that is set (UrlsFromEnvironment), or the replay server's.
struct ServiceUrls {
  std::string simbad;  // NOVACAT_SIMBAD_TAP_URL
  std::string vsx;     // NOVACAT_VSX_URL
  std::string tns;     // NOVACAT_TNS_URL
  std::string eso;     // NOVACAT_ESO_SSAP_URL
  std::string mast;    // NOVACAT_MAST_URL
  std::string ads;     // NOVACAT_ADS_URL
};

// The real services' base URLs.
ServiceUrls LiveUrls();
// `defaults` with each URL whose variable is set and not empty replaced.
ServiceUrls UrlsFromEnvironment(ServiceUrls defaults);
// The variable of each ServiceUrls member, in member order, with its
// replay-server service key ("simbad", ...): for messages and `novacat
// sources`.
struct ServiceVariable {
  std::string_view service;   // "simbad"
  std::string_view variable;  // "NOVACAT_SIMBAD_TAP_URL"
  std::string ServiceUrls::*url;
};
const std::vector<ServiceVariable>& ServiceVariables();

// The credentials of the services that need one. Never logged, never put
// in an event, a record or an exception's message.
struct SourceSecrets {
  std::string tns_api_key;
  std::string tns_bot_id;
  std::string tns_bot_name;
  std::string ads_token;
};

// NOVACAT_TNS_API_KEY / NOVACAT_TNS_BOT_ID / NOVACAT_TNS_BOT_NAME and
// NOVACAT_ADS_TOKEN when set; else the AWS Secrets Manager secrets whose ARN
// or name NOVACAT_TNS_SECRET ({"api_key", "bot_id", "bot_name"}) and
// NOVACAT_ADS_SECRET ({"token"}, or the token alone) give (read once, with
// the function's credentials). A secret that cannot be read throws
// runtime::RetryableError or TerminalError naming the variable, never the
// secret's value; one not configured stays empty.
SourceSecrets SecretsFromEnvironment();
// What the recorded answers need: placeholders (the TNS recordings name
// the key "novacat-recorded-tns-key"; ADS's are not matched on the token).
SourceSecrets RecordedSecrets();

// The configuration of one world's clients.
struct SourcesConfig {
  ServiceUrls urls;
  SourceSecrets secrets;
  // Whether requests keep the services' published pace (live); a replay
  // server needs none.
  bool paced = true;
};

// The services as the clients talk to them: names, timeouts and pace.
Service SimbadService(const SourcesConfig& config);
Service VsxService(const SourcesConfig& config);
Service TnsService(const SourcesConfig& config);
Service EsoService(const SourcesConfig& config);
Service MastService(const SourcesConfig& config);
Service AdsService(const SourcesConfig& config);

class Archives {
 public:
  // `clock` must outlive the clients.
  explicit Archives(const SourcesConfig& config, Clock& clock = SystemClock());
  ~Archives();
  Archives(const Archives&) = delete;
  Archives& operator=(const Archives&) = delete;

  domain::ArchiveResolver& resolver();
  domain::ProviderClient& providers();
  domain::ReferenceSource& references();
  // The clients skipped for want of a secret, each with its reason:
  // "TNS: no API key configured (NOVACAT_TNS_API_KEY or NOVACAT_TNS_SECRET)".
  const std::vector<std::string>& skipped() const;

 private:
  struct Clients;
  std::unique_ptr<Clients> clients_;
};

// Whether TNS is asked about a name: the designations transients carry
// before the catalogs know them ("AT 2021ABC", "SN 2021ABC", "TCP
// J21113658+4809030", "PNV J...", "ASASSN-21AB", "ZTF21...", "GAIA21...").
bool IsTransientDesignation(std::string_view normalized_name);

}  // namespace novacat::sources
