#include "novacat/sources/eso_ssap.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <string>
#include <string_view>

#include "cone.h"
#include "novacat/domain/failure.h"
#include "novacat/sources/votable.h"

namespace novacat::sources {

using domain::ClientError;
using domain::ClientFailure;
using nlohmann::json;

namespace {

// Decimal degrees with 7 decimals (0.36 mas), trailing zeros dropped:
// "317.9024208", "0.0027778", "16".
std::string SsapDegrees(double degrees) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.7f", degrees);
  std::string text = buffer;
  while (text.back() == '0') text.pop_back();
  if (text.back() == '.') text.pop_back();
  return text == "-0" ? "0" : text;
}

bool EsoIsOneOf(std::string_view value,
                std::initializer_list<std::string_view> options) {
  for (std::string_view option : options) {
    if (value == option) return true;
  }
  return false;
}

// A scalar FIELD (no arraysize, or arraysize "1"): arrays stay text.
bool EsoScalarField(const VoField& field) {
  return field.arraysize.empty() || field.arraysize == "1";
}

// The cell of `table`'s `row` in `column` as JSON, typed by its FIELD.
json EsoTypedCell(const VoTable& table, size_t row, size_t column,
                  const std::string& key, const std::string& service) {
  const std::optional<std::string>& cell = table.rows[row][column];
  if (!cell) return nullptr;
  const VoField& field = table.fields[column];
  const std::string& type = field.datatype;
  if (!EsoScalarField(field)) return *cell;
  std::string_view text = *cell;
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text[0])))
    text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())))
    text.remove_suffix(1);
  if (EsoIsOneOf(type, {"short", "int", "long", "unsignedByte"})) {
    int64_t value = 0;
    auto [end, ec] =
        std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end != text.data() + text.size()) {
      throw ClientError(ClientFailure::kMalformedResponse,
                        service + ": " + key + " is not an integer: \"" +
                            std::string(text) + "\"");
    }
    return value;
  }
  if (EsoIsOneOf(type, {"float", "double"})) {
    if (text == "NaN" || text == "nan") return nullptr;  // VOTable's null
    double value = 0;
    auto [end, ec] =
        std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end != text.data() + text.size() ||
        !std::isfinite(value)) {
      throw ClientError(ClientFailure::kMalformedResponse,
                        service + ": " + key + " is not a number: \"" +
                            std::string(text) + "\"");
    }
    return value;
  }
  if (type == "boolean") {
    if (EsoIsOneOf(text, {"T", "t", "true", "TRUE", "1"})) return true;
    if (EsoIsOneOf(text, {"F", "f", "false", "FALSE", "0"})) return false;
    if (text == "?") return nullptr;
    throw ClientError(ClientFailure::kMalformedResponse,
                      service + ": " + key + " is not a boolean: \"" +
                          std::string(text) + "\"");
  }
  return *cell;
}

}  // namespace

EsoSsap::EsoSsap(Service service, Clock& clock)
    : http_(std::move(service), clock) {}

std::vector<json> EsoSsap::Query(const domain::ProviderQuery& query) {
  const std::string& name = http_.service().name;
  const auto [ra, dec] = ConeCenter(query, name, SsapDegrees);
  HttpRequest request;
  request.method = "GET";
  request.params = {
      {"REQUEST", "queryData"},
      {"POS", SsapDegrees(ra) + "," + SsapDegrees(dec)},
      {"SIZE", SsapDegrees(kEsoSsapSearchDiameterArcsec / 3600.0)},
      {"MAXREC", std::to_string(kEsoSsapMaxRecords)},
  };
  request.budget_ms = query.budget_ms;
  HttpReply reply = http_.Fetch(request);
  VoTable table = ParseVoTable(reply.body, name);

  // Each FIELD's key: its name, else its ID; a FIELD named twice keeps the
  // first (Column finds that one).
  std::vector<std::string> keys;
  keys.reserve(table.fields.size());
  for (const VoField& field : table.fields) {
    keys.push_back(field.name.empty() ? field.id : field.name);
  }
  std::vector<json> records;
  records.reserve(table.rows.size());
  for (size_t row = 0; row < table.rows.size(); ++row) {
    json record = json::object();
    for (size_t column = 0; column < keys.size(); ++column) {
      if (keys[column].empty() || record.contains(keys[column])) continue;
      record[keys[column]] =
          EsoTypedCell(table, row, column, keys[column], name);
    }
    records.push_back(std::move(record));
  }
  return records;
}

}  // namespace novacat::sources
