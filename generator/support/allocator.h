// Process-wide settings of the C library's allocator for generation runs.
#pragma once

namespace novacat {

// Turns off glibc's fastbins. Generation frees millions of small blocks
// (nlohmann and mustache trees) between large requests (the growing text of
// a big output), and every large request first consolidates the fastbins:
// with a 10,000-state spec that cost grew faster than the spec (13.5x the
// time for 10x the states; 9.4x without fastbins, the same instruction
// count). A no-op elsewhere. novacat-gen's main calls it, and so does the
// generation benchmark, which measures what novacat-gen does.
void TuneAllocatorForGeneration();

}  // namespace novacat
