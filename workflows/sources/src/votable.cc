#include "novacat/sources/votable.h"

#include <pugixml.hpp>

#include <cctype>
#include <charconv>
#include <cmath>

namespace novacat::sources {

using domain::ClientError;
using domain::ClientFailure;

namespace {

bool SameText(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i])))
      return false;
  }
  return true;
}

// Element names without their namespace prefix ("vot:TABLE" -> "TABLE"):
// VOTable documents are written both with and without one.
std::string_view LocalName(const pugi::xml_node& node) {
  std::string_view name = node.name();
  size_t colon = name.find(':');
  return colon == std::string_view::npos ? name : name.substr(colon + 1);
}

pugi::xml_node Child(const pugi::xml_node& node, std::string_view name) {
  for (pugi::xml_node child : node.children()) {
    if (child.type() == pugi::node_element && LocalName(child) == name)
      return child;
  }
  return {};
}

std::string Trimmed(std::string_view text) {
  size_t begin = text.find_first_not_of(" \t\r\n");
  if (begin == std::string_view::npos) return "";
  size_t end = text.find_last_not_of(" \t\r\n");
  return std::string(text.substr(begin, end - begin + 1));
}

[[noreturn]] void Malformed(std::string_view service, std::string_view why) {
  throw ClientError(
      ClientFailure::kMalformedResponse,
      std::string(service) + ": malformed VOTable: " + std::string(why));
}

}  // namespace

std::optional<size_t> VoTable::Column(std::string_view name) const {
  for (size_t i = 0; i < fields.size(); ++i) {
    if (SameText(fields[i].name, name)) return i;
  }
  for (size_t i = 0; i < fields.size(); ++i) {
    if (!fields[i].id.empty() && fields[i].id == name) return i;
  }
  return std::nullopt;
}

std::optional<size_t> VoTable::ColumnByUcd(std::string_view ucd) const {
  for (size_t i = 0; i < fields.size(); ++i) {
    if (SameText(fields[i].ucd, ucd)) return i;
  }
  return std::nullopt;
}

std::optional<std::string> VoTable::Cell(size_t row,
                                         std::string_view name) const {
  std::optional<size_t> column = Column(name);
  if (!column || row >= rows.size()) return std::nullopt;
  return rows[row][*column];
}

VoTable ParseVoTable(std::string_view text, std::string_view service) {
  pugi::xml_document doc;
  pugi::xml_parse_result parsed = doc.load_buffer(
      text.data(), text.size(), pugi::parse_default, pugi::encoding_auto);
  if (!parsed) {
    Malformed(service, std::string(parsed.description()) + " at byte " +
                           std::to_string(parsed.offset));
  }
  pugi::xml_node root = doc.document_element();
  if (LocalName(root) != "VOTABLE") Malformed(service, "no VOTABLE element");

  pugi::xml_node resource;
  for (pugi::xml_node r : root.children()) {
    if (r.type() != pugi::node_element || LocalName(r) != "RESOURCE") continue;
    if (!resource) resource = r;
    if (std::string_view(r.attribute("type").value()) == "results") {
      resource = r;
      break;
    }
  }
  VoTable table;
  // QUERY_STATUS sits in the results RESOURCE (TAP) or, for some services,
  // directly under VOTABLE.
  for (pugi::xml_node scope : {resource, root}) {
    if (!scope || !table.query_status.empty()) continue;
    for (pugi::xml_node info : scope.children()) {
      if (info.type() != pugi::node_element || LocalName(info) != "INFO" ||
          std::string_view(info.attribute("name").value()) != "QUERY_STATUS")
        continue;
      table.query_status = Trimmed(info.attribute("value").value());
      table.query_status_text = Trimmed(info.text().get());
      break;
    }
  }
  if (SameText(table.query_status, "ERROR")) {
    throw ClientError(
        ClientFailure::kMalformedResponse,
        std::string(service) + ": query failed: " +
            (table.query_status_text.empty() ? "QUERY_STATUS ERROR"
                                             : table.query_status_text));
  }
  if (!resource) Malformed(service, "no RESOURCE element");
  pugi::xml_node xml_table = Child(resource, "TABLE");
  if (!xml_table) Malformed(service, "no TABLE element");
  for (pugi::xml_node f : xml_table.children()) {
    if (f.type() != pugi::node_element || LocalName(f) != "FIELD") continue;
    table.fields.push_back(
        VoField{f.attribute("name").value(), f.attribute("ID").value(),
                f.attribute("datatype").value(),
                f.attribute("arraysize").value(), f.attribute("unit").value(),
                f.attribute("ucd").value(), f.attribute("utype").value()});
  }
  if (table.fields.empty()) Malformed(service, "a TABLE without FIELDs");
  pugi::xml_node data = Child(xml_table, "DATA");
  if (!data) return table;  // no rows
  pugi::xml_node rows = Child(data, "TABLEDATA");
  if (!rows) {
    pugi::xml_node other = data.first_child();
    Malformed(service, std::string("serialization ") +
                           std::string(other ? LocalName(other) : "none") +
                           " is not read (only TABLEDATA)");
  }
  for (pugi::xml_node tr : rows.children()) {
    if (tr.type() != pugi::node_element || LocalName(tr) != "TR") continue;
    std::vector<std::optional<std::string>> row;
    row.reserve(table.fields.size());
    for (pugi::xml_node td : tr.children()) {
      if (td.type() != pugi::node_element || LocalName(td) != "TD") continue;
      std::string value = td.text().get();
      if (Trimmed(value).empty()) {
        row.emplace_back(std::nullopt);
      } else {
        row.emplace_back(std::move(value));
      }
    }
    if (row.size() > table.fields.size()) {
      Malformed(service, "row " + std::to_string(table.rows.size()) + " has " +
                             std::to_string(row.size()) + " cells for " +
                             std::to_string(table.fields.size()) + " FIELDs");
    }
    row.resize(table.fields.size());
    table.rows.push_back(std::move(row));
  }
  return table;
}

std::optional<double> NumberCell(const VoTable& table, size_t row,
                                 std::string_view column,
                                 std::string_view service) {
  std::optional<std::string> cell = table.Cell(row, column);
  if (!cell) return std::nullopt;
  std::string text = Trimmed(*cell);
  if (text == "NaN" || text == "nan") return std::nullopt;  // VOTable null
  double value = 0;
  auto [end, ec] =
      std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() ||
      !std::isfinite(value)) {
    throw ClientError(ClientFailure::kMalformedResponse,
                      std::string(service) + ": " + std::string(column) +
                          " is not a number: \"" + text + "\"");
  }
  return value;
}

}  // namespace novacat::sources
