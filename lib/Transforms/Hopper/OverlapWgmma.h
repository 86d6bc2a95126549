//===- OverlapWgmma.h - Keep one wgmma group in flight per loop -*- C++ -*-===//
//
// lower-wgmma waits for every wgmma of a gemm at its end (wgmma_wait 0).
// In a software-pipelined main loop that drains the tensor cores once per
// iteration: the barrier, the proxy fence and the next cp.async copies run
// while no wgmma does. This pass lets the wgmmas of iteration it run on
// while iteration it + 1 starts, as CUTLASS's mainloops do with
// warpgroup_wait<1>.
//
// Expects: lower-pipelined output (before insert-barriers): a multi-stage
//   loop body starts with `cp_async_wait` (lower-pipelined's schedule:
//   wait, barrier, then the producers of iteration it + S - 1 into stage
//   (it - 1) % S, their commit, then the consumers reading stage it % S).
// Does: for each `for` whose body has that shape and holds, at its top
//   level, exactly one wgmma group (`wgmma_fence` ... `wgmma_commit`
//   `wgmma_wait {pending = 0}`, the only fence/wait of the body, not a
//   user's T.wait_wgmma, `{user}`, which stays as written), when
//   - the group's register arrays (accumulators, A operand) are used by
//     nothing else in the loop (the group accumulates across iterations,
//     nothing reads it before the loop ends), and
//   - every top-level op before the group that writes a shared operand of
//     the group is a producer: only cp_async, cp_async_commit, pure index
//     ops and `if`/`for` around them (lower-pipelined's copies),
//   it moves those producers and their commit after the group, sets the
//   group's wait to `pending = 1` and adds `wgmma_wait {pending = 0}` on
//   the same registers right after the loop. Iteration it then issues its
//   wgmmas (stage it % S), waits for group it - 1 only, and then overwrites
//   stage (it - 1) % S, which group it - 1 was the last to read.
//   insert-barriers later puts a barrier between the wgmma reads and those
//   copies (the analysis does not separate stages), which also orders the
//   other warpgroups' wait for group it - 1 before any thread's copy.
// Guarantees: a stage is overwritten only after every wgmma reading it has
//   completed; the accumulators are read after the loop only after all
//   wgmmas completed; the number of cp.async groups committed per
//   iteration, and so lower-pipelined's wait counts, is unchanged.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_TRANSFORMS_HOPPER_OVERLAPWGMMA_H
#define TILEC_TRANSFORMS_HOPPER_OVERLAPWGMMA_H

#include "tilec/Transforms/Pass.h"

namespace tilec {
std::unique_ptr<Pass> createOverlapWgmmaPass();
} // namespace tilec

#endif // TILEC_TRANSFORMS_HOPPER_OVERLAPWGMMA_H
