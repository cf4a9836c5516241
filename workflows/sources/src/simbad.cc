#include "novacat/sources/simbad.h"

#include <algorithm>

#include "novacat/domain/failure.h"
#include "novacat/sources/votable.h"

namespace novacat::sources {

using domain::ClientError;
using domain::ClientFailure;
using nlohmann::json;

namespace {

// The columns Identify reads, in the order it asks for them.
constexpr std::string_view kIdentifyColumns[] = {"oid", "main_id", "ra",
                                                 "dec", "otype",   "ids"};
constexpr std::string_view kBibliographyColumns[] = {"bibcode", "doi", "title",
                                                     "year"};

HttpRequest SimbadRequest(const std::string& adql, int maxrec,
                          int64_t budget_ms) {
  HttpRequest request;
  request.method = "POST";
  request.path = "/sync";
  request.params = {{"REQUEST", "doQuery"},
                    {"LANG", "ADQL"},
                    {"FORMAT", "votable/td"},
                    {"MAXREC", std::to_string(maxrec)},
                    {"QUERY", adql}};
  request.budget_ms = budget_ms;
  return request;
}

[[noreturn]] void SimbadMalformed(const std::string& service,
                                  const std::string& why) {
  throw ClientError(ClientFailure::kMalformedResponse, service + ": " + why);
}

void RequireSimbadColumns(const VoTable& table, const std::string& service,
                          const std::string_view* begin,
                          const std::string_view* end) {
  for (const std::string_view* name = begin; name != end; ++name) {
    if (!table.Column(*name))
      SimbadMalformed(service,
                      "the answer has no column " + std::string(*name));
  }
}

// SIMBAD's markers before an identifier that are not part of the name as
// published: "V* " (a variable star's GCVS name), "* " and "** " (a star's,
// a double star's), "NAME " (a common name).
std::string_view WithoutSimbadMarker(std::string_view id) {
  for (std::string_view marker : {"V* ", "** ", "* ", "NAME "}) {
    if (id.substr(0, marker.size()) == marker) {
      std::string_view rest = id.substr(marker.size());
      size_t first = rest.find_first_not_of(' ');
      if (first != std::string_view::npos) return rest.substr(first);
    }
  }
  return id;
}

// The identifiers of `ids` ("V* V1500 Cyg|NOVA Cyg 1975|...") as published
// names (WithoutSimbadMarker: "V1500 Cyg", "NOVA Cyg 1975"), each once, in
// SIMBAD's order, empty parts dropped.
std::vector<std::string> SplitSimbadIds(std::string_view ids) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= ids.size()) {
    size_t bar = ids.find('|', start);
    if (bar == std::string_view::npos) bar = ids.size();
    std::string_view part = ids.substr(start, bar - start);
    size_t first = part.find_first_not_of(' ');
    if (first != std::string_view::npos) {
      part = part.substr(first, part.find_last_not_of(' ') - first + 1);
      part = WithoutSimbadMarker(part);
      if (std::find(out.begin(), out.end(), part) == out.end())
        out.emplace_back(part);
    }
    start = bar + 1;
  }
  return out;
}

}  // namespace

std::string AdqlString(std::string_view text) {
  std::string out = "'";
  for (char c : text) {
    out += c;
    if (c == '\'') out += '\'';
  }
  return out + "'";
}

SimbadTap::SimbadTap(Service service, Clock& clock)
    : client_(std::move(service), clock) {}

std::string SimbadTap::IdentifyQuery(std::string_view normalized_name) {
  return "SELECT basic.oid, basic.main_id, basic.ra, basic.dec, "
         "basic.otype, ids.ids FROM ident JOIN basic ON basic.oid = "
         "ident.oidref JOIN ids ON ids.oidref = ident.oidref WHERE ident.id "
         "= " +
         AdqlString(normalized_name);
}

