// The Transient Name Server's object API (IAU's registry of new
// transients), for name resolution of transients SIMBAD does not know yet
// (initialize_nova): "AT 2021ABC", "SN 2021ABC", survey names such as
// "TCP J21113658+4809030".
//
// Requests: POST <base>/get/object or <base>/get/search (<base> ends in
// "/api"), a form of api_key=<key> and data=<JSON>, with the User-Agent
// TNS requires of bots: tns_marker{"tns_id": "<bot_id>", "type": "bot",
// "name": "<bot_name>"}.
//   "AT 2021ABC", "SN 2021ABC" (also without the space):
//     get/object {"objname": "2021abc", "photometry": "0", "spectra": "0"}
//   any other name: get/search {"internal_name": "<name>",
//     "internal_name_exact_match": 1}, then, for the one object found,
//     get/object as above. Several objects found are several matches, named
//     "<prefix> <objname>" and not asked about further: the name is
//     ambiguous whatever they are.
// Answers: {"id_code": 200, "id_message": "OK", "data": {"reply": ...}}
// (also read: the reply as "data" itself); get/search's reply is a list of
// {"objname", "prefix", "objid"}, get/object's the object: objname,
// name_prefix, radeg, decdeg (J2000 degrees), object_type {"name", "id"},
// internal_names ("ZTF21abc, TCP J..."). An objname TNS does not know is a
// reply without objname carrying message_id 110 ("No results found").
//
// Classification: object_type "Nova" is a nova whose classical status TNS
// does not tell (nullopt); any other type not a nova (NO). An object not
// classified yet says nothing, so it is no match: as "not a nova" it would
// conflict with a catalog that knows better.
//
// Errors (domain::ClientError, "<service name>: ..."): HTTP as
// HttpClient::Fetch classifies it; a body that is not the envelope above,
// an id_code other than 200, an object without objname or with a position
// that is not a pair of numbers: kMalformedResponse. The API key is never
// part of a message: a service's message that repeats it has it replaced
// by "<api key>".
#pragma once

#include <chrono>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "novacat/domain/resolver.h"
#include "novacat/sources/http.h"

namespace novacat::sources {

struct TnsCredentials {
  std::string api_key;
  std::string bot_id;
  std::string bot_name;
};

// "2021abc" for "AT 2021ABC", "SN 2021ABC", "AT2021ABC" (TNS's objname:
// year and lower-case letters); nullopt for any other name.
std::optional<std::string> TnsObjname(std::string_view normalized_name);

class Tns {
 public:
  Tns(Service service, TnsCredentials credentials,
      Clock& clock = SystemClock());

  // What TNS knows of this name (source "TNS"). `budget_ms` bounds both
  // requests together.
  domain::SourceAnswer Identify(std::string_view normalized_name,
                                int64_t budget_ms);

  // The User-Agent every request carries (tns_marker, see above).
  std::string Marker() const;

 private:
  // POSTs `data` to <base><path> within what is left of `budget_ms` since
  // `start`; the envelope's reply.
  nlohmann::json Ask(const std::string& path, const nlohmann::json& data,
                     std::chrono::steady_clock::time_point start,
                     int64_t budget_ms);
  // get/object for `objname`: nullopt when TNS does not know it.
  std::optional<domain::SourceMatch> Object(
      const std::string& objname, std::chrono::steady_clock::time_point start,
      int64_t budget_ms);

  HttpClient client_;
  TnsCredentials credentials_;
  Clock& clock_;
};

}  // namespace novacat::sources
