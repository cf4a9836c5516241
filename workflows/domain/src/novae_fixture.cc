#include "novacat/domain/novae_fixture.h"

#include <set>

#include "internal.h"
#include "novacat/domain/names.h"
#include "novacat/runtime/errors.h"
#include "novacat/runtime/json_reader.h"

namespace novacat::domain {

using internal::FixtureObject;
using internal::Quote;
using nlohmann::json;

namespace {
constexpr std::string_view kNovaeFormat = "novacat.fixture.novae/1";
}  // namespace

std::vector<FixtureNova> LoadFixtureNovae(const std::filesystem::path& file) {
  std::string origin = file.generic_string();
  json document = internal::ReadJsonFile(file);
  FixtureObject root(document, origin, "$");
  root.AllowOnly({"format", "description", "novae"});
  if (root.RequiredString("format") != kNovaeFormat) {
    root.Fail(root.Path("format"), "must be " + Quote(kNovaeFormat));
  }
  const json& novae = root.RequiredArray("novae");
  std::vector<FixtureNova> out;
  std::set<std::string> ids, all_names;
  for (size_t i = 0; i < novae.size(); ++i) {
    FixtureObject o(novae[i], origin,
                    internal::IndexPath(root.Path("novae"), i));
    o.AllowOnly({"nova_id", "names", "ra_deg", "dec_deg", "epoch",
                 "discovery_date", "note"});
    FixtureNova nova;
    nova.nova_id = o.RequiredString("nova_id");
    if (!runtime::IsUuid(nova.nova_id)) o.Fail(o.Path("nova_id"), "not a UUID");
    if (!ids.insert(nova.nova_id).second) {
      o.Fail(o.Path("nova_id"), "duplicate nova_id");
    }
    const json& names = o.RequiredArray("names");
    if (names.empty()) o.Fail(o.Path("names"), "must not be empty");
    for (size_t k = 0; k < names.size(); ++k) {
      std::string path = internal::IndexPath(o.Path("names"), k);
      if (!names[k].is_string()) o.Fail(path, "must be a string");
      std::string name = names[k].get<std::string>();
      std::string canonical;
      try {
        canonical = NormalizeCandidateName(name);
      } catch (const runtime::StepError& e) {
        o.Fail(path, e.what());
      }
      if (canonical != name) {
        o.Fail(path, "must be the canonical name " + Quote(canonical));
      }
      if (!all_names.insert(name).second) o.Fail(path, "duplicate name");
      nova.names.push_back(name);
    }
    nova.primary_name = nova.names.front();
    std::optional<double> ra = o.OptionalNumber("ra_deg");
    std::optional<double> dec = o.OptionalNumber("dec_deg");
    if (!ra) o.Fail(o.Path("ra_deg"), "missing");
    if (!dec) o.Fail(o.Path("dec_deg"), "missing");
    try {
      ValidateCoordinates(*ra, *dec);
    } catch (const runtime::StepError& e) {
      o.Fail(o.path(), e.what());
    }
    nova.ra_deg = *ra;
    nova.dec_deg = *dec;
    nova.epoch = o.OptionalString("epoch");
    if (std::optional<std::string> date = o.OptionalString("discovery_date")) {
      nova.discovery_date = PartialDate::Parse(*date);
      if (!nova.discovery_date) {
        o.Fail(o.Path("discovery_date"), Quote(*date) + " is not a date");
      }
    }
    out.push_back(std::move(nova));
  }
  return out;
}

std::vector<NovaPosition> PositionsOf(const std::vector<FixtureNova>& novae) {
  std::vector<NovaPosition> out;
  for (const FixtureNova& n : novae) {
    out.push_back({n.nova_id, n.ra_deg, n.dec_deg});
  }
  return out;
}

}  // namespace novacat::domain
