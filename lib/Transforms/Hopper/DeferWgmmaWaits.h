//===- DeferWgmmaWaits.h - Wait for wgmmas where used ----------*- C++ -*-===//
//
// lower-wgmma waits for every gemm's wgmmas right after issuing them
// (`wgmma_wait {pending = 0}`), so a chain of independent gemms runs one
// at a time: attention backward's S = K Q^T and dP = V dO^T, or dV += P dO
// and dK += dS Q, never share the tensor cores. This pass moves each such
// wait down to the first op that needs the group complete and issues the
// gemms in between while the group runs, as FlashAttention-3's backward
// does with its warpgroup_wait<N>.
//
// Expects: lower-wgmma output after lower-pipelined and the other Hopper
//   loop schedules (overlap-wgmma, overlap-wgmma-pair), before
//   insert-barriers; wgmma groups are top-level runs `wgmma_fence %regs;
//   wgmmas (in unrolled loops); wgmma_commit; wgmma_wait %regs {pending}`.
// Does: for each block, from its last such group to its first, takes a
//   group whose wait directly follows its commit, has `pending = 0` and is
//   not a user's T.wait_wgmma. The wait moves past the top-level ops after
//   it while they
//   - do not touch the group's register arrays (accumulators, A operand);
//   - are other groups (fence, wgmmas, commit: each commit passed adds one
//     to the wait's `pending`) or ops without synchronization: no barrier,
//     mbarrier op, TMA load, proxy fence, cp.async wait, `schedule_after`,
//     `set_max_nreg`, `break`/`continue`, extern call, and no wgmma op
//     outside a group (a bulk_reduce or bulk_wait passes: it orders only
//     the thread's own bulk reads, so attention backward's dQ is staged
//     and handed to the copy engine while dK runs);
//   - are no place for a barrier of insert-barriers, which assumes that a
//     wgmma's reads end before the next barrier: they write no shared
//     memory (other than by TMA, which the mbarriers order) and read no
//     shared buffer that an op of the block writes so. This matters only
//     when the group reads such a buffer itself: a group whose shared
//     operands only TMA writes (attention backward's dV += P dO and
//     dK += dS Q read the Q and dO stages) passes the barrier that
//     publishes dS to the next gemm.
//   It stops before the first op that breaks this (before the fence when
//   that op is inside another group). A wait it meets that completes the
//   group too (`pending` no larger than the groups issued since) absorbs
//   it: that wait gets the group's registers and the moved wait is erased.
// Guarantees: every access of a group's registers and every op that could
//   release its shared operands to other threads (barriers, mbarrier
//   arrives) still follows a wait that completes the group; groups complete
//   in issue order, so `pending = n` after n later commits completes it and
//   every earlier group; waits never leave their block.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_TRANSFORMS_HOPPER_DEFERWGMMAWAITS_H
#define TILEC_TRANSFORMS_HOPPER_DEFERWGMMAWAITS_H

#include "tilec/Transforms/Pass.h"

namespace tilec {
std::unique_ptr<Pass> createDeferWgmmaWaitsPass();
} // namespace tilec

#endif // TILEC_TRANSFORMS_HOPPER_DEFERWGMMAWAITS_H
