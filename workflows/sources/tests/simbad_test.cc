#include "novacat/sources/simbad.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>

#include "fake_http_server.h"
#include "novacat/domain/failure.h"
#include "sources_test_util.h"

namespace novacat::sources {
namespace simbad_test {
namespace {

using domain::ClassicalNovaStatus;
using domain::ClientFailure;
using nlohmann::json;
using novacat::testing::FakeServer;
using Mode = FakeServer::Mode;
using testing_util::CountingClock;
using testing_util::ExpectClientError;

constexpr const char* kVoTableType =
    "application/x-votable+xml;serialization=TABLEDATA";

std::string Recorded(const std::string& file) {
  return testing_util::ReadFixture("fixtures/archives/simbad/" + file);
}

FakeServer::Answer Votable(const std::string& body) {
  return FakeServer::Answer(200, body, Mode::kAnswer, "", kVoTableType);
}

Service At(const FakeServer& server) {
  return testing_util::ServiceAt(server, "SIMBAD", "/simbad");
}

// The form SimbadTap posts for `query`.
std::string Form(const std::string& query, int maxrec) {
  return FormEncode({{"REQUEST", "doQuery"},
                     {"LANG", "ADQL"},
                     {"FORMAT", "votable/td"},
                     {"MAXREC", std::to_string(maxrec)},
                     {"QUERY", query}});
}

void ExpectPost(const std::pair<std::string, std::string>& request,
                const std::string& body) {
  EXPECT_THAT(request.first,
              ::testing::StartsWith("POST /simbad/sync HTTP/1.1\r\n"));
  EXPECT_THAT(request.first + "\r\n",
              ::testing::HasSubstr("\r\nUser-Agent: " + UserAgent() + "\r\n"));
  EXPECT_THAT(request.first,
              ::testing::HasSubstr("\r\nContent-Type: "
                                   "application/x-www-form-urlencoded"));
  EXPECT_EQ(request.second, body);
}

// A one-row answer of Identify's columns with `otype`.
std::string OneObject(const std::string& otype) {
  return "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n"
         "<VOTABLE version=\"1.4\" "
         "xmlns=\"http://www.ivoa.net/xml/VOTable/v1.3\">\n"
         "<RESOURCE type=\"results\">\n"
         "<INFO name=\"QUERY_STATUS\" value=\"OK\"/>\n<TABLE>\n"
         "<FIELD name=\"oid\" datatype=\"long\"/>\n"
         "<FIELD name=\"main_id\" datatype=\"char\" arraysize=\"*\"/>\n"
         "<FIELD name=\"ra\" datatype=\"double\"/>\n"
         "<FIELD name=\"dec\" datatype=\"double\"/>\n"
         "<FIELD name=\"otype\" datatype=\"char\" arraysize=\"*\"/>\n"
         "<FIELD name=\"ids\" datatype=\"char\" arraysize=\"*\"/>\n"
         "<DATA><TABLEDATA>\n<TR><TD>7</TD><TD>V* X Sct</TD><TD>280.5</TD>"
         "<TD>-10.25</TD><TD>" +
         otype +
         "</TD><TD>V* X Sct| |V* X Sct|X Sct|NOVA Sct 2030 </TD></TR>\n"
         "</TABLEDATA></DATA>\n</TABLE>\n</RESOURCE>\n</VOTABLE>\n";
}

TEST(SimbadTest, TheAdqlOfIdentifyMatchesTheIdentifierAndQuotesIt) {
  EXPECT_EQ(SimbadTap::IdentifyQuery("V1500 CYG"),
            "SELECT basic.oid, basic.main_id, basic.ra, basic.dec, "
            "basic.otype, ids.ids FROM ident JOIN basic ON basic.oid = "
            "ident.oidref JOIN ids ON ids.oidref = ident.oidref WHERE "
            "ident.id = 'V1500 CYG'");
  EXPECT_EQ(AdqlString("O'CONNOR'S STAR"), "'O''CONNOR''S STAR'");
  EXPECT_EQ(AdqlString(""), "''");
  EXPECT_THAT(SimbadTap::IdentifyQuery("X' OR '1'='1"),
              ::testing::EndsWith("WHERE ident.id = 'X'' OR ''1''=''1'"));
}

TEST(SimbadTest, AClassicalNovaIsANovaWhoseStatusSimbadDoesNotTell) {
  FakeServer server({Votable(Recorded("v1500_cyg.xml"))});
  CountingClock clock;
  SimbadTap simbad(At(server), clock);
  domain::SourceAnswer answer = simbad.Identify("V1500 CYG", 25000);

  ASSERT_EQ(server.requests().size(), 1u);
  ExpectPost(server.requests()[0],
             Form(SimbadTap::IdentifyQuery("V1500 CYG"), 10));
  EXPECT_EQ(answer.source, "SIMBAD");
  ASSERT_EQ(answer.matches.size(), 1u);
  testing_util::ExpectSourceMatch(answer.matches[0],
                                  {.id = "V* V1500 Cyg",
                                   .object_type = "No*",
                                   .is_nova = true,
                                   .classical_nova_status = std::nullopt,
                                   .ra_deg = 317.9024208,
                                   .dec_deg = 48.1505417,
                                   .epoch = "J2000",
                                   .aliases = {"V1500 Cyg", "NOVA Cyg 1975"}});
  EXPECT_TRUE(clock.sleeps.empty());
}

TEST(SimbadTest, ANameSimbadDoesNotKnowHasNoMatch) {
  FakeServer server({Votable(Recorded("nova_cyg_2026.xml"))});
  SimbadTap simbad(At(server));
  domain::SourceAnswer answer = simbad.Identify("NOVA CYG 2026", 25000);
  EXPECT_EQ(answer.source, "SIMBAD");
  EXPECT_TRUE(answer.matches.empty());
  ExpectPost(server.requests().at(0),
             Form(SimbadTap::IdentifyQuery("NOVA CYG 2026"), 10));
}

TEST(SimbadTest, SeveralObjectsAreSeveralMatches) {
  FakeServer server({Votable(Recorded("nova_sgr_2015.xml"))});
  SimbadTap simbad(At(server));
  domain::SourceAnswer answer = simbad.Identify("NOVA SGR 2015", 25000);
  ASSERT_EQ(answer.matches.size(), 2u);
  EXPECT_EQ(answer.matches[0].id, "V* V5667 Sgr");
  EXPECT_EQ(answer.matches[1].id, "V* V5668 Sgr");
  EXPECT_EQ(answer.matches[1].ra_deg, 279.2368333);
  EXPECT_EQ(answer.matches[1].aliases,
            (std::vector<std::string>{"V5668 Sgr", "NOVA Sgr 2015 No. 2"}));
}

TEST(SimbadTest, AStarIsFoundButNotANova) {
  FakeServer server({Votable(Recorded("betelgeuse.xml"))});
  SimbadTap simbad(At(server));
  domain::SourceAnswer answer = simbad.Identify("BETELGEUSE", 25000);
  ASSERT_EQ(answer.matches.size(), 1u);
  const domain::SourceMatch& m = answer.matches[0];
  EXPECT_EQ(m.id, "* alf Ori");
  EXPECT_EQ(m.object_type, "s*r");
  EXPECT_FALSE(m.is_nova);
  EXPECT_EQ(m.classical_nova_status, ClassicalNovaStatus::kNo);
  EXPECT_EQ(m.ra_deg, 88.792939);
  EXPECT_EQ(m.dec_deg, 7.407064);
  EXPECT_EQ(m.aliases,
            (std::vector<std::string>{"alf Ori", "Betelgeuse", "HD 39801",
                                      "HIP 27989", "HR 2061"}));
}

TEST(SimbadTest, ARecurrentNovaIsANovaSimbadCannotTellFromAClassicalOne) {
  // SIMBAD has no recurrent-nova type ("RNe" is a reflection nebula): RS
  // Oph is No*, and VSX's NR decides.
  FakeServer server({Votable(Recorded("rs_oph.xml"))});
  SimbadTap simbad(At(server));
  domain::SourceAnswer answer = simbad.Identify("RS OPH", 25000);
  ASSERT_EQ(answer.matches.size(), 1u);
  EXPECT_TRUE(answer.matches[0].is_nova);
  EXPECT_EQ(answer.matches[0].classical_nova_status, std::nullopt);
}

TEST(SimbadTest, ObjectTypesDecideNovaness) {
  struct Case {
    const char* otype;
    bool is_nova;
    std::optional<ClassicalNovaStatus> status;
  };
  for (const Case& c : {Case{"No*", true, std::nullopt},
                        Case{"No?", true, ClassicalNovaStatus::kAmbiguous},
                        Case{"NL*", false, ClassicalNovaStatus::kNo},
                        Case{"CV*", false, ClassicalNovaStatus::kNo},
                        Case{"RNe", false, ClassicalNovaStatus::kNo}}) {
    FakeServer server({Votable(OneObject(c.otype))});
    SimbadTap simbad(At(server));
    domain::SourceAnswer answer = simbad.Identify("X SCT", 25000);
    ASSERT_EQ(answer.matches.size(), 1u) << c.otype;
    EXPECT_EQ(answer.matches[0].object_type, c.otype);
    EXPECT_EQ(answer.matches[0].is_nova, c.is_nova) << c.otype;
    EXPECT_EQ(answer.matches[0].classical_nova_status, c.status) << c.otype;
    // Empty identifiers dropped, repeated ones kept once, blanks trimmed,
    // SIMBAD's markers dropped.
    EXPECT_EQ(answer.matches[0].aliases,
              (std::vector<std::string>{"X Sct", "NOVA Sct 2030"}));
  }
}

TEST(SimbadTest, AnObjectWithoutPositionHasNoneAndNoEpoch) {
  FakeServer server({Votable(Recorded("nova_oph_1848.xml"))});
  SimbadTap simbad(At(server));
  domain::SourceAnswer answer = simbad.Identify("NOVA OPH 1848", 25000);
  ASSERT_EQ(answer.matches.size(), 1u);
  EXPECT_EQ(answer.matches[0].id, "V* V841 Oph");
  EXPECT_EQ(answer.matches[0].ra_deg, std::nullopt);
  EXPECT_EQ(answer.matches[0].dec_deg, std::nullopt);
  EXPECT_EQ(answer.matches[0].epoch, std::nullopt);
}

TEST(SimbadTest, AnAnswerThatIsNotAVoTableIsMalformed) {
  FakeServer server(
      {Votable("<VOTABLE version=\"1.4\"><RESOURCE type=\"results\"><INFO "
               "name=\"QUERY_STATUS\" value=\"OK\"/></RESOURCE></VOTABLE>")});
  SimbadTap simbad(At(server));
  ExpectClientError([&] { simbad.Identify("V1500 CYG", 25000); },
                    ClientFailure::kMalformedResponse,
                    "SIMBAD: malformed VOTable: no TABLE element");
}

TEST(SimbadTest, AQueryStatusErrorIsMalformed) {
  FakeServer server({Votable(
      "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<VOTABLE version=\"1.4\" "
      "xmlns=\"http://www.ivoa.net/xml/VOTable/v1.3\">\n<RESOURCE "
      "type=\"results\">\n<INFO name=\"QUERY_STATUS\" value=\"ERROR\">The "
      "execution of the query took too long</INFO>\n<INFO "
      "name=\"PROVIDER\" value=\"CDS\">SIMBAD TAP Service</INFO>\n"
      "</RESOURCE>\n</VOTABLE>\n")});
  SimbadTap simbad(At(server));
  ExpectClientError(
      [&] { simbad.Identify("V1500 CYG", 25000); },
      ClientFailure::kMalformedResponse,
      "SIMBAD: query failed: The execution of the query took too long");
}

TEST(SimbadTest, AMissingColumnOrAPositionThatIsNotANumberIsMalformed) {
  std::string no_ids = OneObject("No*");
  no_ids.replace(no_ids.find("name=\"ids\""), 10, "name=\"idz\"");
  std::string bad_ra = OneObject("No*");
  bad_ra.replace(bad_ra.find("280.5"), 5, "18:42");
  FakeServer server({Votable(no_ids), Votable(bad_ra)});
  SimbadTap simbad(At(server));
  ExpectClientError([&] { simbad.Identify("X SCT", 25000); },
                    ClientFailure::kMalformedResponse,
                    "SIMBAD: the answer has no column ids");
  ExpectClientError([&] { simbad.Identify("X SCT", 25000); },
                    ClientFailure::kMalformedResponse,
                    "SIMBAD: ra is not a number: \"18:42\"");
}

TEST(SimbadTest, ThrottlingIsWaitedOutThroughTheClock) {
  FakeServer server({FakeServer::Answer(429, "Too many requests", Mode::kAnswer,
                                        "Retry-After: 2\r\n", "text/plain"),
                     Votable(Recorded("v1500_cyg.xml"))});
  CountingClock clock;
  SimbadTap simbad(At(server), clock);
  domain::SourceAnswer answer = simbad.Identify("V1500 CYG", 25000);
  EXPECT_EQ(answer.matches.size(), 1u);
  EXPECT_EQ(clock.sleeps, std::vector<int64_t>{2000});
  ASSERT_EQ(server.requests().size(), 2u);
  EXPECT_EQ(server.requests()[1].second,
            Form(SimbadTap::IdentifyQuery("V1500 CYG"), 10));
}

TEST(SimbadTest, ALongRetryAfterIsRetryableAtOnce) {
  FakeServer server(
      {FakeServer::Answer(503, "Service unavailable", Mode::kAnswer,
                          "Retry-After: 120\r\n", "text/plain")});
  CountingClock clock;
  SimbadTap simbad(At(server), clock);
  ExpectClientError(
      [&] { simbad.Identify("V1405 CAS", 25000); }, ClientFailure::kUnavailable,
      "SIMBAD: HTTP 503 (Retry-After 120 s): Service unavailable");
  EXPECT_TRUE(clock.sleeps.empty());
}

TEST(SimbadTest, AServerErrorIsRetryable) {
  FakeServer server({FakeServer::Answer(500, "Internal Server Error",
                                        Mode::kAnswer, "", "text/plain")});
  SimbadTap simbad(At(server));
  ExpectClientError([&] { simbad.Identify("V1500 CYG", 25000); },
                    ClientFailure::kUnavailable,
                    "SIMBAD: HTTP 500: Internal Server Error");
}

TEST(SimbadTest, AStalledConnectionTimesOut) {
  FakeServer server({FakeServer::Answer(200, Recorded("v1500_cyg.xml"),
                                        Mode::kStall, "", kVoTableType)});
  Service service = At(server);
  service.request_timeout_ms = 300;
  SimbadTap simbad(service);
  ExpectClientError([&] { simbad.Identify("V1500 CYG", 25000); },
                    ClientFailure::kUnavailable,
                    "SIMBAD: curl: Timeout was reached");
}

TEST(SimbadTest, ABadRequestCarriesTheServicesMessage) {
  // SIMBAD answers an ADQL it cannot run with 400 and a VOTable error.
  const std::string body =
      "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<VOTABLE version=\"1.3\" "
      "xmlns=\"http://www.ivoa.net/xml/VOTable/v1.3\">\n<RESOURCE "
      "type=\"results\">\n<INFO name=\"QUERY_STATUS\" value=\"ERROR\">"
      "Incorrect ADQL query: Encountered \".\"</INFO>\n</RESOURCE>\n"
      "</VOTABLE>\n";
  FakeServer server(
      {FakeServer::Answer(400, body, Mode::kAnswer, "", "text/xml")});
  SimbadTap simbad(At(server));
  std::string excerpt = body;
  std::replace(excerpt.begin(), excerpt.end(), '\n', ' ');
  while (excerpt.back() == ' ') excerpt.pop_back();
  ExpectClientError([&] { simbad.Identify("V1500 CYG", 25000); },
                    ClientFailure::kInvalidRequest,
                    "SIMBAD: HTTP 400: " + excerpt);
}

TEST(SimbadTest, NoTimeLeftAsksNothing) {
  FakeServer server({});
  CountingClock clock;
  SimbadTap simbad(At(server), clock);
  ExpectClientError([&] { simbad.Identify("V1500 CYG", 0); },
                    ClientFailure::kUnavailable, "SIMBAD: no time left to ask");
  EXPECT_TRUE(server.requests().empty());
}

TEST(SimbadTest, TheBibliographyIsReferenceCandidatesByYear) {
  FakeServer server({Votable(Recorded("v1500_cyg_refs.xml"))});
  SimbadTap simbad(At(server));
  domain::ReferenceQuery query;
  query.nova_id = "d4bbdda3-6824-4e82-b1ce-1b781190fbec";
  query.names = {"V1500 CYG", "NOVA CYG 1975"};
  query.budget_ms = 25000;
  std::vector<json> candidates = simbad.Bibliography(query);

  ASSERT_EQ(server.requests().size(), 1u);
  EXPECT_EQ(SimbadTap::BibliographyQuery("V1500 CYG"),
            "SELECT TOP 200 ref.bibcode, ref.doi, ref.title, ref.year FROM "
            "ident JOIN has_ref ON has_ref.oidref = ident.oidref JOIN ref ON "
            "ref.oidbib = has_ref.oidbibref WHERE ident.id = 'V1500 CYG' "
            "ORDER BY ref.year, ref.bibcode");
  ExpectPost(server.requests()[0],
             Form(SimbadTap::BibliographyQuery("V1500 CYG"), 200));
  EXPECT_EQ(json(candidates), json::parse(R"([
    {"source": "SIMBAD", "bibcode": "1975IAUC.2826....1H",
     "title": "Nova Cygni 1975", "publication_date": "1975",
     "role": "DISCOVERY"},
    {"source": "SIMBAD", "bibcode": "1975IBVS.1050....1W",
     "title": "Photometry of Nova Cygni 1975", "publication_date": "1975",
     "role": "ANALYSIS"},
    {"source": "SIMBAD", "bibcode": "1977ApJ...215..873F",
     "doi": "10.1086/155424",
     "title": "The interstellar reddening and distance of Nova Cygni 1975 /V1500 Cygni/",
     "publication_date": "1977", "role": "ANALYSIS"},
    {"source": "SIMBAD", "bibcode": "1985GCVS4.C......0K",
     "title": "General Catalogue of Variable Stars, 4th ed.",
     "publication_date": "1985", "role": "ANALYSIS"},
    {"source": "SIMBAD", "bibcode": "1988ApJ...332..282S",
     "doi": "10.1086/166652",
     "title": "V1500 Cygni - Discovery of a magnetic nova",
     "publication_date": "1988", "role": "ANALYSIS"}])"));
  for (const json& c : candidates)
    EXPECT_NO_THROW(domain::NormalizeReferenceCandidate(c)) << c.dump();
}

TEST(SimbadTest, ABibliographyNeedsAName) {
  FakeServer server({});
  SimbadTap simbad(At(server));
  domain::ReferenceQuery query;
  query.nova_id = "d4bbdda3-6824-4e82-b1ce-1b781190fbec";
  ExpectClientError(
      [&] { simbad.Bibliography(query); }, ClientFailure::kInvalidRequest,
      "SIMBAD: nova d4bbdda3-6824-4e82-b1ce-1b781190fbec has no name "
      "to look its references up by");
  EXPECT_TRUE(server.requests().empty());
}

TEST(SimbadTest, AReferenceWithoutBibcodeIsMalformed) {
  FakeServer server({Votable(
      "<VOTABLE version=\"1.4\"><RESOURCE type=\"results\"><INFO "
      "name=\"QUERY_STATUS\" value=\"OK\"/><TABLE>"
      "<FIELD name=\"bibcode\" datatype=\"char\" arraysize=\"19\"/>"
      "<FIELD name=\"doi\" datatype=\"char\" arraysize=\"*\"/>"
      "<FIELD name=\"title\" datatype=\"unicodeChar\" arraysize=\"*\"/>"
      "<FIELD name=\"year\" datatype=\"short\"/><DATA><TABLEDATA>"
      "<TR><TD/><TD/><TD>Untitled</TD><TD>1976</TD></TR>"
      "</TABLEDATA></DATA></TABLE></RESOURCE></VOTABLE>")});
  SimbadTap simbad(At(server));
  domain::ReferenceQuery query;
  query.names = {"V1500 CYG"};
  ExpectClientError([&] { simbad.Bibliography(query); },
                    ClientFailure::kMalformedResponse,
                    "SIMBAD: reference row 1 has no bibcode");
}

}  // namespace
}  // namespace simbad_test
}  // namespace novacat::sources
