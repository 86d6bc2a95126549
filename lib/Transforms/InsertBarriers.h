//===- InsertBarriers.h - Barriers for shared memory ----------*- C++ -*-===//
//
// Expects: lowered kernels (runs last): shared buffers are accessed by
//   per-thread `load`, `store`, `vcopy` and element `atomic`; tile
//   operators that are still there (gemm, copy, ...) count as accesses of
//   their whole shared operands by all threads. Existing `barrier` ops are
//   kept and reset the analysis; a plain one inside a role block becomes
//   the role's named barrier (only the role's threads reach it).
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
//     barrier at the top of the next iteration). The body is first walked
//     with only what is pending before the loop, which places the barriers
//     every iteration needs; the last of those bounds what an iteration
//     leaves pending (attention backward's dS tile, read by a wgmma before
//     the dQ staging's barriers, needs none before the next step's write).
//     The walk with the carried accesses then only adds barriers.
//   - A barrier is never placed where threads may disagree on reaching it:
//     inside an `if` whose condition, or a loop whose bounds, depend on
//     thread_id or on loaded values, or a loop left by such a branch's
//     `break`/`continue`. Such an op counts as one access of everything it
//     touches: the barrier goes before it, and later conflicts get one
//     after it. A conflict inside it cannot be fixed and is reported as a
//     warning.
//   - User synchronization (T.alloc_barrier / T.barrier_arrive /
//     T.barrier_wait, T.sync_threads(id, count), `with T.ws(g)` role
//     blocks) is trusted, as in TileLang, where insufficient sync is the
//     program's responsibility:
//     * mbarrier ops are not shared-memory data accesses (the hardware
//       orders them); the barrier after Sema's mbarrier_init publishes the
//       init.
//     * Two accesses need no barrier when the user's mbarriers order them:
//       one is followed, in its block or an enclosing one, by an
//       `mbarrier_arrive` on array X (release), and the other is preceded
//       the same way by an `mbarrier_wait` on X (acquire) that comes after
//       that arrive in program order, or, when the second access precedes
//       the first in their loop, shares that loop with both and the
//       arrive (the next iteration's wait). The next iteration's wait
//       observes this iteration's release only on a ring of one barrier,
//       or when both accesses index their buffer's first dim with the
//       wait's barrier index (a staged buffer `X[s, ...]` waited on by
//       `full[s]`): on a ring of S stages it acquires the release of S
//       iterations back, so a buffer every iteration reuses (attention
//       backward's dS tile, read by a wgmma of each warpgroup) still gets
//       its barrier. A wait that precedes the
//       arrive in the loop acquires nothing in the first iteration: a
//       write before a TMA pipeline's loop still gets a barrier. The scans look
//       into nested uniform code but not into thread-dependent branches, which
//       other threads (another role) run: an arrive by other threads releases
//       nothing of this thread's. A wait on Y before an arrive on X passes Y's
//       releases on to X, so chains through other threads count (producer
//       -> full -> consumer -> empty -> producer's next write). Barrier
//       arrays are identified by their alloc, not their index: a wait on
//       bars[0] is trusted to acquire what an arrive on bars[1] released.
//     * A divergent op (role block, `if tx < N`) containing a named
//       barrier or an mbarrier wait gets no race warning for conflicts
//       inside it; a named barrier where all threads run it counts as a
//       block barrier.
//     * A `__syncthreads` is still placed before a role block whose
//       accesses conflict with pending ones that no mbarrier orders (it
//       sits where every thread reaches it, never inside the role). The
//       two halves of one thread split (`if tx < K: ... else: ...`, the
//       else half marked `split_else`) count as one such block: nothing
//       goes between them, which run at once on disjoint threads.
// Guarantees: every cross-thread RAW/WAR/WAW pair of shared accesses in a
//   kernel is separated by a barrier that all threads of the block reach,
//   except the conflicts reported as warnings and those the user's
//   mbarriers and named barriers order (above); no barrier is placed
//   inside thread-dependent code; no other op changes.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_TRANSFORMS_INSERTBARRIERS_H
#define TILEC_TRANSFORMS_INSERTBARRIERS_H

#include "tilec/Transforms/Pass.h"

namespace tilec {
std::unique_ptr<Pass> createInsertBarriersPass();
} // namespace tilec

#endif
