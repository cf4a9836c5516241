#include "novacat/sources/tns.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <vector>

#include "novacat/domain/failure.h"

namespace novacat::sources {

using domain::ClientError;
using domain::ClientFailure;
using nlohmann::json;

namespace {

[[noreturn]] void TnsMalformed(const std::string& service,
                               const std::string& why) {
  throw ClientError(ClientFailure::kMalformedResponse, service + ": " + why);
}

// Whether TNS's "No results found" (message_id 110) is somewhere in `reply`.
bool TnsNoResult(const json& reply) {
  if (reply.is_object()) {
    for (const auto& [key, value] : reply.items()) {
      if (key == "110") return true;
      if (key == "message_id" && value == 110) return true;
      if (TnsNoResult(value)) return true;
    }
  } else if (reply.is_array()) {
    for (const json& value : reply)
      if (TnsNoResult(value)) return true;
  }
  return false;
}

std::optional<double> TnsDegrees(const json& object, const char* name,
                                 const std::string& service) {
  auto it = object.find(name);
  if (it == object.end() || it->is_null()) return std::nullopt;
  if (it->is_number()) {
    double value = it->get<double>();
    if (std::isfinite(value)) return value;
  } else if (it->is_string()) {
    const std::string& text = it->get_ref<const std::string&>();
    double value = 0;
    auto [stop, ec] =
        std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec == std::errc() && stop == text.data() + text.size() &&
        std::isfinite(value))
      return value;
  }
  TnsMalformed(service, std::string(name) + " is not a number: " + it->dump());
}

std::string TnsString(const json& object, const char* name) {
  auto it = object.find(name);
  return it != object.end() && it->is_string() ? it->get<std::string>() : "";
}

// "ZTF21abc, TCP J2111..." -> each name once, trimmed.
void AddInternalNames(std::string_view names,
                      std::vector<std::string>& aliases) {
  size_t start = 0;
  while (start <= names.size()) {
    size_t stop = names.find_first_of(",;", start);
    if (stop == std::string_view::npos) stop = names.size();
    std::string_view part = names.substr(start, stop - start);
    size_t first = part.find_first_not_of(' ');
    if (first != std::string_view::npos) {
      part = part.substr(first, part.find_last_not_of(' ') - first + 1);
      if (std::find(aliases.begin(), aliases.end(), part) == aliases.end())
        aliases.emplace_back(part);
    }
    start = stop + 1;
  }
}

}  // namespace

