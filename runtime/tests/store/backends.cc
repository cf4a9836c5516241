#include "backends.h"

#include "novacat/store/memory_table.h"

namespace novacat::store::testing {

std::vector<Backend> TestBackends() {
  std::vector<Backend> backends;
  backends.push_back({"memory", [] { return std::make_unique<MemoryTable>(); },
                      true, nullptr});
  return backends;
}

}  // namespace novacat::store::testing
