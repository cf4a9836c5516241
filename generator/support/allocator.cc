#include "support/allocator.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace novacat {

void TuneAllocatorForGeneration() {
#if defined(__GLIBC__) && defined(M_MXFAST)
  mallopt(M_MXFAST, 0);
#endif
}

}  // namespace novacat
