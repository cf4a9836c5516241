// The 88 IAU constellations: abbreviation, Latin name and Latin genitive.
//
// Used by name normalization: variable-star designations (`V1500 Cygni`)
// and nova names (`Nova Cygni 1975`) carry a constellation either as its
// IAU three-letter abbreviation or as its Latin genitive; both map to the
// abbreviation, which the canonical names write in upper case (`CYG`).
#pragma once

#include <span>
#include <string_view>

namespace novacat::domain {

struct Constellation {
  std::string_view abbreviation;  // IAU, as the IAU writes it: "CrB"
  std::string_view name;          // Latin nominative: "Corona Borealis"
  std::string_view genitive;      // Latin genitive: "Coronae Borealis"
};

// All 88, in the IAU list's alphabetical order of the Latin name.
std::span<const Constellation> Constellations();

// The constellation `word` denotes, or nullptr. `word` is the abbreviation
// or the genitive, compared ignoring ASCII case and spaces ("CrB", "CRB",
// "coronae borealis", "CORONAEBOREALIS"); in "Boötis" the o-diaeresis may
// also be written "o" or "O" ("BOOTIS"). The nominative is not accepted:
// names use the genitive ("Nova Cygni", never "Nova Cygnus").
const Constellation* FindConstellation(std::string_view word);

}  // namespace novacat::domain
