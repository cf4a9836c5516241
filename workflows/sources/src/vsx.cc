#include "novacat/sources/vsx.h"

#include <charconv>
#include <cmath>
#include <nlohmann/json.hpp>
#include <vector>

#include "novacat/domain/failure.h"

namespace novacat::sources {

using domain::ClassicalNovaStatus;
using domain::ClientError;
using domain::ClientFailure;
using nlohmann::json;

namespace {

[[noreturn]] void VsxMalformed(const std::string& service,
                               const std::string& why) {
  throw ClientError(ClientFailure::kMalformedResponse, service + ": " + why);
}

// A member of the VSXObject as text: a string as is, a number printed;
// nullopt when absent, null or empty.
std::optional<std::string> VsxText(const json& object, const char* name) {
  auto it = object.find(name);
  if (it == object.end() || it->is_null()) return std::nullopt;
  if (it->is_string()) {
    std::string text = it->get<std::string>();
    if (text.empty()) return std::nullopt;
    return text;
  }
  if (it->is_number()) return it->dump();
  return it->dump();
}

std::optional<double> VsxDegrees(const json& object, const char* name,
                                 const std::string& service) {
  std::optional<std::string> text = VsxText(object, name);
  if (!text) return std::nullopt;
  double value = 0;
  const char* begin = text->data();
  const char* end = begin + text->size();
  auto [stop, ec] = std::from_chars(begin, end, value);
  if (ec != std::errc() || stop != end || !std::isfinite(value))
    VsxMalformed(service,
                 std::string(name) + " is not a number: \"" + *text + "\"");
  return value;
}

}  // namespace

VsxNovaClass ClassifyVsxType(std::string_view variability_type) {
  bool classical = false, recurrent = false, generic = false;
  bool uncertain = false;
  size_t start = 0;
  while (start <= variability_type.size()) {
    size_t stop = variability_type.find_first_of("+|/, ", start);
    if (stop == std::string_view::npos) stop = variability_type.size();
    std::string token(variability_type.substr(start, stop - start));
    bool doubtful = false;
    for (size_t colon; (colon = token.find(':')) != std::string::npos;) {
      token.erase(colon, 1);
      doubtful = true;
    }
    bool nova = true;
    if (token == "NA" || token == "NB" || token == "NC") {
      classical = true;
    } else if (token == "NR") {
      recurrent = true;
    } else if (token == "N") {
      generic = true;
    } else {
      nova = false;
    }
    if (nova && doubtful) uncertain = true;
    start = stop + 1;
  }
  VsxNovaClass result;
  if (!classical && !recurrent && !generic) return result;  // not a nova
  result.is_nova = true;
  if (uncertain || (classical && recurrent)) {
    result.classical_nova_status = ClassicalNovaStatus::kAmbiguous;
  } else if (classical) {
    result.classical_nova_status = ClassicalNovaStatus::kYes;
  } else if (recurrent) {
    result.classical_nova_status = ClassicalNovaStatus::kNo;
  } else {
    result.classical_nova_status = std::nullopt;  // "N": VSX does not say
  }
  return result;
}

Vsx::Vsx(Service service, Clock& clock) : client_(std::move(service), clock) {}

domain::SourceAnswer Vsx::Identify(std::string_view normalized_name,
                                   int64_t budget_ms) {
  const std::string& service = client_.service().name;
  HttpRequest request;
  request.method = "GET";
  request.path = "/index.php";
  request.params = {{"view", "api.object"},
                    {"ident", std::string(normalized_name)},
                    {"format", "json"}};
  request.budget_ms = budget_ms;
  HttpReply reply = client_.Fetch(request);

  json body = json::parse(reply.body, nullptr, /*allow_exceptions=*/false);
  if (body.is_discarded() || !body.is_object())
    VsxMalformed(service, "the answer is not a JSON object");
  domain::SourceAnswer answer;
  answer.source = "VSX";
  auto found = body.find("VSXObject");
  // An unknown name: [] (PHP's empty array), {} or nothing.
  if (found == body.end() || found->is_null() || found->empty()) return answer;
  if (!found->is_object()) VsxMalformed(service, "VSXObject is not an object");
  const json& object = *found;

  domain::SourceMatch m;
  std::optional<std::string> name = VsxText(object, "Name");
  if (!name) VsxMalformed(service, "VSXObject has no Name");
  m.id = *name;
  m.object_type = VsxText(object, "VariabilityType").value_or("");
  VsxNovaClass nova = ClassifyVsxType(m.object_type);
  m.is_nova = nova.is_nova;
  m.classical_nova_status = nova.classical_nova_status;
  m.ra_deg = VsxDegrees(object, "RA2000", service);
  m.dec_deg = VsxDegrees(object, "Declination2000", service);
  if (m.ra_deg || m.dec_deg) m.epoch = "J2000";
  m.aliases = {*name};
  answer.matches.push_back(std::move(m));
  return answer;
}

}  // namespace novacat::sources
