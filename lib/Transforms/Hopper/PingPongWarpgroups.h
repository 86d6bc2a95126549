//===- PingPongWarpgroups.h - Alternate two warpgroups' wgmmas -*- C++ -*-===//
//
// After overlap-wgmma-pair, each consumer warpgroup of an attention loop
// issues its two wgmma groups, then runs its softmax while the second one
// runs. Two warpgroups started together stay in step: both issue at once,
// both run the softmax at once, and the tensor cores idle in between. As
// FlashAttention-3's inter-warpgroup ping-pong, this pass makes them take
// turns to issue, with two named barriers A and B: warpgroup 0 waits on A,
// issues, arrives on B; warpgroup 1 waits on B, issues, arrives on A. So
// one warpgroup's softmax runs while the other's gemms do.
//
// Expects: overlap-wgmma-pair output (before insert-barriers): a role block
//   `if {thread_range = [O, 256]}` (two warpgroups) holding, at its top
//   level, a `for` loop of step 1 whose body issues two wgmma groups in one
//   run from the first `wgmma_fence` to the second `wgmma_commit`, before
//   the body's only `wgmma_wait {pending = 1}` (a rotated attention loop;
//   a GEMM main loop, one group, is left alone); no named barrier of the
//   program's own in the role.
// Does: with A and B the two lowest barrier ids the kernel does not use
//   and wg = role thread index / 128, before that run
//     if wg == 0 { barrier {id = A, count = 256} }
//     else       { barrier {id = B, count = 256} }
//   and after it
//     if wg == 0 { barrier {id = B, count = 256, arrive = true} }
//     else { if k + 1 < hi { barrier {id = A, count = 256, arrive = true} } }
//   and before the loop `if wg == 1 and lo < hi` an arrive on A (warpgroup
//   0 goes first). Every wait on A (warpgroup 0, once per iteration) meets
//   one arrival of warpgroup 1 (the first one, then one after each
//   iteration but the last), every wait on B one of warpgroup 0: no
//   barrier is left half-arrived when the block exits.
// Guarantees: the loop computes what it did; the warpgroups' issue runs
//   alternate, warpgroup 0 first in each iteration.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_TRANSFORMS_HOPPER_PINGPONGWARPGROUPS_H
#define TILEC_TRANSFORMS_HOPPER_PINGPONGWARPGROUPS_H

#include "tilec/Transforms/Pass.h"

namespace tilec {
std::unique_ptr<Pass> createPingPongWarpgroupsPass();
} // namespace tilec

#endif // TILEC_TRANSFORMS_HOPPER_PINGPONGWARPGROUPS_H
