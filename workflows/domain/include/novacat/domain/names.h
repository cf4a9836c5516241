// Canonical names of nova candidates (initialize_nova,
// NormalizeCandidateName).
//
// The canonical form is what the name-resolution index is keyed by:
// GSI2PK = NAME#<canonical> (NameResolutionKey). Two spellings of the same
// designation must give the same canonical form; two designations of the
// same object stay two aliases (`V1500 Cyg` and `Nova Cygni 1975` are the
// same star, but only the archives know that: they become V1500 CYG and
// NOVA CYG 1975).
//
// NormalizeCandidateName applies, in order:
//
// 1. Validation. The input must be valid UTF-8 (strict: no overlong forms,
//    no surrogates, nothing above U+10FFFF), at most kMaxCandidateNameBytes
//    bytes, and contain no control characters: C0 controls other than TAB
//    (so also no LF or CR), DEL, C1 controls (U+0080-U+009F), the
//    bidirectional controls (U+061C, U+200E, U+200F, U+202A-U+202E,
//    U+2066-U+2069) and U+FFFD (the mark of an earlier decoding failure).
// 2. Compatibility folding, an explicit NFKC-like table (no ICU):
//    - fullwidth forms U+FF01-U+FF5E -> ASCII U+0021-U+007E ("Ｖ１５００" ->
//      "V1500");
//    - hyphen and minus variants U+2010-U+2015, U+2212, U+FE58, U+FE63 ->
//      "-"; small plus U+FE62 -> "+";
//    - numero sign U+2116 -> "No" (as NFKC: "Nova Sgr 2015 № 2");
//    - invisible characters are removed: soft hyphen U+00AD, zero-width
//      space/non-joiner/joiner U+200B-U+200D, word joiner U+2060, BOM
//      U+FEFF.
//    Other non-ASCII characters are kept unchanged.
// 3. Whitespace. TAB, SPACE, NO-BREAK SPACE U+00A0, U+1680, the spaces
//    U+2000-U+200A (thin space U+2009 included), U+202F, U+205F and the
//    ideographic space U+3000 are whitespace; leading and trailing
//    whitespace is removed and every inner run becomes one SPACE. A name
//    that is then empty is invalid.
// 4. Case. ASCII letters are upper-cased (canonical case: UPPER, the form
//    catalogs use for keys; "Cyg" -> "CYG", "CrB" -> "CRB"). Non-ASCII
//    letters are left as they are.
// 5. Designations. When the whole name is one of these, it is rewritten to
//    its canonical form (<CON> is the IAU abbreviation in upper case; the
//    constellation may be written as abbreviation or Latin genitive in any
//    case, see FindConstellation):
//    - variable star, GCVS number: "V" digits, constellation, with or
//      without spaces between the parts and an optional "." after the
//      constellation: `V1500 Cyg`, `v1500cyg`, `V 1500 Cygni` ->
//      `V1500 CYG`. The number has no leading zero.
//    - variable star, Argelander letters (R..Z, RR..ZZ, AA..QZ without J,
//      the second letter not before the first): `RS Oph`, `RSOph`,
//      `RS Ophiuchi` -> `RS OPH`; `T Coronae Borealis` -> `T CRB`. When the
//      letters could be split two ways the name is left generic.
//    - nova name: "Nova" or "N" (optionally "N."), constellation, a four
//      digit year, optionally a number within the year ("No." / "No" / "#"
//      and digits): `Nova Cygni 1975`, `Nova Cyg 1975`, `N Cyg 1975`,
//      `N. Cyg. 1975` -> `NOVA CYG 1975`; `Nova Sgr 2015 No. 2`,
//      `N Sgr 2015 #2`, `Nova Sagittarii 2015 № 2` -> `NOVA SGR 2015 NO. 2`.
//    - TNS name: "AT" or "SN", a four digit year, 1-3 letters, with or
//      without the space: `AT2021abc` -> `AT 2021ABC`.
//    Every other name keeps the result of steps 1-4
//    (`PNV J20233073+2046041`, `ASASSN-21qj` -> `ASASSN-21QJ`).
//
// Normalization is idempotent: NormalizeCandidateName(canonical) ==
// canonical.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "novacat/domain/failure.h"

namespace novacat::domain {

// Longest accepted candidate_name, in bytes of UTF-8 (before folding).
inline constexpr size_t kMaxCandidateNameBytes = 256;

// The canonical form of `candidate_name` (see above). Throws NameError
// "invalid candidate_name: <why>" (detail(): <why>) when it is empty or
// only whitespace (kEmpty), too long (kTooLong), not valid UTF-8
// (kNotUtf8) or contains a control character (kControlCharacter) or
// U+FFFD (kReplacementCharacter); the message names the byte offset
// (0-based) of the offending input.
std::string NormalizeCandidateName(std::string_view candidate_name);

// The name-resolution index key of a canonical name: "NAME#" + name
// (GSI2PK, and PK of the alias item, AP-INIT-1 / AP-INIT-3).
std::string NameResolutionKey(std::string_view normalized_name);

}  // namespace novacat::domain
