// Process-wide settings of the allocator for generation runs.
#pragma once

namespace novacat {

// Sets the allocator up for a generation run: a short, allocation-heavy
// process (nlohmann and mustache trees, growing output text), which touches
// a few megabytes of heap for the seeds and hundreds for a 10,000-state
// spec. novacat-gen's main calls it first, and so does the generation
// benchmark, which measures what novacat-gen does.
//
// - With mimalloc as the process's allocator (novacat-gen and the benchmark
//   link it, novacat_use_fast_allocator): its memory comes in 2 MiB pages,
//   committed as it is reserved. On a VM every first touch of a 4 KiB page
//   is a fault of a few microseconds; `--check` over the seeds took some
//   1,330 of them, a fifth of its time, and now takes about 290.
// - With glibc's: fastbins off. Generation frees millions of small blocks
//   between large requests (the growing text of a big output), and every
//   large request first consolidates the fastbins: with a 10,000-state
//   spec that cost grew faster than the spec (13.5x the time for 10x the
//   states; 9.4x without fastbins, the same instruction count).
void TuneAllocatorForGeneration();

}  // namespace novacat
