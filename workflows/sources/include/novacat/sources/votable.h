// VOTable (IVOA VOTable 1.3/1.4), the answer format of SIMBAD's TAP
// service, ESO's SSAP service and other IVOA services, read with pugixml.
//
// What is read: the first RESOURCE whose type is "results" (else the first
// RESOURCE), its INFO name="QUERY_STATUS", and its first TABLE: the FIELDs
// (name, ID, datatype, arraysize, unit, ucd, utype) and the rows of its
// TABLEDATA, each cell's text as given (an empty TD is null; a row with
// fewer TDs than FIELDs is padded with nulls, one with more is malformed).
// BINARY and BINARY2 serializations are refused (ParseVoTable says so): the
// clients ask for TABLEDATA (SIMBAD's TAP answers BINARY to a plain
// "votable", so SimbadTap asks for "votable/td").
//
// Columns are found by name or by UCD, never by position.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "novacat/domain/failure.h"

namespace novacat::sources {

struct VoField {
  std::string name;
  std::string id;
  std::string datatype;   // "char", "double", "long", ...
  std::string arraysize;  // "*", "32", "" ...
  std::string unit;
  std::string ucd;
  std::string utype;
};

struct VoTable {
  std::vector<VoField> fields;
  // One per TR, a cell per FIELD; nullopt for an empty or missing TD.
  std::vector<std::vector<std::optional<std::string>>> rows;
  // The QUERY_STATUS INFO's value ("OK", "OVERFLOW", "ERROR"), "" when the
  // document has none.
  std::string query_status;
  std::string query_status_text;  // its text (or content), for messages

  // The column named `name` (case-insensitively, as ADQL names are), else
  // the one whose ID is `name`; nullopt when none.
  std::optional<size_t> Column(std::string_view name) const;
  // The first column whose UCD is `ucd` (case-insensitively).
  std::optional<size_t> ColumnByUcd(std::string_view ucd) const;
  // The cell of `row` in the column Column(name) finds; nullopt when the
  // column does not exist or the cell is null.
  std::optional<std::string> Cell(size_t row, std::string_view name) const;
};

// Parses a VOTable document. Throws domain::ClientError kMalformedResponse
// naming `service`: "<service>: malformed VOTable: <why>" for text that is
// not XML, has no VOTABLE root or no TABLE where the status is not ERROR,
// or uses a serialization other than TABLEDATA; "<service>: query failed:
// <the INFO's text>" when QUERY_STATUS is ERROR.
VoTable ParseVoTable(std::string_view text, std::string_view service);

// A cell as a number: nullopt when absent or NaN (VOTable's null for
// floating-point cells); throws ClientError
// kMalformedResponse "<service>: <column> is not a number: \"x\"" when it
// is not a finite decimal number.
std::optional<double> NumberCell(const VoTable& table, size_t row,
                                 std::string_view column,
                                 std::string_view service);

}  // namespace novacat::sources
