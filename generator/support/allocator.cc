#include "support/allocator.h"

#include <cstddef>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

// mimalloc's arena reservation, when mimalloc is linked in (see the header);
// weak, so that the builds without it (the sanitizers') link and skip it.
extern "C" int mi_reserve_os_memory(size_t size, bool commit, bool allow_large)
    __attribute__((weak));

namespace novacat {

void TuneAllocatorForGeneration() {
#if defined(__GLIBC__) && defined(M_MXFAST)
  mallopt(M_MXFAST, 0);
#endif
  if (mi_reserve_os_memory != nullptr)
    (void)mi_reserve_os_memory(kGenerationArenaBytes, /*commit=*/true,
                               /*allow_large=*/false);
}

}  // namespace novacat
