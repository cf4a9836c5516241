// Process-wide settings of the allocator for generation runs.
#pragma once

namespace novacat {

// Turns off glibc's fastbins. Generation frees millions of small blocks
// (nlohmann and mustache trees) between large requests (the growing text of
// a big output), and every large request first consolidates the fastbins:
// with a 10,000-state spec that cost grew faster than the spec (13.5x the
// time for 10x the states; 9.4x without fastbins, the same instruction
// count). A no-op elsewhere. novacat-gen's main calls it, and so does the
// generation benchmark, which measures what novacat-gen does.
//
// Both link mimalloc (novacat_use_fast_allocator), whose malloc is then
// the process's and this setting moot; it still applies to the builds
// without it (the sanitizers'). mimalloc is used with its own defaults, in
// 4 KiB pages: in 2 MiB pages (MIMALLOC_LARGE_OS_PAGES=1) a run makes a
// fifth of the page faults, but each fault clears 2 MiB, and on this
// machine's VM a run right after another process freed its memory (as
// asl-validator's, in the benchmark) then took 22 ms against 15 ms.
//
// With mimalloc it also reserves an arena of kGenerationArenaBytes of
// address space. mimalloc gives each block over 16 MiB (a large spec's
// conformance plan, its ASL) its own mapping and unmaps it when freed, and
// returns freed segments to the OS after a delay: the next spec, or the next
// run of the benchmark, faulted the same memory in again, a page at a time.
// At 10,000 states that was some 50,000 page faults a run (about a sixth of
// its time; none at 100 states, whose memory stays in mimalloc's caches).
// Blocks from the arena stay mapped when freed and are reused. The
// reservation is address space: a page costs memory once it is written, as
// before; when the arena is full, mimalloc maps more as it did. If the
// reservation fails (a tight address-space limit), nothing changes.
inline constexpr unsigned long kGenerationArenaBytes = 1ul << 30;  // 1 GiB
void TuneAllocatorForGeneration();

}  // namespace novacat
