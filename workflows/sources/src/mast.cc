#include "novacat/sources/mast.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <set>
#include <string_view>

#include "cone.h"
#include "novacat/domain/failure.h"

namespace novacat::sources {

using domain::ClientError;
using domain::ClientFailure;
using nlohmann::json;

namespace {

// The observation members a product's do not replace: when and with what
// it was observed, and where.
constexpr std::string_view kMastObservationOwned[] = {
    "t_min", "t_max", "instrument_name", "target_name", "s_ra", "s_dec"};

// MAST's id of an observation or a product's parent: a number or a string
// of digits in its answers; "" when absent or of another type.
std::string MastIdText(const json& record, std::string_view member) {
  auto it = record.find(std::string(member));
  if (it == record.end()) return "";
  if (it->is_number_integer()) return std::to_string(it->get<int64_t>());
  if (it->is_string()) return it->get<std::string>();
  return "";
}

std::string MastString(const json& record, std::string_view member) {
  auto it = record.find(std::string(member));
  return it != record.end() && it->is_string() ? it->get<std::string>() : "";
}

bool IsScienceSpectrum(const json& product) {
  static const std::set<std::string, std::less<>> kKinds = {"X1D", "SX1",
                                                            "MXLO", "MXHI"};
  return MastString(product, "productType") == "SCIENCE" &&
         kKinds.count(MastString(product, "productSubGroupDescription")) > 0;
}

// The download URL of a dataURI ("mast:HST/product/o6h001010_x1d.fits"):
// unreserved characters, ':' and '/' kept, the rest %XX.
std::string MastDownloadUrlOf(std::string_view uri) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string url = kMastDownloadUrl;
  for (char c : uri) {
    unsigned char u = static_cast<unsigned char>(c);
    if (std::isalnum(u) || c == '-' || c == '.' || c == '_' || c == '~' ||
        c == ':' || c == '/') {
      url += c;
    } else {
      url += '%';
      url += kHex[u >> 4];
      url += kHex[u & 15];
    }
  }
  return url;
}

int64_t MastRemainingMs(Clock& clock,
                        std::chrono::steady_clock::time_point start,
                        int64_t budget_ms) {
  if (budget_ms == domain::kUnlimitedBudgetMs) return budget_ms;
  auto spent =
      std::chrono::duration_cast<std::chrono::milliseconds>(clock.Now() - start)
          .count();
  return budget_ms - spent;
}

// A degree value as MAST's JSON writes it, for messages.
std::string MastDegrees(double degrees) { return json(degrees).dump(); }

}  // namespace

Mast::Mast(Service service, Clock& clock)
    : http_(std::move(service), clock), clock_(clock) {}

