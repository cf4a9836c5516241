#include "sources_check.h"

#include <chrono>
#include <functional>

#include "novacat/sources/ads.h"
#include "novacat/sources/eso_ssap.h"
#include "novacat/sources/mast.h"
#include "novacat/sources/simbad.h"
#include "novacat/sources/tns.h"
#include "novacat/sources/vsx.h"
#include "text_table.h"

namespace novacat::workflows {

namespace {

// The known question: V1500 Cyg (Nova Cygni 1975), by its canonical name
// (the catalog's) and its ICRS position.
constexpr char kName[] = "V1500 CYG";
constexpr double kRa = 317.9024208;
constexpr double kDec = 48.1505417;

std::string Matches(const domain::SourceAnswer& answer) {
  if (answer.matches.empty()) return "no match";
  std::string text = std::to_string(answer.matches.size()) +
                     (answer.matches.size() == 1 ? " match: " : " matches: ");
  for (size_t i = 0; i < answer.matches.size(); ++i) {
    const domain::SourceMatch& m = answer.matches[i];
    text += (i ? ", " : "") + m.id + " (" + m.object_type + ")";
  }
  return text;
}

std::string Count(size_t n, const char* what) {
  return std::to_string(n) + " " + what + (n == 1 ? "" : "s");
}

SourceCheck Ask(std::string service, std::string question,
                const std::function<std::string()>& call) {
  SourceCheck check{
      std::move(service), std::move(question), "answered", 0, "", ""};
  auto start = std::chrono::steady_clock::now();
  try {
    check.found = call();
  } catch (const std::exception& e) {
    check.status = "failed";
    check.error = e.what();
  }
  check.latency_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                         std::chrono::steady_clock::now() - start)
                         .count();
  return check;
}

SourceCheck Skipped(std::string service, std::string question,
                    std::string reason) {
  return SourceCheck{std::move(service), std::move(question), "skipped", 0, "",
                     std::move(reason)};
}

}  // namespace

nlohmann::ordered_json SourceCheck::ToJson() const {
  nlohmann::ordered_json out = {{"service", service},
                                {"question", question},
                                {"status", status},
                                {"latency_ms", latency_ms}};
  if (!found.empty()) out["found"] = found;
  if (!error.empty()) out["error"] = error;
  return out;
}

std::vector<SourceCheck> CheckSources(const sources::SourcesConfig& config,
                                      int64_t budget_ms) {
  std::vector<SourceCheck> checks;
  domain::ProviderQuery spectra;
  spectra.nova_id = "d4bbdda3-6824-4e82-b1ce-1b781190fbec";
  spectra.ra_deg = kRa;
  spectra.dec_deg = kDec;
  spectra.names = {kName};
  spectra.budget_ms = budget_ms;
  domain::ReferenceQuery references;
  references.nova_id = spectra.nova_id;
  references.names = {kName};
  references.ra_deg = kRa;
  references.dec_deg = kDec;
  references.budget_ms = budget_ms;
  const std::string identify = std::string("identify ") + kName;
  const std::string cone = "spectra near V1500 Cyg";
  const std::string bibliography = "references of V1500 Cyg";

  sources::SimbadTap simbad(sources::SimbadService(config));
  checks.push_back(Ask("SIMBAD", identify, [&] {
    return Matches(simbad.Identify(kName, budget_ms));
  }));
  sources::Vsx vsx(sources::VsxService(config));
  checks.push_back(Ask("VSX", identify, [&] {
    return Matches(vsx.Identify(kName, budget_ms));
  }));
  // TNS knows transients since 2016; a search for an older nova is still
  // a question it answers (no match).
  const std::string& tns_question = identify;
  if (config.secrets.tns_api_key.empty()) {
    checks.push_back(Skipped("TNS", tns_question,
                             "no API key configured (NOVACAT_TNS_API_KEY or "
                             "NOVACAT_TNS_SECRET)"));
  } else {
    sources::Tns tns(sources::TnsService(config),
                     sources::TnsCredentials{config.secrets.tns_api_key,
                                             config.secrets.tns_bot_id,
                                             config.secrets.tns_bot_name});
    checks.push_back(Ask("TNS", tns_question, [&] {
      return Matches(tns.Identify(kName, budget_ms));
    }));
  }
  sources::EsoSsap eso(sources::EsoService(config));
  checks.push_back(Ask("ESO SSAP", cone, [&] {
    domain::ProviderQuery q = spectra;
    q.provider = "ESO";
    return Count(eso.Query(q).size(), "product");
  }));
  sources::Mast mast(sources::MastService(config));
  checks.push_back(Ask("MAST", cone, [&] {
    domain::ProviderQuery q = spectra;
    q.provider = "MAST";
    return Count(mast.Query(q).size(), "product");
  }));
  if (config.secrets.ads_token.empty()) {
    checks.push_back(Skipped(
        "ADS", bibliography,
        "no token configured (NOVACAT_ADS_TOKEN or NOVACAT_ADS_SECRET)"));
    checks.push_back(Ask("SIMBAD", bibliography, [&] {
      return Count(simbad.Bibliography(references).size(), "reference");
    }));
  } else {
    sources::Ads ads(sources::AdsService(config), config.secrets.ads_token);
    checks.push_back(Ask("ADS", bibliography, [&] {
      domain::ReferenceAnswer answer = ads.Fetch(references);
      std::string found = Count(answer.candidates.size(), "reference");
      if (answer.quota)
        found += " (quota: " + std::to_string(answer.quota->remaining) +
                 " of " + std::to_string(answer.quota->limit) + " left today)";
      return found;
    }));
  }
  return checks;
}

std::string FormatSourceChecks(const std::vector<SourceCheck>& checks) {
  std::vector<std::vector<std::string>> rows = {
      {"SERVICE", "QUESTION", "STATUS", "LATENCY", "FOUND"}};
  for (const SourceCheck& c : checks) {
    rows.push_back(
        {c.service, c.question, c.status,
         c.status == "skipped" ? "-" : std::to_string(c.latency_ms) + " ms",
         c.error.empty() ? c.found : c.error});
  }
  return AlignedRows(rows, {false, false, false, true, false});
}

}  // namespace novacat::workflows
