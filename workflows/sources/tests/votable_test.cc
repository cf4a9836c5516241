#include "novacat/sources/votable.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "sources_test_util.h"

namespace novacat::sources {
namespace votable_test {
namespace {

using domain::ClientError;
using domain::ClientFailure;

// A TAP answer as SIMBAD writes one: namespaced, QUERY_STATUS OK before the
// TABLE, an empty cell.
constexpr char kAnswer[] = R"(<?xml version="1.0" encoding="UTF-8"?>
<VOTABLE version="1.4" xmlns="http://www.ivoa.net/xml/VOTable/v1.3">
<RESOURCE type="results">
<INFO name="QUERY_STATUS" value="OK" />
<TABLE>
<FIELD name="main_id" datatype="char" arraysize="*" ucd="meta.id;meta.main"/>
<FIELD name="ra" datatype="double" unit="deg" ucd="pos.eq.ra;meta.main"/>
<FIELD name="dec" datatype="double" unit="deg" ucd="pos.eq.dec;meta.main"/>
<DATA><TABLEDATA>
<TR><TD>V* V1500 Cyg</TD><TD>317.9024208</TD><TD>48.1505417</TD></TR>
<TR><TD>NOVA Oph 1848</TD><TD></TD><TD/></TR>
</TABLEDATA></DATA>
</TABLE>
</RESOURCE>
</VOTABLE>)";

TEST(VoTableTest, ReadsFieldsAndRowsByNameAndUcd) {
  VoTable t = ParseVoTable(kAnswer, "SIMBAD");
  EXPECT_EQ(t.query_status, "OK");
  ASSERT_EQ(t.fields.size(), 3u);
  EXPECT_EQ(t.fields[1].name, "ra");
  EXPECT_EQ(t.fields[1].datatype, "double");
  EXPECT_EQ(t.fields[1].unit, "deg");
  EXPECT_EQ(t.fields[0].arraysize, "*");
  EXPECT_EQ(t.Column("RA"), 1u);  // ADQL names are case-insensitive
  EXPECT_EQ(t.ColumnByUcd("POS.EQ.DEC;META.MAIN"), 2u);
  EXPECT_EQ(t.Column("otype"), std::nullopt);
  ASSERT_EQ(t.rows.size(), 2u);
  EXPECT_EQ(t.Cell(0, "main_id"), "V* V1500 Cyg");
  EXPECT_EQ(t.Cell(1, "ra"), std::nullopt);
  EXPECT_EQ(t.Cell(1, "dec"), std::nullopt);
  EXPECT_EQ(t.Cell(2, "ra"), std::nullopt);
  EXPECT_EQ(NumberCell(t, 0, "ra", "SIMBAD"), 317.9024208);
  EXPECT_EQ(NumberCell(t, 1, "ra", "SIMBAD"), std::nullopt);
  EXPECT_THAT([&] { NumberCell(t, 0, "main_id", "SIMBAD"); },
              ::testing::ThrowsMessage<ClientError>(::testing::StrEq(
                  "SIMBAD: main_id is not a number: \"V* V1500 Cyg\"")));
}

TEST(VoTableTest, AnEmptyResultHasNoRows) {
  VoTable t = ParseVoTable(
      R"(<VOTABLE><RESOURCE type="results"><INFO name="QUERY_STATUS" value="OK"/>
<TABLE><FIELD name="x" datatype="int"/><DATA><TABLEDATA/></DATA></TABLE>
</RESOURCE></VOTABLE>)",
      "ESO SSAP");
  EXPECT_TRUE(t.rows.empty());
  EXPECT_EQ(t.fields.size(), 1u);
}

TEST(VoTableTest, TheResultsResourceIsChosenOverOthers) {
  VoTable t = ParseVoTable(
      R"(<VOTABLE><RESOURCE type="meta"><TABLE><FIELD name="meta"/></TABLE></RESOURCE>
<RESOURCE type="results"><TABLE><FIELD name="x"/><DATA><TABLEDATA><TR><TD>1</TD></TR></TABLEDATA></DATA></TABLE></RESOURCE></VOTABLE>)",
      "S");
  ASSERT_EQ(t.fields.size(), 1u);
  EXPECT_EQ(t.fields[0].name, "x");
  EXPECT_EQ(t.query_status, "");
}

// ParseVoTable's ClientError for `text`.
void ExpectFailure(std::string_view text, ClientFailure failure,
                   const std::string& message) {
  testing_util::ExpectClientError([&] { ParseVoTable(text, "ESO SSAP"); },
                                  failure, message);
}

TEST(VoTableTest, AQueryStatusErrorIsTheServicesMessage) {
  ExpectFailure(
      R"(<VOTABLE><RESOURCE type="results"><INFO name="QUERY_STATUS" value="ERROR">Incorrect ADQL query: unknown column "foo"</INFO></RESOURCE></VOTABLE>)",
      ClientFailure::kMalformedResponse,
      "ESO SSAP: query failed: Incorrect ADQL query: unknown column \"foo\"");
  ExpectFailure(
      R"(<VOTABLE><INFO name="QUERY_STATUS" value="ERROR"/></VOTABLE>)",
      ClientFailure::kMalformedResponse,
      "ESO SSAP: query failed: QUERY_STATUS ERROR");
}

TEST(VoTableTest, WhatIsNotAVoTableIsMalformed) {
  ExpectFailure("<html><body>Service down</body></html>",
                ClientFailure::kMalformedResponse,
                "ESO SSAP: malformed VOTable: no VOTABLE element");
  ExpectFailure("<VOTABLE><RESOURCE>", ClientFailure::kMalformedResponse,
                "ESO SSAP: malformed VOTable: Start-end tags mismatch at byte "
                "18");
  ExpectFailure("<VOTABLE/>", ClientFailure::kMalformedResponse,
                "ESO SSAP: malformed VOTable: no RESOURCE element");
  ExpectFailure("<VOTABLE><RESOURCE/></VOTABLE>",
                ClientFailure::kMalformedResponse,
                "ESO SSAP: malformed VOTable: no TABLE element");
  ExpectFailure(
      "<VOTABLE><RESOURCE><TABLE><FIELD name=\"a\"/><DATA><BINARY2><STREAM "
      "encoding=\"base64\">AAA=</STREAM></BINARY2></DATA></TABLE></RESOURCE>"
      "</VOTABLE>",
      ClientFailure::kMalformedResponse,
      "ESO SSAP: malformed VOTable: serialization BINARY2 is not read (only "
      "TABLEDATA)");
  ExpectFailure(
      "<VOTABLE><RESOURCE><TABLE><FIELD name=\"a\"/><DATA><TABLEDATA><TR><TD>"
      "1</TD><TD>2</TD></TR></TABLEDATA></DATA></TABLE></RESOURCE></VOTABLE>",
      ClientFailure::kMalformedResponse,
      "ESO SSAP: malformed VOTable: row 0 has 2 cells for 1 FIELDs");
}

}  // namespace
}  // namespace votable_test
}  // namespace novacat::sources
