#include "novacat/domain/spectra.h"

#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <set>
#include <type_traits>

#include "internal.h"
#include "novacat/domain/uuid.h"

namespace novacat::domain {

using internal::DaysInMonth;
using internal::Describe;
using internal::Digits;
using internal::IndexPath;
using internal::Quote;
using internal::TypeName;
using nlohmann::json;

// --- Providers ---------------------------------------------------------------

bool IsKnownProvider(std::string_view provider) {
  for (std::string_view p : kDefaultProviders) {
    if (p == provider) return true;
  }
  return false;
}

std::string KnownProviders() {
  std::string list;
  for (std::string_view p : kDefaultProviders) {
    list += (list.empty() ? "" : ", ") + std::string(p);
  }
  return list;
}

std::vector<std::string> ResolveProviders(
    const std::optional<std::vector<std::string>>& requested) {
  if (!requested) {
    return std::vector<std::string>(kDefaultProviders.begin(),
                                    kDefaultProviders.end());
  }
  if (requested->empty()) {
    throw ProviderError(
        ProviderFailure::kEmptyList,
        "invalid provider list: providers is empty (omit it to query every "
        "provider)");
  }
  std::set<std::string> seen;
  for (size_t i = 0; i < requested->size(); ++i) {
    const std::string& p = (*requested)[i];
    std::string where =
        "invalid provider list: " + IndexPath("providers", i) + " " + Quote(p);
    if (!IsKnownProvider(p)) {
      throw ProviderError(
          ProviderFailure::kUnknownProvider,
          where + " is not a known provider (known: " + KnownProviders() + ")");
    }
    if (!seen.insert(p).second) {
      throw ProviderError(ProviderFailure::kDuplicateProvider,
                          where + " is listed twice");
    }
  }
  return *requested;
}

// --- Normalization -----------------------------------------------------------

namespace {

struct ProviderSchema {
  std::string_view provider;
  std::string_view timestamp;  // required: an MJD (UTC)
  std::string_view url;        // "" when the provider has no such member
  std::string_view size;
  std::string_view key;
  std::string_view instrument;
  // Bytes per unit of `size`: ESO's SSAP gives kbyte (1000 bytes).
  int64_t size_unit = 1;
  // Every provider may give the product's SHA-256 (64 hex digits).
  std::string_view checksum = "sha256";
};

constexpr std::array<ProviderSchema, 2> kSchemas = {{
    {.provider = "ESO",
     .timestamp = "t_min",
     .url = "access_url",
     .size = "access_estsize",
     .key = "dp_id",
     .instrument = "COLLECTION",
     .size_unit = 1000},
    {.provider = "MAST",
     .timestamp = "t_min",
     .url = "dataURL",
     .size = "size",
     .key = "obs_id",
     .instrument = "instrument_name"},
}};

bool IsSha256Hex(std::string_view text) {
  return text.size() == 64 &&
         text.find_first_not_of("0123456789abcdef") == std::string_view::npos;
}

const ProviderSchema* FindSchema(std::string_view provider) {
  for (const ProviderSchema& s : kSchemas) {
    if (s.provider == provider) return &s;
  }
  return nullptr;
}

// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's
// days_from_civil).
int64_t DaysFromCivil(int64_t y, int64_t m, int64_t d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const int64_t yoe = y - era * 400;
  const int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

// Seconds since the Unix epoch (UTC, fraction truncated) of an ISO 8601
// date-time: YYYY-MM-DD, "T" or one space, hh:mm:ss, an optional fraction
// and an optional zone (Z or +hh:mm / -hh:mm; none means UTC); nullopt if
// invalid. IsRfc3339DateTime narrows it.
std::optional<int64_t> ParseIsoDateTime(std::string_view t) {
  if (t.size() < 19 || t[4] != '-' || t[7] != '-' ||
      (t[10] != 'T' && t[10] != ' ') || t[13] != ':' || t[16] != ':') {
    return std::nullopt;
  }
  int64_t y = Digits(t, 0, 4), mo = Digits(t, 5, 2), d = Digits(t, 8, 2);
  int64_t h = Digits(t, 11, 2), mi = Digits(t, 14, 2), s = Digits(t, 17, 2);
  if (y < 1 || mo < 1 || mo > 12 || d < 1 || h < 0 || h > 23 || mi < 0 ||
      mi > 59 || s < 0 || s > 59 || d > DaysInMonth(y, mo)) {
    return std::nullopt;
  }
  size_t pos = 19;
  if (pos < t.size() && t[pos] == '.') {
    size_t start = ++pos;
    while (pos < t.size() && t[pos] >= '0' && t[pos] <= '9') ++pos;
    if (pos == start) return std::nullopt;
  }
  int64_t offset = 0;
  if (pos < t.size()) {
    if ((t[pos] == 'Z' || t[pos] == 'z') && pos + 1 == t.size()) {
      pos = t.size();
    } else if ((t[pos] == '+' || t[pos] == '-') && pos + 6 == t.size() &&
               t[pos + 3] == ':') {
      int64_t oh = Digits(t, pos + 1, 2), om = Digits(t, pos + 4, 2);
      if (oh < 0 || oh > 23 || om < 0 || om > 59) return std::nullopt;
      offset = (oh * 60 + om) * 60 * (t[pos] == '-' ? -1 : 1);
    } else {
      return std::nullopt;
    }
  }
  return DaysFromCivil(y, mo, d) * 86400 + h * 3600 + mi * 60 + s - offset;
}

// Seconds since the Unix epoch of an MJD (UTC): rounded to the millisecond
// first, so that an MJD meaning a whole second is not truncated to the one
// before by binary rounding, then truncated to the second.
int64_t MjdToUnixSeconds(double mjd) {
  double ms = std::round((mjd - 40587.0) * 86400.0 * 1000.0);
  return static_cast<int64_t>(std::floor(ms / 1000.0));
}

// The proleptic Gregorian date of a day count since 1970-01-01 (H.
// Hinnant's civil_from_days).
void CivilFromDays(int64_t z, int64_t* y, int64_t* m, int64_t* d) {
  z += 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const int64_t doe = z - era * 146097;
  const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const int64_t mp = (5 * doy + 2) / 153;
  *d = doy - (153 * mp + 2) / 5 + 1;
  *m = mp + (mp < 10 ? 3 : -9);
  *y = yoe + era * 400 + (*m <= 2);
}

// "YYYY-MM-DDThh:mm:ssZ" of seconds since the Unix epoch.
std::string FormatUtc(int64_t seconds) {
  int64_t days = seconds / 86400 - (seconds % 86400 < 0);
  int64_t second_of_day = seconds - days * 86400;
  int64_t y, m, d;
  CivilFromDays(days, &y, &m, &d);
  char buffer[40];
  std::snprintf(buffer, sizeof buffer, "%04d-%02d-%02dT%02d:%02d:%02dZ",
                static_cast<int>(y), static_cast<int>(m), static_cast<int>(d),
                static_cast<int>(second_of_day / 3600),
                static_cast<int>(second_of_day / 60 % 60),
                static_cast<int>(second_of_day % 60));
  return buffer;
}

// An RFC 3339 date-time: an ISO 8601 one (ParseIsoDateTime) with "T" (or
// "t") and a zone.
bool IsRfc3339DateTime(std::string_view t) {
  if (t.size() < 20 || (t[10] != 'T' && t[10] != 't')) return false;
  const bool zone = t.back() == 'Z' || t.back() == 'z' ||
                    t[t.size() - 6] == '+' || t[t.size() - 6] == '-';
  std::string upper(t);
  upper[10] = 'T';
  return zone && ParseIsoDateTime(upper).has_value();
}

bool IsUrl(std::string_view url) {
  std::string_view rest;
  for (std::string_view scheme : {"https://", "http://", "ftp://"}) {
    if (url.substr(0, scheme.size()) == scheme) {
      rest = url.substr(scheme.size());
      break;
    }
  }
  if (rest.empty() || rest.front() == '/') return false;
  for (char c : url) {
    if (static_cast<unsigned char>(c) <= 0x20 || c == 0x7F) return false;
  }
  return true;
}

class RecordReader {
 public:
  RecordReader(const ProviderSchema& schema, const json& record,
               std::string path)
      : schema_(schema), record_(record), path_(std::move(path)) {}

  [[noreturn]] void Malformed(std::string_view member,
                              std::string_view message) const {
    throw ProductError(ProductFailure::kMalformedRecord,
                       "malformed " + std::string(schema_.provider) +
                           " record " + path_ + ": " + std::string(member) +
                           (member.empty() ? "" : " ") + std::string(message));
  }

  // The member, or nullptr when absent or null.
  const json* Get(std::string_view member) const {
    if (member.empty()) return nullptr;
    auto it = record_.find(std::string(member));
    if (it == record_.end() || it->is_null()) return nullptr;
    return &*it;
  }

  std::optional<std::string> String(std::string_view member) const {
    const json* v = Get(member);
    if (v == nullptr) return std::nullopt;
    if (!v->is_string() || v->get_ref<const std::string&>().empty()) {
      Malformed(member, "must be a non-empty string, got " + Describe(*v));
    }
    return v->get<std::string>();
  }

 private:
  const ProviderSchema& schema_;
  const json& record_;
  std::string path_;
};

NormalizedProduct NormalizeRecord(const ProviderSchema& schema,
                                  const json& record, const std::string& path) {
  RecordReader r(schema, record, path);
  if (!record.is_object()) {
    r.Malformed("", "must be an object, got " + TypeName(record));
  }
  std::vector<std::string_view> fields;
  for (std::string_view f : {schema.timestamp, schema.url, schema.size,
                             schema.key, schema.instrument}) {
    if (!f.empty()) fields.push_back(f);
  }
  bool any = false;
  for (std::string_view f : fields) any = any || record.contains(f);
  if (!any) {
    std::string expected, members;
    for (std::string_view f : fields) {
      expected += (expected.empty() ? "" : ", ") + std::string(f);
    }
    for (const auto& [key, value] : record.items()) {
      members += (members.empty() ? "" : ", ") + key;
    }
    throw ProductError(ProductFailure::kUnknownSchemaVariant,
                       "unknown schema variant in " +
                           std::string(schema.provider) + " record " + path +
                           ": none of " + expected + " is present (members: " +
                           (members.empty() ? "none" : members) + ")");
  }

  NormalizedProduct p;
  p.provider = std::string(schema.provider);
  const json* ts = r.Get(schema.timestamp);
  if (ts == nullptr) r.Malformed(schema.timestamp, "is missing");
  if (!ts->is_number() || !std::isfinite(ts->get<double>()) ||
      ts->get<double>() <= 0 || ts->get<double>() >= 100000) {
    r.Malformed(schema.timestamp,
                "must be an MJD number in (0, 100000), got " + Describe(*ts));
  }
  p.product_timestamp = FormatUtc(MjdToUnixSeconds(ts->get<double>()));

  p.url = r.String(schema.url);
  if (p.url && !IsUrl(*p.url)) {
    r.Malformed(
        schema.url,
        "must be an http(s) or ftp URL without spaces, got " + Quote(*p.url));
  }
  if (const json* size = r.Get(schema.size)) {
    const char* unit = schema.size_unit == 1 ? "bytes" : "kbyte";
    if (!size->is_number_integer() || size->get<int64_t>() <= 0 ||
        size->get<int64_t>() >
            std::numeric_limits<int64_t>::max() / schema.size_unit) {
      r.Malformed(schema.size, std::string("must be a positive integer (") +
                                   unit + "), got " + Describe(*size));
    }
    p.size_bytes = size->get<int64_t>() * schema.size_unit;
  }
  if (const json* key = r.Get(schema.key)) {
    if (key->is_number_integer() && key->get<int64_t>() >= 0) {
      p.provider_key = std::to_string(key->get<int64_t>());
    } else {
      p.provider_key = r.String(schema.key);
    }
  }
  p.instrument = r.String(schema.instrument);
  p.sha256 = r.String(schema.checksum);
  if (p.sha256 && !IsSha256Hex(*p.sha256)) {
    r.Malformed(schema.checksum,
                "must be 64 lower-case hex digits, got " + Quote(*p.sha256));
  }
  return p;
}

}  // namespace

json NormalizedProduct::ToJson() const {
  json j = json::object();
  j["provider"] = provider;
  j["product_timestamp"] = product_timestamp;
  if (url) j["url"] = *url;
  if (size_bytes) j["size_bytes"] = *size_bytes;
  if (provider_key) j["provider_key"] = *provider_key;
  if (instrument) j["instrument"] = *instrument;
  if (sha256) j["sha256"] = *sha256;
  return j;
}

NormalizedProduct NormalizedProduct::FromJson(const json& j,
                                              std::string_view path) {
  auto fail = [&](std::string_view member, const std::string& message) {
    throw ProductError(ProductFailure::kInvalidNormalizedProduct,
                       "invalid normalized product " + std::string(path) +
                           (member.empty() ? "" : "." + std::string(member)) +
                           ": " + message);
  };
  if (!j.is_object()) fail("", "must be an object, got " + TypeName(j));
  for (const auto& [key, value] : j.items()) {
    if (key != "provider" && key != "product_timestamp" && key != "url" &&
        key != "size_bytes" && key != "provider_key" && key != "instrument" &&
        key != "sha256") {
      fail(key, "unknown member");
    }
  }
  auto string = [&](std::string_view member,
                    bool required) -> std::optional<std::string> {
    auto it = j.find(std::string(member));
    if (it == j.end()) {
      if (required) fail(member, "is missing");
      return std::nullopt;
    }
    if (!it->is_string() || it->get_ref<const std::string&>().empty()) {
      fail(member, "must be a non-empty string, got " + Describe(*it));
    }
    return it->get<std::string>();
  };
  NormalizedProduct p;
  p.provider = *string("provider", true);
  p.product_timestamp = *string("product_timestamp", true);
  if (!IsRfc3339DateTime(p.product_timestamp)) {
    fail("product_timestamp",
         "must be an RFC 3339 date-time, got " + Quote(p.product_timestamp));
  }
  p.url = string("url", false);
  if (auto it = j.find("size_bytes"); it != j.end()) {
    if (!it->is_number_integer() || it->get<int64_t>() <= 0) {
      fail("size_bytes", "must be a positive integer, got " + Describe(*it));
    }
    p.size_bytes = it->get<int64_t>();
  }
  p.provider_key = string("provider_key", false);
  p.instrument = string("instrument", false);
  p.sha256 = string("sha256", false);
  if (p.sha256 && !IsSha256Hex(*p.sha256)) {
    fail("sha256", "must be 64 lower-case hex digits, got " + Quote(*p.sha256));
  }
  return p;
}

std::vector<NormalizedProduct> NormalizeProviderRecords(
    std::string_view provider, const std::vector<json>& records) {
  const ProviderSchema* schema = FindSchema(provider);
  if (schema == nullptr) {
    throw ProviderError(ProviderFailure::kNoRecordSchema,
                        "no record schema for provider " + Quote(provider) +
                            " (known: " + KnownProviders() + ")");
  }
  std::vector<NormalizedProduct> products;
  products.reserve(records.size());
  for (size_t i = 0; i < records.size(); ++i) {
    products.push_back(
        NormalizeRecord(*schema, records[i], IndexPath("products", i)));
  }
  return products;
}

// --- Identity ----------------------------------------------------------------

std::string DatasetIdentity(const NormalizedProduct& product,
                            std::string_view path) {
  std::string identity = "provider=" + product.provider +
                         "|product_timestamp=" + product.product_timestamp +
                         "|";
  if (product.url) return identity + "url=" + *product.url;
  if (product.size_bytes) {
    return identity + "size=" + std::to_string(*product.size_bytes);
  }
  if (product.provider_key)
    return identity + "provider_key=" + *product.provider_key;
  throw ProductError(ProductFailure::kAmbiguousIdentity,
                     "ambiguous product identity: " + std::string(path) + " (" +
                         product.provider + " at " + product.product_timestamp +
                         ") has none of url, size, provider_key");
}

std::string DatasetId(std::string_view dataset_identity) {
  return UuidV5(kDatasetIdNamespace, dataset_identity);
}

std::string DatasetDedupeKey(std::string_view dataset_identity,
                             int64_t schema_version) {
  return "DatasetIdentity:" + std::string(dataset_identity) + ":" +
         std::to_string(schema_version);
}

namespace {

// The first member in which `a` and `b` differ, as "name (a vs b)".
std::string Difference(const NormalizedProduct& a, const NormalizedProduct& b) {
  auto text = [](const auto& v) -> std::string {
    if (!v) return "absent";
    if constexpr (std::is_same_v<std::decay_t<decltype(*v)>, int64_t>) {
      return std::to_string(*v);
    } else {
      return Quote(*v);
    }
  };
  if (a.url != b.url) return "url (" + text(a.url) + " vs " + text(b.url) + ")";
  if (a.size_bytes != b.size_bytes) {
    return "size_bytes (" + text(a.size_bytes) + " vs " + text(b.size_bytes) +
           ")";
  }
  if (a.provider_key != b.provider_key) {
    return "provider_key (" + text(a.provider_key) + " vs " +
           text(b.provider_key) + ")";
  }
  if (a.instrument != b.instrument) {
    return "instrument (" + text(a.instrument) + " vs " + text(b.instrument) +
           ")";
  }
  return "sha256 (" + text(a.sha256) + " vs " + text(b.sha256) + ")";
}

}  // namespace

std::vector<IdentifiedProduct> AssignDatasetIdentities(
    const std::vector<NormalizedProduct>& products, int64_t schema_version) {
  std::vector<IdentifiedProduct> out;
  std::map<std::string, size_t> first_index;  // identity -> products index
  for (size_t i = 0; i < products.size(); ++i) {
    std::string path = IndexPath("normalized_products", i);
    std::string identity = DatasetIdentity(products[i], path);
    auto [it, inserted] = first_index.emplace(identity, i);
    if (!inserted) {
      const NormalizedProduct& earlier = products[it->second];
      if (earlier == products[i]) continue;
      throw ProductError(ProductFailure::kAmbiguousIdentity,
                         "ambiguous product identity: " +
                             IndexPath("normalized_products", it->second) +
                             " and " + path + " share dataset_identity " +
                             Quote(identity) + " but differ in " +
                             Difference(earlier, products[i]));
    }
    out.push_back({products[i], identity, DatasetId(identity),
                   DatasetDedupeKey(identity, schema_version)});
  }
  return out;
}

// --- Summary -----------------------------------------------------------------

json ProviderSummary::ToJson() const {
  return json{{"provider", provider},
              {"dataset_count_new", dataset_count_new},
              {"dataset_count_existing", dataset_count_existing},
              {"quarantined", quarantined}};
}

json QuarantinedProvider::ToJson() const {
  return json{{"provider", provider},
              {"error_classification", error_classification},
              {"quarantine_reason", quarantine_reason}};
}

DiscoverySummary SummarizeDiscovery(const std::vector<json>& provider_results) {
  DiscoverySummary summary;
  std::set<std::string> seen;
  for (size_t i = 0; i < provider_results.size(); ++i) {
    const json& result = provider_results[i];
    std::string path = IndexPath("provider_results", i);
    auto fail = [&](std::string_view member, const std::string& message) {
      throw ProductError(ProductFailure::kInvalidProviderResult,
                         "invalid provider result " + path +
                             (member.empty() ? "" : "." + std::string(member)) +
                             ": " + message);
    };
    if (!result.is_object())
      fail("", "must be an object, got " + TypeName(result));
    ProviderSummary s;
    auto provider = result.find("provider");
    if (provider == result.end() || !provider->is_string() ||
        provider->get_ref<const std::string&>().empty()) {
      fail("provider", "must be a non-empty string");
    }
    s.provider = provider->get<std::string>();
    if (auto q = result.find("quarantined"); q != result.end()) {
      if (!q->is_boolean()) {
        fail("quarantined", "must be true or false, got " + Describe(*q));
      }
      s.quarantined = q->get<bool>();
    }
    for (std::string_view member :
         {"new_dataset_ids", "existing_dataset_ids"}) {
      auto ids = result.find(std::string(member));
      if (ids == result.end() || ids->is_null()) continue;
      if (!ids->is_array()) {
        fail(member, "must be an array, got " + TypeName(*ids));
      }
      for (size_t k = 0; k < ids->size(); ++k) {
        const json& id = (*ids)[k];
        if (!id.is_string() || !IsUuid(id.get<std::string>())) {
          fail(IndexPath(member, k), "must be a UUID, got " + Describe(id));
        }
        (member == "new_dataset_ids" ? s.dataset_count_new
                                     : s.dataset_count_existing)++;
        if (seen.insert(id.get<std::string>()).second) {
          summary.dataset_ids.push_back(id.get<std::string>());
        }
      }
    }
    summary.dataset_count_new += s.dataset_count_new;
    summary.dataset_count_existing += s.dataset_count_existing;
    summary.quarantined_count += s.quarantined ? 1 : 0;
    if (s.quarantined) {
      QuarantinedProvider failure;
      failure.provider = s.provider;
      for (auto [member, to] :
           {std::pair{"error_classification", &failure.error_classification},
            std::pair{"quarantine_reason", &failure.quarantine_reason}}) {
        auto text = result.find(member);
        if (text == result.end() || !text->is_string() ||
            text->get_ref<const std::string&>().empty())
          fail(member,
               "must be a non-empty string (the provider is "
               "quarantined)");
        *to = text->get<std::string>();
      }
      summary.provider_failures.push_back(std::move(failure));
    }
    summary.provider_summaries.push_back(std::move(s));
  }
  return summary;
}

std::optional<std::string> DownloadLocator(std::string_view provider,
                                           const json& locators) {
  if (!locators.is_object()) return std::nullopt;
  if (auto url = locators.find("url");
      url != locators.end() && url->is_string() &&
      !url->get_ref<const std::string&>().empty()) {
    return url->get<std::string>();
  }
  auto key = locators.find("provider_key");
  if (provider == "ESO" && key != locators.end() && key->is_string() &&
      !key->get_ref<const std::string&>().empty()) {
    return std::string(kEsoFileEndpoint) + key->get<std::string>();
  }
  return std::nullopt;
}

}  // namespace novacat::domain
