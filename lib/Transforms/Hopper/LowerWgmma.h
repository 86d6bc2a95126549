//===- LowerWgmma.h - T.gemm as Hopper wgmma.mma_async ----------*- C++ -*-===//
//
// Expects: lower-fragments output; every gemm with the plan of
//   wgmma-layout (`wgmma`, `wgmma_swizzle`, `mma_shape`; WgmmaGemm.h) has
//   its C (and a fragment A) as register arrays laid out by the plan's
//   fragments, and shared operands at their logical indices, annotated
//   with the plan's `make_wgmma_layout` (applied later by
//   apply-shared-layouts).
// Does: replaces each such gemm by the work of one warpgroup. With tx the
//   linear thread id within the gemm's threads (threadRangeOf: a role
//   block's, counted from its first), wg = tx // 128, wm = wg % MW,
//   wn = wg // MW:
//     [clear_accum: every C register = 0]
//     wgmma_fence %C[, %A]
//     for %ks in [0, K / k) {unroll}, mi, ni {unroll}:
//       wgmma %C[c(mi, ni)], %A[row(mi), ks * k] | %A[a(mi, ks)],
//             %B[ks * k, col(ni)] (or [col(ni), ks * k])
//             {shape, a_layout, b_layout = [swizzle, LBO, SBO],
//              a_mn_major, b_mn_major}
//     wgmma_commit
//     wgmma_wait %C[, %A] {pending = 0}
//   row(mi) = wm * M/MW + 64 mi, col(ni) = wn * N/NW + N_instr ni: each
//   shared index is the first element of the instruction's tile, which
//   apply-shared-layouts turns into the descriptor's start address (rows
//   start on 8-row boundaries, MN-major columns on swizzle atoms, so the
//   swizzled address of that element is the tile's start). The
//   accumulators of all k steps stay in registers; the wait before
//   anything reads them (or overwrites a shared operand) completes every
//   wgmma of this gemm. The fence orders earlier register writes (a
//   cleared accumulator, an A fragment) before the asynchronous reads.
//   A T.wgmma_gemm (`wgmma_async`) ends at its commit: its group stays in
//   flight until the user's T.wait_wgmma (`wgmma_wait {user}`), which
//   gets the register arrays of the kernel's T.wgmma_gemms as operands
//   (the emitter keeps their accesses after it).
// Guarantees: no gemm with `wgmma` remains. No barrier or proxy fence is
//   emitted: insert-barriers treats wgmma as a read of its whole shared
//   operands by every thread, insert-proxy-fences adds the fences.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_TRANSFORMS_HOPPER_LOWERWGMMA_H
#define TILEC_TRANSFORMS_HOPPER_LOWERWGMMA_H

#include "tilec/Transforms/Pass.h"

namespace tilec {
std::unique_ptr<Pass> createLowerWgmmaPass();
} // namespace tilec

#endif // TILEC_TRANSFORMS_HOPPER_LOWERWGMMA_H
