// MAST's public API (the Mashup "invoke" service of mast.stsci.edu): the
// ProviderClient of the provider "MAST" (HST and IUE spectra, and the
// other missions MAST's CAOM holds).
//
// Every request is POST <base_url>/invoke (base_url
// "https://mast.stsci.edu/api/v0") with the form `request=<JSON>`:
//
//   {"service": "Mast.Caom.Cone",
//    "params": {"ra": 317.9024208, "dec": 48.1505417,
//               "radius": 0.001388888888888889},
//    "format": "json", "pagesize": 500, "page": 1}
//
// radius is in degrees: 5 arcsec (kMastSearchRadiusArcsec), wider than
// the pointing errors of IUE (whose target positions were often typed in
// from older catalogues, off by 2-3 arcsec) and as wide as the resolver's
// bands allow before another star. The observations whose
// dataproduct_type is "spectrum" are kept, and their products asked for
// by obsid, kMastObsidsPerRequest at a time:
//
//   {"service": "Mast.Caom.Products", "params": {"obsid": "1,2"},
//    "format": "json", "pagesize": 500, "page": 1}
//
// of which the science spectra are kept: productType "SCIENCE" and
// productSubGroupDescription X1D or SX1 (HST STIS/COS one-dimensional
// extractions), MXLO or MXHI (IUE NEWSIPS low/high dispersion extracted
// spectra). A product listed under several observations is kept once (by
// dataURI).
//
// MAST answers {"status": "COMPLETE", "msg": "", "data": [...],
// "fields": [...], "paging": {"page": 1, "pageSize": 500,
// "pagesFiltered": 1, "rows": 19, "rowsFiltered": 19, "rowsTotal": 19}}.
// Pages are asked for while paging.page < paging.pagesFiltered, at most
// kMastMaxPages per search (a bound on the answer; a nova has no more than
// a few hundred observations within 5 arcsec). "EXECUTING" (MAST has not
// finished; the request is to be sent again) is asked again after
// kMastExecutingWaitMs, at most kMastExecutingAsks times in all.
//
// A record is the observation's members and its product's, in MAST's own
// names, the product's winning where both have one (obs_id, obs_collection,
// dataproduct_type, ...), the observation's t_min, t_max, instrument_name,
// target_name, s_ra, s_dec kept; and dataURL set to the product's download
// URL, kMastDownloadUrl + the product's dataURI (characters other than
// unreserved ones, ':' and '/' percent-encoded):
//
//   {"obsid": "3000012345", "obs_id": "swp01744", "obs_collection": "IUE",
//    "instrument_name": "SWP", "t_min": 43631.54412, "t_max": ...,
//    "dataURI": "mast:IUE/url/pub/iue/data/swp/01000/swp01744.mxlo.gz",
//    "dataURL": "https://mast.stsci.edu/api/v0.1/Download/file?uri=mast:IUE/
//                url/pub/iue/data/swp/01000/swp01744.mxlo.gz",
//    "productFilename": "swp01744.mxlo.gz", "size": 27648,
//    "productSubGroupDescription": "MXLO", ...}
//
// NormalizeProviderRecords ("MAST", spectra.h) reads t_min, dataURL, size,
// obs_id and instrument_name.
//
// Errors (domain::ClientError, "<service name>: ..."): a query without
// ra_deg/dec_deg (or out of range) kInvalidRequest without a request;
// HttpClient::Fetch's classes; a body that is not JSON, not an object with
// a status, a status ERROR (MAST's msg quoted) or other than COMPLETE, a
// data member that is not an array of objects, an observation without an
// obsid kMalformedResponse; still EXECUTING after the last ask
// kUnavailable.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "novacat/domain/spectra.h"
#include "novacat/sources/http.h"

namespace novacat::sources {

inline constexpr double kMastSearchRadiusArcsec = 5.0;
inline constexpr int kMastPageSize = 500;
inline constexpr int kMastMaxPages = 10;
inline constexpr size_t kMastObsidsPerRequest = 100;
inline constexpr int kMastExecutingAsks = 5;
inline constexpr int64_t kMastExecutingWaitMs = 1000;
// MAST's file download service; a product's dataURI follows it.
inline constexpr char kMastDownloadUrl[] =
    "https://mast.stsci.edu/api/v0.1/Download/file?uri=";

class Mast : public domain::ProviderClient {
 public:
  explicit Mast(Service service, Clock& clock = SystemClock());
  std::vector<nlohmann::json> Query(
      const domain::ProviderQuery& query) override;

 private:
  // Every page of `service`'s answer to `params`: the data rows.
  std::vector<nlohmann::json> Search(
      const std::string& service, const nlohmann::json& params,
      std::chrono::steady_clock::time_point start, int64_t budget_ms);
  HttpClient http_;
  Clock& clock_;
};

}  // namespace novacat::sources