std::vector<json> Mast::Search(const std::string& service, const json& params,
                               std::chrono::steady_clock::time_point start,
                               int64_t budget_ms) {
  const std::string& name = http_.service().name;
  auto malformed = [&](const std::string& why) {
    return ClientError(ClientFailure::kMalformedResponse,
                       name + ": " + service + ": " + why);
  };
  std::vector<json> rows;
  for (int page = 1; page <= kMastMaxPages; ++page) {
    json request = {{"service", service},
                    {"params", params},
                    {"format", "json"},
                    {"pagesize", kMastPageSize},
                    {"page", page}};
    HttpRequest http;
    http.method = "POST";
    http.path = "/invoke";
    http.params = {{"request", request.dump()}};
    json answer;
    std::string status;
    for (int ask = 1;; ++ask) {
      http.budget_ms = MastRemainingMs(clock_, start, budget_ms);
      HttpReply reply = http_.Fetch(http);
      answer = json::parse(reply.body, nullptr, false);
      if (answer.is_discarded()) throw malformed("the answer is not JSON");
      if (!answer.is_object() || !answer.contains("status") ||
          !answer["status"].is_string()) {
        throw malformed("the answer is not an object with a status");
      }
      status = answer["status"].get<std::string>();
      if (status != "EXECUTING") break;
      if (ask == kMastExecutingAsks) {
        throw ClientError(ClientFailure::kUnavailable,
                          name + ": " + service + ": still EXECUTING after " +
                              std::to_string(ask) + " requests");
      }
      clock_.SleepFor(std::chrono::milliseconds(kMastExecutingWaitMs));
    }
    if (status == "ERROR") {
      std::string msg = MastString(answer, "msg");
      throw malformed("status ERROR" + (msg.empty() ? "" : ": " + msg));
    }
    if (status != "COMPLETE") {
      throw malformed("status \"" + status + "\" (expected COMPLETE)");
    }
    auto data = answer.find("data");
    if (data == answer.end() || !data->is_array()) {
      throw malformed("the answer has no data array");
    }
    for (size_t i = 0; i < data->size(); ++i) {
      if (!(*data)[i].is_object()) {
        throw malformed("data[" + std::to_string(i) + "] is not an object");
      }
      rows.push_back(std::move((*data)[i]));
    }
    // The last page: no paging, or paging says so.
    auto paging = answer.find("paging");
    if (paging == answer.end() || !paging->is_object()) break;
    auto pages = paging->find("pagesFiltered");
    if (pages == paging->end() || !pages->is_number_integer() ||
        page >= pages->get<int64_t>()) {
      break;
    }
  }
  return rows;
}

std::vector<json> Mast::Query(const domain::ProviderQuery& query) {
  const std::string& name = http_.service().name;
  const auto [ra, dec] = ConeCenter(query, name, MastDegrees);
  const auto start = clock_.Now();
  std::vector<json> observations = Search(
      "Mast.Caom.Cone",
      {{"ra", ra}, {"dec", dec}, {"radius", kMastSearchRadiusArcsec / 3600.0}},
      start, query.budget_ms);

  // The spectra, by obsid, in MAST's order.
  std::map<std::string, const json*> by_obsid;
  std::vector<std::string> obsids;
  for (size_t i = 0; i < observations.size(); ++i) {
    const json& observation = observations[i];
    if (MastString(observation, "dataproduct_type") != "spectrum") continue;
    std::string obsid = MastIdText(observation, "obsid");
    if (obsid.empty()) {
      throw ClientError(ClientFailure::kMalformedResponse,
                        name + ": Mast.Caom.Cone: data[" + std::to_string(i) +
                            "] (a spectrum) has no obsid");
    }
    if (by_obsid.emplace(obsid, &observation).second) obsids.push_back(obsid);
  }

  std::vector<json> records;
  std::set<std::string> uris;
  for (size_t first = 0; first < obsids.size();
       first += kMastObsidsPerRequest) {
    std::string list;
    for (size_t i = first;
         i < std::min(obsids.size(), first + kMastObsidsPerRequest); ++i) {
      list += (list.empty() ? "" : ",") + obsids[i];
    }
    std::vector<json> products =
        Search("Mast.Caom.Products", {{"obsid", list}}, start, query.budget_ms);
    for (json& product : products) {
      if (!IsScienceSpectrum(product)) continue;
      std::string uri = MastString(product, "dataURI");
      if (!uri.empty() && !uris.insert(uri).second) continue;
      // A product names its observation by parent_obsid (HST's member
      // exposures) or obsID.
      std::string parent = MastIdText(product, "parent_obsid");
      if (by_obsid.count(parent) == 0) parent = MastIdText(product, "obsID");
      auto observation = by_obsid.find(parent);
      json record =
          observation == by_obsid.end() ? json::object() : *observation->second;
      for (auto& [key, value] : product.items()) {
        bool owned = false;
        for (std::string_view o : kMastObservationOwned) owned |= key == o;
        if (!owned || !record.contains(key)) record[key] = value;
      }
      record["dataURL"] =
          uri.empty() ? json(nullptr) : json(MastDownloadUrlOf(uri));
      records.push_back(std::move(record));
    }
  }
  return records;
}

}  // namespace novacat::sources
