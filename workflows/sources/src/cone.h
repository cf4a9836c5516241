// The position a provider's cone search is centred on, checked once for
// every client that searches by position (EsoSsap, Mast).
#pragma once

#include <cmath>
#include <string>
#include <utility>

#include "novacat/domain/failure.h"
#include "novacat/domain/spectra.h"

namespace novacat::sources {

// The query's (ra, dec). Throws domain::ClientError kInvalidRequest naming
// `service` and the nova when the query has no position, or one outside
// [0, 360) x [-90, 90] (its numbers written by `degrees`, as the service's
// own requests write them): nothing is asked.
inline std::pair<double, double> ConeCenter(const domain::ProviderQuery& query,
                                            const std::string& service,
                                            std::string (*degrees)(double)) {
  if (!query.ra_deg || !query.dec_deg) {
    throw domain::ClientError(domain::ClientFailure::kInvalidRequest,
                              service + ": nova " + query.nova_id +
                                  " has no position (a cone search needs "
                                  "ra_deg and dec_deg)");
  }
  const double ra = *query.ra_deg;
  const double dec = *query.dec_deg;
  if (!std::isfinite(ra) || ra < 0 || ra >= 360 || !std::isfinite(dec) ||
      dec < -90 || dec > 90) {
    throw domain::ClientError(
        domain::ClientFailure::kInvalidRequest,
        service + ": nova " + query.nova_id + " has position (" + degrees(ra) +
            ", " + degrees(dec) + "), outside [0, 360) x [-90, 90]");
  }
  return {ra, dec};
}

}  // namespace novacat::sources
