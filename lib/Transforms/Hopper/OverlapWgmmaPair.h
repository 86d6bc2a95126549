//===- OverlapWgmmaPair.h - Issue gemm 1 of k+1 before gemm 2 of k -*- C++ -*-//
//
// An attention loop body holds two wgmma groups: S = Q K^T (group 1), the
// softmax of S into P (registers), then O += P V (group 2). lower-wgmma
// waits for each group right after it, so the tensor cores idle while the
// warpgroup runs the softmax and the softmax waits for both gemms. This
// pass rotates the loop by half a body, as FlashAttention-3's intra-
// warpgroup overlap does: iteration k issues group 1 of k and group 2 of
// k - 1 together, waits for group 1 only, runs the part of k's softmax that
// does not touch group 2's registers while group 2 runs, then waits for it.
//
// Expects: lower-pipelined output (before fold-constants, plan-shared-memory
//   and insert-barriers). A `for` loop with step 1 whose body holds, at its
//   top level, exactly two wgmma groups (`wgmma_fence` ... `wgmma_commit`
//   `wgmma_wait {pending = 0}`, not a user's T.wait_wgmma) on disjoint
//   register arrays, and no barrier, cp.async or TMA op; mbarrier waits only
//   before group 1 and arrives only after group 2 (lower-pipelined's TMA
//   ring with its consumers, or a warp-specialized consumer role). Each
//   mbarrier array has at least two entries: the wait of iteration k must
//   not need the release of iteration k - 1, which now follows it.
// Does: names the body's parts Pre (before group 1), G1, Mid (between the
//   groups), G2 and Post (after group 2), and splits Mid at its first op
//   that touches a buffer G2 or Post writes, or writes one they read: Mid1
//   before it, Mid2 from it on. When Pre, G1 and Mid1 conflict with nothing
//   in G2 and Post (no buffer one side writes is accessed by the other;
//   mbarrier operations aside) and G2 and Post use no value of the body
//   but pure index ops (recomputed for k - 1), the loop becomes
//     if lo < hi: Pre(lo) G1(lo) wait{0} Mid1(lo) Mid2(lo)
//     for k in [lo + 1, hi):
//       Pre(k) G1(k) G2(k - 1) wait{1} Mid1(k) wait{0} Post(k - 1) Mid2(k)
//     if lo < hi: G2(hi - 1) wait{0} Post(hi - 1)
//   (the guards are left out when lo < hi is known). Before the wait{0}
//   inside the loop, a `schedule_after` of element 0 of the last f32/i32
//   register array Mid1 stores (the softmax's running sum) keeps ptxas from
//   hoisting that wait up to wait{1}, above Mid1's work.
// Guarantees: every op runs for the same iterations as before, and the
//   only ops reordered are Pre/G1/Mid1 of k ahead of G2/Post of k - 1,
//   which touch disjoint buffers; group 1's registers are read only after
//   the wait for all but the last committed group (group 2 of k - 1), group
//   2's only after the wait for all groups.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_TRANSFORMS_HOPPER_OVERLAPWGMMAPAIR_H
#define TILEC_TRANSFORMS_HOPPER_OVERLAPWGMMAPAIR_H

#include "tilec/Transforms/Pass.h"

namespace tilec {
std::unique_ptr<Pass> createOverlapWgmmaPairPass();
} // namespace tilec

#endif // TILEC_TRANSFORMS_HOPPER_OVERLAPWGMMAPAIR_H
