#include "novacat/domain/names.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "novacat/domain/constellations.h"
#include "test_util.h"

namespace novacat::domain {
namespace names_test {
namespace {

using testing::Fails;

std::string Upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  }
  return out;
}

TEST(NormalizeCandidateNameTest, TheIndexKeyIsNamePlusTheCanonicalForm) {
  EXPECT_EQ(NormalizeCandidateName("V1500 Cyg"), "V1500 CYG");
  EXPECT_EQ(NameResolutionKey(NormalizeCandidateName("V1500 Cyg")),
            "NAME#V1500 CYG");
}

// --- Rule 3: whitespace ------------------------------------------------------

TEST(NormalizeCandidateNameTest, TrimsAndCollapsesAsciiWhitespace) {
  EXPECT_EQ(NormalizeCandidateName("  V1500   Cyg  "), "V1500 CYG");
  EXPECT_EQ(NormalizeCandidateName("\tV1500\t\tCyg\t"), "V1500 CYG");
  EXPECT_EQ(NormalizeCandidateName(" Gaia   DR3  \t 2080 "), "GAIA DR3 2080");
}

TEST(NormalizeCandidateNameTest, UnicodeSpacesAreWhitespace) {
  EXPECT_EQ(NormalizeCandidateName("V1500\u00a0Cyg"), "V1500 CYG");  // NBSP
  EXPECT_EQ(NormalizeCandidateName("V1500\u2009Cyg"), "V1500 CYG");  // thin
  EXPECT_EQ(NormalizeCandidateName("\u3000V1500\u3000Cyg\u3000"),
            "V1500 CYG");  // ideographic
  EXPECT_EQ(NormalizeCandidateName("Gaia\u202fDR3\u205f\u2000\u200a2080"),
            "GAIA DR3 2080");
  EXPECT_EQ(NormalizeCandidateName("Gaia\u1680DR3"), "GAIA DR3");
}

// --- Rule 4: case ------------------------------------------------------------

TEST(NormalizeCandidateNameTest, UpperCasesAsciiOnly) {
  EXPECT_EQ(NormalizeCandidateName("v1500 cyg"), "V1500 CYG");
  EXPECT_EQ(NormalizeCandidateName("asassn-21qj"), "ASASSN-21QJ");
  EXPECT_EQ(NormalizeCandidateName("PNV J20233073+2046041"),
            "PNV J20233073+2046041");
  // Non-ASCII letters are kept as they are.
  EXPECT_EQ(NormalizeCandidateName("Étoile nouvelle"), "ÉTOILE NOUVELLE");
  EXPECT_EQ(NormalizeCandidateName("étoile"), "éTOILE");
}

// --- Rule 2: compatibility folding -------------------------------------------

TEST(NormalizeCandidateNameTest, FullwidthFormsFoldToAscii) {
  EXPECT_EQ(NormalizeCandidateName("Ｖ１５００ Ｃｙｇ"), "V1500 CYG");
  EXPECT_EQ(NormalizeCandidateName("Ｖ１５００\u3000Ｃｙｇｎｉ"), "V1500 CYG");
  EXPECT_EQ(
      NormalizeCandidateName("ＰＮＶ　Ｊ２０２３３０７３＋２０４６０４１"),
      "PNV J20233073+2046041");
  EXPECT_EQ(NormalizeCandidateName("ａｓａｓｓｎ－２１ｑｊ"), "ASASSN-21QJ");
}

TEST(NormalizeCandidateNameTest, HyphenAndMinusVariantsFoldToHyphenMinus) {
  for (std::string dash : {"\u2010", "\u2011", "\u2012", "\u2013", "\u2014",
                           "\u2015", "\u2212", "\ufe58", "\ufe63", "\uff0d"}) {
    EXPECT_EQ(NormalizeCandidateName("ASASSN" + dash + "21qj"), "ASASSN-21QJ")
        << dash;
    EXPECT_EQ(NormalizeCandidateName("PNV J17355050" + dash + "2934241"),
              "PNV J17355050-2934241")
        << dash;
  }
  EXPECT_EQ(NormalizeCandidateName("PNV J20233073\ufe622046041"),
            "PNV J20233073+2046041");
}

TEST(NormalizeCandidateNameTest, InvisibleCharactersAreRemoved) {
  EXPECT_EQ(NormalizeCandidateName("\ufeffV1500 Cyg"), "V1500 CYG");  // BOM
  EXPECT_EQ(NormalizeCandidateName("V15\u00ad00 Cyg"), "V1500 CYG");  // SHY
  // Removing the zero-width space joins the parts: still the same star.
  EXPECT_EQ(NormalizeCandidateName("V1500\u200bCyg"), "V1500 CYG");
  EXPECT_EQ(NormalizeCandidateName("Gaia\u200c\u200d\u2060DR3"), "GAIADR3");
}

TEST(NormalizeCandidateNameTest, NumeroSignIsNo) {
  EXPECT_EQ(NormalizeCandidateName("Nova Sgr 2015 \u2116 2"),
            "NOVA SGR 2015 NO. 2");
  EXPECT_EQ(NormalizeCandidateName("Nova Sgr 2015 \u21162"),
            "NOVA SGR 2015 NO. 2");
}

// --- Rule 5: variable-star designations --------------------------------------

TEST(NormalizeCandidateNameTest, GcvsNumberSpellingsCollapse) {
  for (const char* spelling :
       {"V1500 Cyg", "V1500 CYG", "v1500 cyg", "v1500cyg", "V1500Cyg",
        "V 1500 Cyg", "V1500 Cyg.", "V1500 Cygni", "V1500 CYGNI", "v1500 cygni",
        "V1500Cygni", "  V1500\u00a0Cygni  ", "Ｖ１５００ Ｃｙｇ"}) {
    EXPECT_EQ(NormalizeCandidateName(spelling), "V1500 CYG") << spelling;
  }
  EXPECT_EQ(NormalizeCandidateName("V838 Monocerotis"), "V838 MON");
  EXPECT_EQ(NormalizeCandidateName("V5668 Sagittarii"), "V5668 SGR");
  EXPECT_EQ(NormalizeCandidateName("V1500 Coronae Borealis"), "V1500 CRB");
  EXPECT_EQ(NormalizeCandidateName("V1500 CoronaeBorealis"), "V1500 CRB");
  EXPECT_EQ(NormalizeCandidateName("V1500 CrB"), "V1500 CRB");
  EXPECT_EQ(NormalizeCandidateName("V1234 Bootis"), "V1234 BOO");
  EXPECT_EQ(NormalizeCandidateName("V1234 BOÖTIS"), "V1234 BOO");
}

TEST(NormalizeCandidateNameTest, EveryConstellationGenitiveAndAbbreviation) {
  ASSERT_EQ(Constellations().size(), 88u);
  for (const Constellation& c : Constellations()) {
    std::string abbreviation = Upper(c.abbreviation);
    std::string genitive(c.genitive);
    EXPECT_EQ(NormalizeCandidateName("V1234 " + genitive),
              "V1234 " + abbreviation)
        << genitive;
    EXPECT_EQ(NormalizeCandidateName("V1234 " + std::string(c.abbreviation)),
              "V1234 " + abbreviation)
        << c.abbreviation;
    EXPECT_EQ(NormalizeCandidateName("nova " + genitive + " 2001"),
              "NOVA " + abbreviation + " 2001")
        << genitive;
    EXPECT_EQ(NormalizeCandidateName("RS " + genitive), "RS " + abbreviation)
        << genitive;
  }
}

TEST(NormalizeCandidateNameTest, NotAGcvsDesignationStaysGeneric) {
  // Leading zero, unknown constellation, nominative instead of genitive,
  // extra parts: only steps 1-4 apply.
  EXPECT_EQ(NormalizeCandidateName("V01500 Cyg"), "V01500 CYG");
  EXPECT_EQ(NormalizeCandidateName("V1500cyx"), "V1500CYX");
  EXPECT_EQ(NormalizeCandidateName("V1500 Cygnus"), "V1500 CYGNUS");
  EXPECT_EQ(NormalizeCandidateName("V1500 Cyg b"), "V1500 CYG B");
  EXPECT_EQ(NormalizeCandidateName("V1500-Cyg"), "V1500-CYG");
  EXPECT_EQ(NormalizeCandidateName("V1500"), "V1500");
}

TEST(NormalizeCandidateNameTest, ArgelanderLetterSpellingsCollapse) {
  for (const char* spelling : {"RS Oph", "rs oph", "RSOph", "RS Ophiuchi",
                               "RS  OPHIUCHI", "RS Oph."}) {
    EXPECT_EQ(NormalizeCandidateName(spelling), "RS OPH") << spelling;
  }
  EXPECT_EQ(NormalizeCandidateName("T CrB"), "T CRB");
  EXPECT_EQ(NormalizeCandidateName("T Coronae Borealis"), "T CRB");
  EXPECT_EQ(NormalizeCandidateName("TCrB"), "T CRB");
  EXPECT_EQ(NormalizeCandidateName("GK Persei"), "GK PER");
  EXPECT_EQ(NormalizeCandidateName("DQ Her"), "DQ HER");
  EXPECT_EQ(NormalizeCandidateName("U Sco"), "U SCO");
  EXPECT_EQ(NormalizeCandidateName("Z And"), "Z AND");
  EXPECT_EQ(NormalizeCandidateName("ZAnd"), "Z AND");
  EXPECT_EQ(NormalizeCandidateName("QZ Aur"), "QZ AUR");
  EXPECT_EQ(NormalizeCandidateName("AA Cyg"), "AA CYG");
  // The letter V is a designation too; "V Cyg" is not "V<number> Cyg".
  EXPECT_EQ(NormalizeCandidateName("VCyg"), "V CYG");
}

TEST(NormalizeCandidateNameTest, InvalidArgelanderLettersStayGeneric) {
  EXPECT_EQ(NormalizeCandidateName("JJCyg"), "JJCYG");    // no J
  EXPECT_EQ(NormalizeCandidateName("AJCyg"), "AJCYG");    // no J
  EXPECT_EQ(NormalizeCandidateName("BACyg"), "BACYG");    // A before B
  EXPECT_EQ(NormalizeCandidateName("ACyg"), "ACYG");      // single: R..Z only
  EXPECT_EQ(NormalizeCandidateName("RSTOph"), "RSTOPH");  // three letters
}

// --- Rule 5: nova names ------------------------------------------------------

TEST(NormalizeCandidateNameTest, NovaNameSpellingsCollapse) {
  for (const char* spelling :
       {"Nova Cygni 1975", "Nova Cyg 1975", "N Cyg 1975", "N. Cyg. 1975",
        "N.Cyg.1975", "nova cygni 1975", "NOVA CYGNI 1975", "NovaCyg1975",
        "Nova  Cygni\u00a01975", "Nova Cyg. 1975", "n cyg 1975"}) {
    EXPECT_EQ(NormalizeCandidateName(spelling), "NOVA CYG 1975") << spelling;
  }
  EXPECT_EQ(NormalizeCandidateName("Nova Coronae Australis 1981"),
            "NOVA CRA 1981");
  EXPECT_EQ(NormalizeCandidateName("Nova Persei 1901"), "NOVA PER 1901");
}

TEST(NormalizeCandidateNameTest, NovaNumberWithinTheYear) {
  for (const char* spelling :
       {"Nova Sgr 2015 No. 2", "Nova Sagittarii 2015 No 2", "N Sgr 2015 #2",
        "Nova Sgr 2015 no.2", "Nova Sgr 2015 No. 02", "nova sgr 2015 # 2",
        "Nova Sgr 2015No.2"}) {
    EXPECT_EQ(NormalizeCandidateName(spelling), "NOVA SGR 2015 NO. 2")
        << spelling;
  }
  EXPECT_EQ(NormalizeCandidateName("Nova Sco 2010 No. 12"),
            "NOVA SCO 2010 NO. 12");
}

TEST(NormalizeCandidateNameTest, NotANovaNameStaysGeneric) {
  EXPECT_EQ(NormalizeCandidateName("Nova Cygnus 1975"), "NOVA CYGNUS 1975");
  EXPECT_EQ(NormalizeCandidateName("Nova Cyg 75"), "NOVA CYG 75");
  EXPECT_EQ(NormalizeCandidateName("Nova Cyg 19755"), "NOVA CYG 19755");
  EXPECT_EQ(NormalizeCandidateName("Nova Cyg 1975b"), "NOVA CYG 1975B");
  EXPECT_EQ(NormalizeCandidateName("Nova Cyg 1975 No. 0"),
            "NOVA CYG 1975 NO. 0");
  EXPECT_EQ(NormalizeCandidateName("Nova Cyg"), "NOVA CYG");
  EXPECT_EQ(NormalizeCandidateName("NGC 6543"), "NGC 6543");
  EXPECT_EQ(NormalizeCandidateName("Novak 1975"), "NOVAK 1975");
}

TEST(NormalizeCandidateNameTest, TnsNamesGetTheirSpace) {
  EXPECT_EQ(NormalizeCandidateName("AT2021abc"), "AT 2021ABC");
  EXPECT_EQ(NormalizeCandidateName("at 2021abc"), "AT 2021ABC");
  EXPECT_EQ(NormalizeCandidateName("SN2011fe"), "SN 2011FE");
  EXPECT_EQ(NormalizeCandidateName("AT 2021 abc"), "AT 2021 ABC");  // generic
  EXPECT_EQ(NormalizeCandidateName("AT2021abcd"), "AT2021ABCD");    // generic
}

TEST(NormalizeCandidateNameTest, AliasesOfOneStarStayDistinct) {
  // Same object, two designations: only the archives can join them.
  EXPECT_NE(NormalizeCandidateName("V1500 Cyg"),
            NormalizeCandidateName("Nova Cygni 1975"));
}

TEST(NormalizeCandidateNameTest, IsIdempotent) {
  for (const char* name :
       {"V1500 Cygni", "Nova Sagittarii 2015 No 2", "RS Ophiuchi", "AT2021abc",
        "Ｖ１５００ Ｃｙｇ", "  pnv  j20233073\u2212204 ", "Étoile"}) {
    std::string once = NormalizeCandidateName(name);
    EXPECT_EQ(NormalizeCandidateName(once), once) << name;
  }
}

// --- Rule 1: invalid input ---------------------------------------------------

TEST(NormalizeCandidateNameTest, EmptyOrWhitespaceOnlyIsInvalid) {
  for (const char* name :
       {"", " ", " \t  ", "\u00a0\u2009\u3000", "\u200b", "\ufeff \u00ad"}) {
    EXPECT_TRUE(Fails(
        NameFailure::kEmpty, [&] { NormalizeCandidateName(name); },
        "invalid candidate_name: empty or only whitespace"))
        << name;
  }
}

TEST(NormalizeCandidateNameTest, OverLongIsInvalid) {
  EXPECT_EQ(NormalizeCandidateName(std::string(256, 'a')),
            std::string(256, 'A'));
  EXPECT_TRUE(Fails(
      NameFailure::kTooLong,
      [] { NormalizeCandidateName(std::string(257, 'a')); },
      "invalid candidate_name: longer than 256 bytes (257)"));
  // Bytes, not characters: 86 fullwidth letters are 258 bytes.
  std::string fullwidth;
  for (int i = 0; i < 86; ++i) fullwidth += "Ａ";
  EXPECT_TRUE(Fails(
      NameFailure::kTooLong, [&] { NormalizeCandidateName(fullwidth); },
      "invalid candidate_name: longer than 256 bytes (258)"));
}

TEST(NormalizeCandidateNameTest, ControlCharactersAreInvalid) {
  struct Case {
    std::string name;
    std::string message;
    NameFailure failure = NameFailure::kControlCharacter;
  };
  for (const Case& c : std::vector<Case>{
           {"V1500\x07"
            "Cyg",
            "control character U+0007 at byte 5"},
           {"V1500 Cyg\n", "control character U+000A at byte 9"},
           {"\rV1500", "control character U+000D at byte 0"},
           {std::string("V1500\0Cyg", 9), "control character U+0000 at byte 5"},
           {"a\x1b[31m", "control character U+001B at byte 1"},
           {"\x7f", "control character U+007F at byte 0"},
           {"V\xc2\x85", "control character U+0085 at byte 1"},
           {"ab\u202eV1500", "control character U+202E at byte 2"},
           {"\u200fV1500", "control character U+200F at byte 0"},
           {"V1500\u2066Cyg\u2069", "control character U+2066 at byte 5"},
           {"V1500\xef\xbf\xbd",
            "replacement character U+FFFD at byte 5 (the text was decoded "
            "wrongly upstream)",
            NameFailure::kReplacementCharacter},
       }) {
    EXPECT_TRUE(Fails(
        c.failure, [&] { NormalizeCandidateName(c.name); },
        "invalid candidate_name: " + c.message))
        << c.message;
  }
}

TEST(NormalizeCandidateNameTest, InvalidUtf8IsInvalid) {
  struct Case {
    std::string name;
    int byte;
  };
  for (const Case& c : std::vector<Case>{
           {"V1500 \xff", 6},        // never valid
           {"\xc0\xaf", 0},          // overlong '/'
           {"\xe0\x80\xaf", 0},      // overlong, 3 bytes
           {"ab\xed\xa0\x80", 2},    // surrogate U+D800
           {"abc\xe2\x82", 3},       // truncated
           {"\xf4\x90\x80\x80", 0},  // above U+10FFFF
           {"V\x80", 1},             // lone continuation byte
           {"V\xc3(", 1},            // bad continuation
       }) {
    EXPECT_TRUE(Fails(
        NameFailure::kNotUtf8, [&] { NormalizeCandidateName(c.name); },
        "invalid candidate_name: not valid UTF-8 at byte " +
            std::to_string(c.byte)))
        << c.byte;
  }
}

}  // namespace
}  // namespace names_test
}  // namespace novacat::domain
