#include "seed.h"

#include "novacat/domain/novae_fixture.h"
#include "novacat/domain/references.h"
#include "novacat/runtime/errors.h"
#include "novacat/runtime/ids.h"

namespace novacat::workflows {

std::vector<domain::FixtureNova> SeedFixtureNovae(
    store::Repository& repository, const std::filesystem::path& file,
    int64_t now) {
  const std::string at = runtime::FormatTimestamp(now);
  std::vector<domain::FixtureNova> novae = domain::LoadFixtureNovae(file);
  for (const auto& f : novae) {
    store::Nova nova;
    nova.nova_id = f.nova_id;
    nova.primary_name = f.primary_name;
    nova.normalized_name = f.primary_name;  // fixture names are canonical
    nova.ra_deg = f.ra_deg;
    nova.dec_deg = f.dec_deg;
    nova.epoch = f.epoch;
    nova.status = "ACTIVE";
    nova.created_at = at;
    if (repository.CreateNova(nova) == store::CreateResult::kConflict)
      throw runtime::TerminalError("seed: nova " + f.nova_id +
                                   " already exists with other values");
    for (const auto& name : f.names) {
      store::AliasResult alias =
          repository.PutAlias(store::Alias{name, f.nova_id, name, at},
                              store::AliasPolicy::kExclusive);
      if (alias.status == store::AliasResult::Status::kMappedToOtherNova)
        throw runtime::TerminalError("seed: name " + name +
                                     " already belongs to nova " +
                                     alias.other_nova_id);
    }
    // The catalog's date comes from no reference of the store: it is
    // attributed to the catalog, under a stable reference id of its own.
    if (f.discovery_date)
      repository.UpdateDiscoveryDate(
          f.nova_id, f.discovery_date->ToIsoDate(),
          domain::ReferenceId("fixture-catalog", f.nova_id));
  }
  return novae;
}

}  // namespace novacat::workflows