std::string SimbadTap::BibliographyQuery(std::string_view name) {
  return "SELECT TOP " + std::to_string(kSimbadMaxReferences) +
         " ref.bibcode, ref.doi, ref.title, ref.year FROM ident JOIN "
         "has_ref ON has_ref.oidref = ident.oidref JOIN ref ON ref.oidbib = "
         "has_ref.oidbibref WHERE ident.id = " +
         AdqlString(name) + " ORDER BY ref.year, ref.bibcode";
}

domain::SourceAnswer SimbadTap::Identify(std::string_view normalized_name,
                                         int64_t budget_ms) {
  const std::string& service = client_.service().name;
  HttpReply reply = client_.Fetch(SimbadRequest(IdentifyQuery(normalized_name),
                                                kSimbadMaxMatches, budget_ms));
  VoTable table = ParseVoTable(reply.body, service);
  RequireSimbadColumns(table, service, std::begin(kIdentifyColumns),
                       std::end(kIdentifyColumns));

  domain::SourceAnswer answer;
  answer.source = kSimbadSource;
  std::vector<std::string> oids;  // one match per object
  for (size_t row = 0; row < table.rows.size(); ++row) {
    const std::string which = "row " + std::to_string(row + 1);
    std::optional<std::string> oid = table.Cell(row, "oid");
    std::optional<std::string> main_id = table.Cell(row, "main_id");
    if (!oid || !main_id)
      SimbadMalformed(service, which + " has no oid or main_id");
    if (std::find(oids.begin(), oids.end(), *oid) != oids.end()) continue;
    oids.push_back(*oid);

    domain::SourceMatch m;
    m.id = *main_id;
    m.object_type = table.Cell(row, "otype").value_or("");
    if (m.object_type == "No*") {
      m.is_nova = true;
      m.classical_nova_status = std::nullopt;  // classical or recurrent
    } else if (m.object_type == "No?") {
      m.is_nova = true;
      m.classical_nova_status = domain::ClassicalNovaStatus::kAmbiguous;
    } else {
      m.is_nova = false;
      m.classical_nova_status = domain::ClassicalNovaStatus::kNo;
    }
    m.ra_deg = NumberCell(table, row, "ra", service);
    m.dec_deg = NumberCell(table, row, "dec", service);
    if (m.ra_deg || m.dec_deg) m.epoch = "J2000";
    m.aliases = SplitSimbadIds(table.Cell(row, "ids").value_or(""));
    answer.matches.push_back(std::move(m));
  }
  return answer;
}

std::vector<json> SimbadTap::Bibliography(const domain::ReferenceQuery& query) {
  const std::string& service = client_.service().name;
  if (query.names.empty())
    throw ClientError(ClientFailure::kInvalidRequest,
                      service + ": nova " + query.nova_id +
                          " has no name to look its references up by");
  HttpReply reply =
      client_.Fetch(SimbadRequest(BibliographyQuery(query.names.front()),
                                  kSimbadMaxReferences, query.budget_ms));
  VoTable table = ParseVoTable(reply.body, service);
  RequireSimbadColumns(table, service, std::begin(kBibliographyColumns),
                       std::end(kBibliographyColumns));

  std::vector<json> candidates;
  for (size_t row = 0; row < table.rows.size(); ++row) {
    std::optional<std::string> bibcode = table.Cell(row, "bibcode");
    if (!bibcode)
      SimbadMalformed(service, "reference row " + std::to_string(row + 1) +
                                   " has no bibcode");
    json candidate = json::object();
    candidate["source"] = kSimbadSource;
    candidate["bibcode"] = *bibcode;
    if (auto doi = table.Cell(row, "doi")) candidate["doi"] = *doi;
    if (auto title = table.Cell(row, "title")) candidate["title"] = *title;
    if (auto year = table.Cell(row, "year"))
      candidate["publication_date"] = *year;
    candidate["role"] =
        std::string(ToString(domain::PublicationRole(*bibcode, "")));
    candidates.push_back(std::move(candidate));
  }
  return candidates;
}

}  // namespace novacat::sources