std::optional<std::string> TnsObjname(std::string_view name) {
  if (name.size() < 2) return std::nullopt;
  std::string_view prefix = name.substr(0, 2);
  if (prefix != "AT" && prefix != "SN") return std::nullopt;
  std::string_view rest = name.substr(2);
  if (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
  if (rest.size() < 5 || rest.size() > 8) return std::nullopt;
  for (size_t i = 0; i < rest.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(rest[i]);
    if (i < 4 ? !std::isdigit(c) : !std::isalpha(c)) return std::nullopt;
  }
  std::string objname(rest);
  for (char& c : objname)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return objname;
}

Tns::Tns(Service service, TnsCredentials credentials, Clock& clock)
    : client_(std::move(service), clock),
      credentials_(std::move(credentials)),
      clock_(clock) {}

std::string Tns::Marker() const {
  return "tns_marker{\"tns_id\": \"" + credentials_.bot_id +
         "\", \"type\": \"bot\", \"name\": \"" + credentials_.bot_name + "\"}";
}

json Tns::Ask(const std::string& path, const json& data,
              std::chrono::steady_clock::time_point start, int64_t budget_ms) {
  const std::string& service = client_.service().name;
  HttpRequest request;
  request.method = "POST";
  request.path = path;
  request.params = {{"api_key", credentials_.api_key}, {"data", data.dump()}};
  request.headers = {"User-Agent: " + Marker()};
  request.budget_ms = budget_ms;
  if (budget_ms != domain::kUnlimitedBudgetMs) {
    request.budget_ms -= std::chrono::duration_cast<std::chrono::milliseconds>(
                             clock_.Now() - start)
                             .count();
  }
  HttpReply reply;
  try {
    reply = client_.Fetch(request);
  } catch (const ClientError& e) {
    // A service that repeats the request in its message must not carry
    // the key into a log.
    std::string message = e.what();
    const std::string& key = credentials_.api_key;
    for (size_t at;
         !key.empty() && (at = message.find(key)) != std::string::npos;)
      message.replace(at, key.size(), "<api key>");
    throw ClientError(e.failure(), message);
  }

  json body = json::parse(reply.body, nullptr, /*allow_exceptions=*/false);
  if (body.is_discarded() || !body.is_object())
    TnsMalformed(service, "the answer to " + path + " is not a JSON object");
  auto code = body.find("id_code");
  if (code == body.end() || !code->is_number_integer())
    TnsMalformed(service, "the answer to " + path + " has no id_code");
  if (*code != 200)
    TnsMalformed(service, "the answer to " + path + " has id_code " +
                              code->dump() + ": " +
                              TnsString(body, "id_message"));
  auto payload = body.find("data");
  if (payload == body.end() || payload->is_null())
    TnsMalformed(service, "the answer to " + path + " has no data");
  if (payload->is_object() && payload->contains("reply"))
    return (*payload)["reply"];
  return *payload;
}

std::optional<domain::SourceMatch> Tns::Object(
    const std::string& objname, std::chrono::steady_clock::time_point start,
    int64_t budget_ms) {
  const std::string& service = client_.service().name;
  json reply =
      Ask("/get/object",
          json{{"objname", objname}, {"photometry", "0"}, {"spectra", "0"}},
          start, budget_ms);
  if (!reply.is_object())
    TnsMalformed(service, "the object " + objname + " is not a JSON object");
  if (!reply.contains("objname")) {
    if (TnsNoResult(reply)) return std::nullopt;
    TnsMalformed(service, "the object " + objname + " has no objname");
  }
  domain::SourceMatch m;
  std::string prefix = TnsString(reply, "name_prefix");
  std::string name = TnsString(reply, "objname");
  if (name.empty())
    TnsMalformed(service, "the object " + objname + " has no objname");
  m.id = prefix.empty() ? name : prefix + " " + name;
  auto type = reply.find("object_type");
  if (type != reply.end() && type->is_object())
    m.object_type = TnsString(*type, "name");
  m.is_nova = m.object_type == "Nova";
  if (m.is_nova) {
    m.classical_nova_status = std::nullopt;  // TNS does not say
  } else {
    m.classical_nova_status = domain::ClassicalNovaStatus::kNo;
  }
  m.ra_deg = TnsDegrees(reply, "radeg", service);
  m.dec_deg = TnsDegrees(reply, "decdeg", service);
  if (m.object_type.empty()) return std::nullopt;  // not classified yet
  if (m.ra_deg || m.dec_deg) m.epoch = "J2000";
  m.aliases = {m.id};
  std::string internal = TnsString(reply, "internal_names");
  if (internal.empty()) internal = TnsString(reply, "internal_name");
  AddInternalNames(internal, m.aliases);
  return m;
}

domain::SourceAnswer Tns::Identify(std::string_view normalized_name,
                                   int64_t budget_ms) {
  const std::string& service = client_.service().name;
  const auto start = clock_.Now();
  domain::SourceAnswer answer;
  answer.source = "TNS";
  if (std::optional<std::string> objname = TnsObjname(normalized_name)) {
    if (auto m = Object(*objname, start, budget_ms))
      answer.matches.push_back(std::move(*m));
    return answer;
  }
  json hits = Ask("/get/search",
                  json{{"internal_name", std::string(normalized_name)},
                       {"internal_name_exact_match", 1}},
                  start, budget_ms);
  if (!hits.is_array()) {
    if (TnsNoResult(hits)) return answer;
    TnsMalformed(service, "the search reply is not a list");
  }
  for (const json& hit : hits) {
    if (!hit.is_object() || TnsString(hit, "objname").empty())
      TnsMalformed(service, "a search hit has no objname: " + hit.dump());
  }
  if (hits.size() == 1) {
    if (auto m = Object(TnsString(hits[0], "objname"), start, budget_ms))
      answer.matches.push_back(std::move(*m));
    return answer;
  }
  for (const json& hit : hits) {
    domain::SourceMatch m;
    std::string prefix = TnsString(hit, "prefix");
    m.id = (prefix.empty() ? "" : prefix + " ") + TnsString(hit, "objname");
    answer.matches.push_back(std::move(m));
  }
  return answer;
}

}  // namespace novacat::sources
