#include "support/allocator.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#if __has_include(<mimalloc.h>) && defined(__ELF__)
#include <mimalloc.h>
// Weak: resolved when the executable links mimalloc, null otherwise. Its
// malloc is then the whole process's (see novacat_use_fast_allocator).
#pragma weak mi_option_set_default
#define NOVACAT_TUNES_MIMALLOC 1
#endif

namespace novacat {

namespace {

#if defined(NOVACAT_TUNES_MIMALLOC)
bool MimallocIsLinked() { return &mi_option_set_default != nullptr; }

// mimalloc's defaults for generation (allocator.h). They must be set before
// mimalloc starts: its initializer reads its options (MIMALLOC_* in the
// environment still win) and the libraries' initializers allocate the main
// thread's first memory, which would otherwise stay in 4 KiB pages. An
// executable's .preinit_array runs before every library's initializer; this
// entry is linked into the executables that call TuneAllocatorForGeneration.
void SetMimallocDefaults() {
  if (!MimallocIsLinked()) return;
  mi_option_set_default(mi_option_large_os_pages, 1);  // MADV_HUGEPAGE
  mi_option_set_default(mi_option_eager_commit_delay, 0);
}
[[gnu::section(".preinit_array"),
  gnu::used]] void (*const kSetMimallocDefaults)() = SetMimallocDefaults;
#endif

}  // namespace

void TuneAllocatorForGeneration() {
#if defined(NOVACAT_TUNES_MIMALLOC)
  if (MimallocIsLinked()) return;  // set up before main
#endif
#if defined(__GLIBC__) && defined(M_MXFAST)
  mallopt(M_MXFAST, 0);
#endif
}

}  // namespace novacat
