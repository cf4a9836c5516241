// ParallelFor: independent jobs on the machine's cores, for the stages
// whose units of work share nothing (the emitters of each workflow).
#pragma once

#include <cstddef>
#include <functional>

namespace novacat {

// Runs job(0) .. job(n - 1), each exactly once, on up to `threads` threads
// (the calling one included; 0: one per hardware thread), which take the
// indexes in increasing order: put the longest jobs first. Returns when
// every job has run. When jobs threw, rethrows the exception of the lowest
// index, so a failure is the same whatever the scheduling. Jobs must not
// touch shared state unless it is synchronized; whatever order they ran in,
// the caller sees all their writes after the call.
void ParallelFor(size_t n, const std::function<void(size_t)>& job,
                 unsigned threads = 0);

}  // namespace novacat
