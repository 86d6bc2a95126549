//===- InsertProxyFences.h - Generic writes before wgmma reads --*- C++ -*-===//
//
// wgmma reads its shared operands through the async proxy, as bulk_reduce
// reads its source (lower-bulk-reduce); the threads
// write them through the generic proxy (stores, vcopies, cp.async). The
// PTX memory model orders the two only across a proxy fence: each writing
// thread must run `fence.proxy.async.shared::cta` after its writes are
// complete and before the barrier that publishes them to the warpgroups.
//
// Expects: the final per-thread code of a kernel (after insert-barriers):
//   `wgmma` ops reading shared buffers, `barrier`s placed between those
//   reads and conflicting writes, cp.async data complete at the
//   `cp_async_wait` before its barrier (lower-pipelined's schedule).
// Does: walks each kernel with wgmma in program order, tracking whether a
//   generic write of a buffer some wgmma reads may be unfenced: a store,
//   vcopy or atomic makes it so at once, a cp_async at the next
//   cp_async_wait (its data is complete only there). Before every barrier
//   (block or named) and every mbarrier_arrive (a role publishing its
//   tiles) reached in that state, and before a wgmma reached in it without
//   such a point in between, it inserts `fence_proxy_async`. A `wgmma_fence`
//   that insert-barriers left right before such a barrier (and fence) moves
//   after them, next to its wgmmas. Loops are walked twice, so that a write at
//   the end of an iteration fences the barrier at the start of the next; both
//   branches of an `if` are walked from the same state.
// Guarantees: every path from a generic write of a wgmma operand (or a
//   bulk_reduce source, treated alike) to a wgmma (bulk_reduce) that may
//   read it crosses a fence_proxy_async placed after the write's
//   completion in the writing thread.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_TRANSFORMS_HOPPER_INSERTPROXYFENCES_H
#define TILEC_TRANSFORMS_HOPPER_INSERTPROXYFENCES_H

#include "tilec/Transforms/Pass.h"

namespace tilec {
std::unique_ptr<Pass> createInsertProxyFencesPass();
} // namespace tilec

#endif // TILEC_TRANSFORMS_HOPPER_INSERTPROXYFENCES_H
