//===- PersistentTiles.h - Persistent TMA+wgmma blocks ----------*- C++ -*-===//
//
// A warp-specialized GEMM block runs one output tile: its producer fills
// the ring before the consumers' first wgmma, and its consumers store the
// accumulators while the tensor cores idle. With one block per SM and many
// tiles (the paper's M6: 7168 tiles of 128x256 on 132 SMs) both costs
// recur once per tile. This pass launches at most one block per SM (times
// the kernel's min_blocks_per_sm) and lets each block walk the tiles
// t = bid, bid + P, ... (P blocks, launch order of the old grid: bx
// fastest). The producer's ring runs on across tiles: it loads the next
// tile's first stages while the consumers run the last iterations and the
// epilogue of the current one.
//
// Expects: lower-pipelined output (overlap-wgmma-pair's peeled loop
//   included; before fold-constants and plan-shared-memory) of a kernel
//   with at most three grid dims whose body is allocs, pure scalar ops,
//   the mbarrier init (`if` + `barrier`) and two role blocks
//   `if {tma_role = "producer"}` / `"consumer"`: the producer's one serial
//   loop (its first thread, after the prologue loads on `tma_pre` if
//   any: attention's Q) loads stage it % S of the ring (expect_tx
//   full[stage], tma_loads, waiting on empty[stage] with parity it / S + 1
//   when it >= S); the consumers' one top-level loop on the ring ends
//   with the producer's and waits on full[it % S] (parity it / S) and
//   arrives on empty for the stage it releases (it, or it - 1 under
//   `if it >= 1` with the closing `wgmma_wait {pending = 0}` right after
//   the loop; or a peeled first and last iteration outside it). The loop
//   bounds and everything outside the roles that the roles use may depend
//   on the block indices only through pure scalar ops. The consumers
//   touch shared memory only in their loop, or, with prologue loads (then
//   a constant trip count NK >= 1), only after their wait for those and
//   the barrier after it.
// Does: grid (gx, gy, gz) becomes (min(gx * gy * gz, NumSMs * min_blocks),
//   1, 1); in each role (the producer's first thread; all consumer
//   threads, after set_max_nreg) the role's code runs in
//   `for t in [bx, tiles, P) {persistent}`, with the pure ops that read
//   the block indices recomputed from bx = t % gx, by = t / gx % gy,
//   bz = t / (gx * gy) (rasterization and heavy-blocks-first included);
//   the ring counter becomes g = n * NK + it (n = (t - bx) / P, the
//   block's tile count, NK the loop's trip count) in every stage and
//   parity computation of both roles and in the producer's reuse test
//   g >= S; with one wgmma group in flight, the consumers release the
//   tile's last stage after the closing wait (`if NK >= 1`). Prologue
//   loads move behind the producer's first min(S, NK) stages of the tile
//   and, from its second tile on, wait for phase n - 1 of a new mbarrier
//   `tma_pre_empty` (the consumer threads' count), on which every
//   consumer arrives (after fence_proxy_async) at the end of its tile;
//   the consumers wait for them with parity n % 2. The ring's buffers
//   are marked `across_tiles` (plan-shared-memory spans only their
//   accesses over the tile loops). A kernel left alone gets a remark
//   saying why.
// Guarantees: every (bx, by, bz) of the old grid is run by exactly one
//   block and in each block in increasing order; the producer and
//   consumers count the same ring positions, every stage the producer
//   refills was released by all consumer threads for its previous use,
//   and every stage the consumers read was filled for their position;
//   the prologue loads of a tile overwrite nothing the consumers still
//   read of the tile before; the kernel computes what it did. In the
//   pipeline with --persistent (Target::Persistent; off by default: 5-10%
//   slower than one block per tile on the paper's M6 GEMM, 4-7% on
//   non-causal attention on the H200). Target::PersistentWalk = W > 0
//   (--persistent-walk) launches max(P, ceildiv(tiles, W)) blocks
//   instead, each walking at most W tiles.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_TRANSFORMS_HOPPER_PERSISTENTTILES_H
#define TILEC_TRANSFORMS_HOPPER_PERSISTENTTILES_H

#include "tilec/Transforms/Pass.h"

namespace tilec {
std::unique_ptr<Pass> createPersistentTilesPass();
} // namespace tilec

#endif // TILEC_TRANSFORMS_HOPPER_PERSISTENTTILES_H
