//===- InsertBarriers.h - Barriers for shared memory ----------*- C++ -*-===//
//
// Expects: lowered kernels (runs last): shared buffers are accessed by
//   per-thread `load`, `store`, `vcopy` and element `atomic`; tile
//   operators that are still there (gemm, copy, ...) count as accesses of
//   their whole shared operands by all threads. Existing `barrier` ops are
//   kept and reset the analysis.
// Does: walks each kernel in program order with the set of shared accesses
//   made since the last barrier (on any path) and inserts one `barrier`
//   right before the first access that may conflict with one of them: a
//   write after a read or write, or a read after a write, of the same
//   buffer by possibly different threads (two atomics never conflict).
//   One barrier settles every pending hazard.
//   - Two accesses are by the same threads, and need no barrier, when their
//     indices are built only from thread_id, constants and the variables
//     of constant-bound loops, and enumerating them shows that no element
//     is touched by two different threads (this covers the register loops
//     of lower-parallel).
//   - Loops: the body starts with what is pending before the loop plus
//     what may still be pending at the end of an iteration (everything
//     after the body's last top-level barrier), so a buffer written at the
//     top of the body and read at the bottom gets a barrier before the
//     next iteration's write (GEMM: copy A, copy B, barrier, gemm, and a
//     barrier at the top of the next iteration).
//   - A barrier is never placed where threads may disagree on reaching it:
//     inside an `if` whose condition, or a loop whose bounds, depend on
//     thread_id or on loaded values, or a loop left by such a branch's
//     `break`/`continue`. Such an op counts as one access of everything it
//     touches: the barrier goes before it, and later conflicts get one
//     after it. A conflict inside it cannot be fixed and is reported as a
//     warning.
// Guarantees: every cross-thread RAW/WAR/WAW pair of shared accesses in a
//   kernel is separated by a barrier that all threads of the block reach,
//   except the conflicts reported as warnings; no other op changes.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_TRANSFORMS_INSERTBARRIERS_H
#define TILEC_TRANSFORMS_INSERTBARRIERS_H

#include "tilec/Transforms/Pass.h"

namespace tilec {
std::unique_ptr<Pass> createInsertBarriersPass();
} // namespace tilec

#endif
