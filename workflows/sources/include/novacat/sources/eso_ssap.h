// ESO's Simple Spectral Access service (IVOA SSAP 1.1, the ESO Science
// Archive's Phase 3 1D spectra): the ProviderClient of the provider "ESO".
//
// One request per query, a cone search at the nova's position:
//
//   GET <base_url>?REQUEST=queryData&POS=<ra>,<dec>&SIZE=0.0027778&MAXREC=1000
//
// (base_url "https://archive.eso.org/ssap", path ""). POS is ICRS decimal
// degrees (ESO works in FK5; the two differ by less than 20 mas), written
// with 7 decimals (0.36 mas) and no trailing zeros. SIZE is the cone's
// DIAMETER in degrees (SSAP 1.1 section 8.4.1): 10 arcsec, a 5 arcsec
// radius, because a spectrum's s_ra/s_dec is the telescope's pointing,
// which for a slit or fibre spectrograph (UVES, X-shooter, FEROS, HARPS)
// sits within 1-2 arcsec of the target, while another star of a nova's
// field is rarely closer than 5 arcsec (the resolver's coordinate bands
// treat 5 arcsec as another object). MAXREC bounds the answer (ESO's usage
// rules); an answer cut there (QUERY_STATUS OVERFLOW) is returned as it is:
// its rows are whole products, and no nova has that many spectra.
//
// The answer is a VOTable (TABLEDATA). Each row becomes one JSON object
// keyed by FIELD name (the ID when a FIELD has no name), unchanged in
// meaning, with cells typed by the FIELD's datatype: short/int/long/
// unsignedByte as integers, float/double as numbers (NaN as null),
// boolean as true/false, everything else (char, unicodeChar, arrays) as the
// text given; an empty cell is null. ESO's SSAP rows carry, among others:
//
//   dp_id           "ADP.2016-06-02T10:01:19.436"   the archive's product id
//   CREATORDID      "ivo://eso.org/origfile?UV_SRED_..fits"  the creator's
//   access_url      "https://dataportal.eso.org/dataPortal/file/ADP..."
//   access_estsize  2304 (kbyte)       access_format "application/fits"
//   COLLECTION      "UVES"             TARGETNAME    "V5668 Sgr"
//   s_ra, s_dec     (deg)              APERTURE      (deg)
//   t_min, t_max    (MJD)              em_min, em_max (m)
//   SPECRP          resolving power    SNR
//
// and NormalizeProviderRecords ("ESO", spectra.h) reads them.
//
// Errors (domain::ClientError, messages "<service name>: ..."): a query
// without ra_deg/dec_deg, or with them out of range, kInvalidRequest
// without a request; what HttpClient::Fetch reports (429/503/5xx/transport
// kUnavailable, other 4xx kInvalidRequest); a body that is not a VOTable,
// a QUERY_STATUS ERROR or a cell that does not fit its datatype
// kMalformedResponse.
#pragma once

#include <nlohmann/json.hpp>
#include <vector>

#include "novacat/domain/spectra.h"
#include "novacat/sources/http.h"

namespace novacat::sources {

// The cone's diameter (SIZE) and the answer's bound (MAXREC).
inline constexpr double kEsoSsapSearchDiameterArcsec = 10.0;
inline constexpr int kEsoSsapMaxRecords = 1000;

class EsoSsap : public domain::ProviderClient {
 public:
  explicit EsoSsap(Service service, Clock& clock = SystemClock());
  std::vector<nlohmann::json> Query(
      const domain::ProviderQuery& query) override;

 private:
  HttpClient http_;
};

}  // namespace novacat::sources
