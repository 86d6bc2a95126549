//===- LowerMfma.h - T.gemm on AMD matrix cores (MFMA) ---------*- C++ -*-===//
//
// Expects: lower-fragments output on a target with MFMA (gfx90a, gfx940);
//   every MFMA `gemm` carries the plan of gemm-layout (`mma_warps`,
//   `mma_shape`, `mfma = [tile, k]`, see AMD/MfmaGemm.h), its C and any
//   fragment operand are register arrays laid out by the plan's fragments
//   (MfmaLayouts.h), its other operands are shared buffers at their
//   logical indices.
// Does: replaces each such gemm by the work of one wavefront. With tx the
//   linear thread id, lane = tx % 64, wave = tx // 64, wm = wave % MW,
//   wn = wave // MW:
//     [clear_accum: every C register = 0]
//     for %ks in [0, K / (k_pack k)) {unroll}
//       A registers of pack ks for each m-tile mi   (shared operands:
//       B registers of pack ks for each n-tile ni    vcopy or loads)
//       for kp in [0, k_pack), mi, ni {unroll}:
//         mfma C[c(mi, ni)], A[a(mi, ks) + kp E], B[b(ni, ks) + kp E]
//   (E: a lane's operand elements of one instruction; the gemm's k_pack
//   groups k_pack instructions into a pack, MfmaLayouts.h.)
//   Shared operands are read at the coordinates of the pack's lane
//   layout: a lane's elements are consecutive k, so where k is the
//   buffer's inner dimension (A [M, K], B [N, K]) and no user layout
//   can split the run, one `vcopy` of the lane's 4, 8 or 16 bytes each
//   (the swizzles of make_swizzled_layout move whole 16-byte chunks);
//   otherwise element by element. Fragment operands are used in place: the
//   register offsets of each instruction tile are computed from the fragment
//   layout by evaluation and must be affine in the tile indices with the tile's
//   elements contiguous (true of the layouts gemm-layout pins).
// Guarantees: no MFMA `gemm` remains; each lane passes the MFMA exactly the
//   elements the instruction's layout assigns to it. No barrier is emitted
//   (insert-barriers places them).
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_TRANSFORMS_AMD_LOWERMFMA_H
#define TILEC_TRANSFORMS_AMD_LOWERMFMA_H

#include "tilec/Transforms/Pass.h"

namespace tilec {
std::unique_ptr<Pass> createLowerMfmaPass();
} // namespace tilec

#endif // TILEC_TRANSFORMS_AMD_LOWERMFMA_H
