#include "novacat/sources/archives.h"

#include <cctype>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "novacat/aws/json_client.h"
#include "novacat/runtime/errors.h"
#include "novacat/sources/ads.h"
#include "novacat/sources/eso_ssap.h"
#include "novacat/sources/mast.h"
#include "novacat/sources/simbad.h"
#include "novacat/sources/tns.h"
#include "novacat/sources/vsx.h"

namespace novacat::sources {

// The adapters Archives::Clients holds (a named namespace: a member of a
// class with external linkage must not have a type of an anonymous one).
namespace archives_internal {

class ArchivesResolver : public domain::ArchiveResolver {
 public:
  ArchivesResolver(SimbadTap& simbad, Vsx& vsx, Tns* tns,
                   std::vector<std::string> skipped)
      : simbad_(simbad), vsx_(vsx), tns_(tns), skipped_(std::move(skipped)) {}

  domain::Resolution Resolve(std::string_view name,
                             int64_t budget_ms) override {
    std::vector<domain::SourceAnswer> answers;
    answers.push_back(simbad_.Identify(name, budget_ms));
    answers.push_back(vsx_.Identify(name, budget_ms));
    bool transient = IsTransientDesignation(name);
    if (transient && tns_) answers.push_back(tns_->Identify(name, budget_ms));
    domain::Resolution resolution = domain::CombineSourceAnswers(name, answers);
    if (transient && !tns_) resolution.skipped = skipped_;
    return resolution;
  }

 private:
  SimbadTap& simbad_;
  Vsx& vsx_;
  Tns* tns_;
  std::vector<std::string> skipped_;
};

class ArchiveProviders : public domain::ProviderClient {
 public:
  ArchiveProviders(EsoSsap& eso, Mast& mast) : eso_(eso), mast_(mast) {}

  std::vector<nlohmann::json> Query(
      const domain::ProviderQuery& query) override {
    if (query.provider == "ESO") return eso_.Query(query);
    if (query.provider == "MAST") return mast_.Query(query);
    throw domain::ClientError(
        domain::ClientFailure::kInvalidRequest,
        "no client for provider \"" + query.provider + "\"");
  }

 private:
  EsoSsap& eso_;
  Mast& mast_;
};

class ArchiveReferences : public domain::ReferenceSource {
 public:
  ArchiveReferences(Ads* ads, SimbadTap& simbad) : ads_(ads), simbad_(simbad) {}

  domain::ReferenceAnswer Fetch(const domain::ReferenceQuery& query) override {
    if (ads_) return ads_->Fetch(query);
    return {.source = std::string(kSimbadSource),
            .candidates = simbad_.Bibliography(query),
            .quota = std::nullopt};
  }

