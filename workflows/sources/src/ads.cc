#include "novacat/sources/ads.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <utility>

#include "novacat/domain/failure.h"

namespace novacat::sources {

using domain::ClientError;
using domain::ClientFailure;
using nlohmann::json;

namespace {

constexpr char kAdsFields[] = "bibcode,title,pubdate,doctype,doi";
constexpr char kAdsSort[] = "date asc";

std::string AdsLowerCase(std::string_view text) {
  std::string out(text);
  for (char& c : out)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// A name as a Solr phrase: in quotes, with '"' and '\' escaped.
std::string AdsPhrase(std::string_view name) {
  std::string out = "\"";
  for (char c : name) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

// `text` with every occurrence of `secret` replaced by "<token>".
std::string RedactAdsToken(std::string text, const std::string& secret) {
  if (secret.empty()) return text;
  for (size_t at = text.find(secret); at != std::string::npos;
       at = text.find(secret, at + 7))
    text.replace(at, secret.size(), "<token>");
  return text;
}

std::optional<int64_t> AdsHeaderInteger(const std::string& text) {
  int64_t value = 0;
  auto [end, ec] =
      std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size())
    return std::nullopt;
  return value;
}

std::optional<domain::SourceQuota> AdsQuotaOf(const HttpReply& reply) {
  std::optional<int64_t> limit =
      AdsHeaderInteger(reply.Header("x-ratelimit-limit"));
  std::optional<int64_t> remaining =
      AdsHeaderInteger(reply.Header("x-ratelimit-remaining"));
  std::optional<int64_t> reset =
      AdsHeaderInteger(reply.Header("x-ratelimit-reset"));
  if (!limit || !remaining || !reset) return std::nullopt;
  return domain::SourceQuota{
      .limit = *limit, .remaining = *remaining, .reset = *reset};
}

[[noreturn]] void AdsMalformed(const std::string& name,
                               const std::string& what) {
  throw ClientError(ClientFailure::kMalformedResponse,
                    name + ": malformed answer: " + what);
}

// A string member, or the first item of a list member, when it is a
// non-empty string.
std::optional<std::string> AdsFirstString(const json& doc, const char* member) {
  auto it = doc.find(member);
  if (it == doc.end()) return std::nullopt;
  const json* value = &*it;
  if (value->is_array()) {
    if (value->empty()) return std::nullopt;
    value = &value->front();
  }
  if (!value->is_string() || value->get_ref<const std::string&>().empty())
    return std::nullopt;
  return value->get<std::string>();
}

// The reference candidate of one ADS record (ads.h); `at` names the record
// in messages.
json AdsCandidate(const json& doc, const std::string& name,
                  const std::string& at) {
  if (!doc.is_object()) AdsMalformed(name, at + " is not an object");
  auto bibcode = doc.find("bibcode");
  if (bibcode == doc.end() || !bibcode->is_string() ||
      bibcode->get_ref<const std::string&>().empty())
    AdsMalformed(name, at + " has no bibcode");
  std::optional<std::string> doctype = AdsFirstString(doc, "doctype");
  json candidate = {{"source", "ADS"}, {"bibcode", *bibcode}};
  if (auto doi = AdsFirstString(doc, "doi")) candidate["doi"] = *doi;
  if (auto title = AdsFirstString(doc, "title")) candidate["title"] = *title;
  if (auto pubdate = AdsFirstString(doc, "pubdate"))
    candidate["publication_date"] = *pubdate;
  candidate["role"] = std::string(domain::ToString(domain::PublicationRole(
      bibcode->get_ref<const std::string&>(), doctype.value_or(""))));
  if (doctype) candidate["doctype"] = *doctype;
  return candidate;
}

}  // namespace

std::string AdsObjectQuery(const std::vector<std::string>& names) {
  std::vector<std::string> seen;
  std::vector<std::string> phrases;
  for (const std::string& name : names) {
    if (name.find_first_not_of(" \t") == std::string::npos) continue;
    std::string key = AdsLowerCase(name);
    if (std::find(seen.begin(), seen.end(), key) != seen.end()) continue;
    seen.push_back(std::move(key));
    phrases.push_back(AdsPhrase(name));
  }
  if (phrases.empty()) return "";
  if (phrases.size() == 1) return "object:" + phrases.front();
  std::string q = "object:(";
  for (size_t i = 0; i < phrases.size(); ++i)
    q += (i ? " OR " : "") + phrases[i];
  return q + ")";
}

Ads::Ads(Service service, std::string token, Clock& clock)
    : http_(std::move(service), clock),
      token_(std::move(token)),
      clock_(clock) {}

std::pair<json, std::optional<domain::SourceQuota>> Ads::Page(
    const std::string& q, int64_t start, int64_t budget_ms) {
  const std::string& name = http_.service().name;
  HttpRequest request;
  request.path = "/search/query";
  request.params = {{"q", q},
                    {"fl", kAdsFields},
                    {"sort", kAdsSort},
                    {"rows", std::to_string(kAdsRows)},
                    {"start", std::to_string(start)}};
  request.headers = {"Authorization: Bearer " + token_,
                     "Accept: application/json"};
  request.budget_ms = budget_ms;
  HttpReply reply;
  try {
    reply = http_.Fetch(request);
  } catch (const ClientError& e) {
    // The service's own message is quoted: it must not carry the token.
    throw ClientError(e.failure(), RedactAdsToken(e.what(), token_));
  }
  json body = json::parse(reply.body, nullptr, false);
  if (body.is_discarded()) AdsMalformed(name, "not JSON");
  const json* response = body.is_object() && body.contains("response")
                             ? &body["response"]
                             : nullptr;
  if (!response || !response->is_object())
    AdsMalformed(name, "no response object");
  if (!response->contains("docs") || !(*response)["docs"].is_array())
    AdsMalformed(name, "response.docs is not a list");
  if (!response->contains("numFound") ||
      !(*response)["numFound"].is_number_integer() ||
      (*response)["numFound"].get<int64_t>() < 0)
    AdsMalformed(name, "response.numFound is not a count");
  return {std::move(body["response"]), AdsQuotaOf(reply)};
}

domain::ReferenceAnswer Ads::Fetch(const domain::ReferenceQuery& query) {
  using std::chrono::duration_cast;
  using std::chrono::milliseconds;
  const std::string& name = http_.service().name;
  const std::string q = AdsObjectQuery(query.names);
  if (q.empty())
    throw ClientError(
        ClientFailure::kInvalidRequest,
        name + ": no name to search for (nova " + query.nova_id + ")");
  if (token_.empty())
    throw ClientError(ClientFailure::kInvalidRequest,
                      name + ": no API token configured");
  const auto begin = clock_.Now();
  domain::ReferenceAnswer answer{.source = name, .candidates = {}, .quota = {}};
  std::vector<json>& candidates = answer.candidates;
  for (int64_t start = 0; start < kAdsMaxRecords;) {
    int64_t spent = duration_cast<milliseconds>(clock_.Now() - begin).count();
    auto [response, quota] = Page(q, start, query.budget_ms - spent);
    answer.quota = quota;
    const json& docs = response["docs"];
    for (size_t i = 0; i < docs.size() &&
                       candidates.size() < static_cast<size_t>(kAdsMaxRecords);
         ++i) {
      candidates.push_back(AdsCandidate(
          docs[i], name, "response.docs[" + std::to_string(start + i) + "]"));
    }
    start += static_cast<int64_t>(docs.size());
    // The last page: ADS has no more, or answered an empty page (a count
    // that changed under us must not loop).
    if (docs.empty() || start >= response["numFound"].get<int64_t>()) break;
  }
  return answer;
}

}  // namespace novacat::sources