 private:
  Ads* ads_;
  SimbadTap& simbad_;
};

}  // namespace archives_internal

namespace {

std::string Env(const char* name) {
  const char* value = std::getenv(name);
  return value ? value : "";
}

// Each service's pace when live: SIMBAD asks for no more than a few
// queries a second, TNS's bot limits are per minute; the others publish
// daily quotas (ADS) or none, and get SIMBAD's pace out of courtesy.
Service Make(const SourcesConfig& config, std::string name, std::string url,
             int64_t pace_ms) {
  Service s;
  s.name = std::move(name);
  s.base_url = std::move(url);
  s.min_interval_ms = config.paced ? pace_ms : 0;
  return s;
}

std::string ReadSecret(const char* variable) {
  std::string id = Env(variable);
  if (id.empty()) return "";
  aws::JsonService service{"Secrets Manager",
                           "secretsmanager",
                           "AWS_ENDPOINT_URL_SECRETS_MANAGER",
                           "secretsmanager",
                           "1.1",
                           {"ThrottlingException", "InternalServiceError"}};
  aws::JsonClient client(service, aws::ClientOptions{});
  aws::JsonClient::Answer answer =
      client.Call("GetSecretValue", {{"SecretId", id}},
                  std::string("reading the secret ") + variable + " names");
  const nlohmann::json& text = answer.body["SecretString"];
  if (!text.is_string())
    throw runtime::TerminalError(std::string("the secret ") + variable +
                                 " names has no SecretString");
  return text.get<std::string>();
}

// A secret's member: the secret is a JSON object holding it, or, for a
// one-value secret (`member_alone`), the value itself.
std::string Member(const std::string& secret, const char* variable,
                   const char* member, bool member_alone) {
  nlohmann::json doc = nlohmann::json::parse(secret, nullptr, false);
  if (doc.is_object() && doc.contains(member) && doc[member].is_string())
    return doc[member].get<std::string>();
  if (doc.is_object() && doc.contains(member) &&
      doc[member].is_number_integer())
    return std::to_string(doc[member].get<int64_t>());
  if (member_alone && !doc.is_object()) return secret;
  throw runtime::TerminalError(std::string("the secret ") + variable +
                               " names has no \"" + member + "\" member");
}

}  // namespace

std::optional<SourcesMode> ParseSourcesMode(std::string_view text) {
  if (text == "recorded") return SourcesMode::kRecorded;
  if (text == "live") return SourcesMode::kLive;
  return std::nullopt;
}

std::string_view ToString(SourcesMode mode) {
  return mode == SourcesMode::kRecorded ? "recorded" : "live";
}

ServiceUrls LiveUrls() {
  return ServiceUrls{"https://simbad.cds.unistra.fr/simbad/sim-tap",
                     "https://www.aavso.org/vsx",
                     "https://www.wis-tns.org/api",
                     "http://archive.eso.org/ssap",
                     "https://mast.stsci.edu/api/v0",
                     "https://api.adsabs.harvard.edu/v1"};
}

const std::vector<ServiceVariable>& ServiceVariables() {
  static const std::vector<ServiceVariable> variables = {
      {"simbad", "NOVACAT_SIMBAD_TAP_URL", &ServiceUrls::simbad},
      {"vsx", "NOVACAT_VSX_URL", &ServiceUrls::vsx},
      {"tns", "NOVACAT_TNS_URL", &ServiceUrls::tns},
      {"eso", "NOVACAT_ESO_SSAP_URL", &ServiceUrls::eso},
      {"mast", "NOVACAT_MAST_URL", &ServiceUrls::mast},
      {"ads", "NOVACAT_ADS_URL", &ServiceUrls::ads}};
  return variables;
}

ServiceUrls UrlsFromEnvironment(ServiceUrls defaults) {
  for (const ServiceVariable& v : ServiceVariables()) {
    std::string value = Env(std::string(v.variable).c_str());
    if (!value.empty()) defaults.*v.url = value;
  }
  return defaults;
}

SourceSecrets SecretsFromEnvironment() {
  SourceSecrets s;
  s.tns_api_key = Env("NOVACAT_TNS_API_KEY");
  s.tns_bot_id = Env("NOVACAT_TNS_BOT_ID");
  s.tns_bot_name = Env("NOVACAT_TNS_BOT_NAME");
  if (s.tns_api_key.empty()) {
    if (std::string secret = ReadSecret("NOVACAT_TNS_SECRET");
        !secret.empty()) {
      s.tns_api_key = Member(secret, "NOVACAT_TNS_SECRET", "api_key", false);
      s.tns_bot_id = Member(secret, "NOVACAT_TNS_SECRET", "bot_id", false);
      s.tns_bot_name = Member(secret, "NOVACAT_TNS_SECRET", "bot_name", false);
    }
  }
  s.ads_token = Env("NOVACAT_ADS_TOKEN");
  if (s.ads_token.empty()) {
    if (std::string secret = ReadSecret("NOVACAT_ADS_SECRET"); !secret.empty())
      s.ads_token = Member(secret, "NOVACAT_ADS_SECRET", "token", true);
  }
  return s;
}

SourceSecrets RecordedSecrets() {
  return SourceSecrets{"novacat-recorded-tns-key", "0", "novacat_recorded",
                       "novacat-recorded-ads-token"};
}

Service SimbadService(const SourcesConfig& c) {
  return Make(c, "SIMBAD", c.urls.simbad, 200);
}
Service VsxService(const SourcesConfig& c) {
  return Make(c, "VSX", c.urls.vsx, 200);
}
Service TnsService(const SourcesConfig& c) {
  return Make(c, "TNS", c.urls.tns, 1000);
}
Service EsoService(const SourcesConfig& c) {
  return Make(c, "ESO SSAP", c.urls.eso, 200);
}
Service MastService(const SourcesConfig& c) {
  return Make(c, "MAST", c.urls.mast, 200);
}
Service AdsService(const SourcesConfig& c) {
  return Make(c, "ADS", c.urls.ads, 200);
}

bool IsTransientDesignation(std::string_view name) {
  // "AT 2021ABC", "SN 1987A": a year follows the space, for a variable
  // star's GCVS name may begin with "AT " too ("AT CNC").
  for (std::string_view prefix : {"AT ", "SN "}) {
    if (name.substr(0, prefix.size()) == prefix &&
        name.size() > prefix.size() &&
        std::isdigit(static_cast<unsigned char>(name[prefix.size()])))
      return true;
  }
  for (std::string_view prefix :
       {"AT20", "SN20", "TCP J", "PNV J", "ASASSN-", "ZTF", "GAIA", "ATLAS"}) {
    if (name.substr(0, prefix.size()) == prefix) return true;
  }
  return false;
}

using archives_internal::ArchiveProviders;
using archives_internal::ArchiveReferences;
using archives_internal::ArchivesResolver;

struct Archives::Clients {
  Clients(const SourcesConfig& c, Clock& clock)
      : simbad(SimbadService(c), clock),
        vsx(VsxService(c), clock),
        eso(EsoService(c), clock),
        mast(MastService(c), clock) {
    if (!c.secrets.tns_api_key.empty()) {
      tns = std::make_unique<Tns>(
          TnsService(c),
          TnsCredentials{c.secrets.tns_api_key, c.secrets.tns_bot_id,
                         c.secrets.tns_bot_name},
          clock);
    } else {
      skipped.push_back(
          "TNS: no API key configured (NOVACAT_TNS_API_KEY or "
          "NOVACAT_TNS_SECRET)");
    }
    if (!c.secrets.ads_token.empty()) {
      ads = std::make_unique<Ads>(AdsService(c), c.secrets.ads_token, clock);
    } else {
      skipped.push_back(
          "ADS: no token configured (NOVACAT_ADS_TOKEN or NOVACAT_ADS_SECRET); "
          "references come from SIMBAD's bibliography");
    }
    std::vector<std::string> tns_skipped;
    if (!tns) tns_skipped.push_back(skipped.front());
    resolver = std::make_unique<ArchivesResolver>(simbad, vsx, tns.get(),
                                                  std::move(tns_skipped));
    providers = std::make_unique<ArchiveProviders>(eso, mast);
    references = std::make_unique<ArchiveReferences>(ads.get(), simbad);
  }

  SimbadTap simbad;
  Vsx vsx;
  EsoSsap eso;
  Mast mast;
  std::unique_ptr<Tns> tns;
  std::unique_ptr<Ads> ads;
  std::vector<std::string> skipped;
  std::unique_ptr<ArchivesResolver> resolver;
  std::unique_ptr<ArchiveProviders> providers;
  std::unique_ptr<ArchiveReferences> references;
};

Archives::Archives(const SourcesConfig& config, Clock& clock)
    : clients_(std::make_unique<Clients>(config, clock)) {}
Archives::~Archives() = default;

domain::ArchiveResolver& Archives::resolver() { return *clients_->resolver; }
domain::ProviderClient& Archives::providers() { return *clients_->providers; }
domain::ReferenceSource& Archives::references() {
  return *clients_->references;
}
const std::vector<std::string>& Archives::skipped() const {
  return clients_->skipped;
}

}  // namespace novacat::sources
