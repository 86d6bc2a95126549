//===- LowerMma.h - T.gemm on tensor cores (mma.sync) ----------*- C++ -*-===//
//
// Expects: lower-fragments output; every tensor-core `gemm` carries the
//   plan of gemm-layout (`mma_warps`, `mma_shape`, see MmaGemm.h), its C
//   and any fragment operand are register arrays laid out by the plan's
//   fragments, its other operands are shared buffers at their logical
//   (unswizzled) indices.
// Does: replaces each such gemm by the work of one warp. With tx the
//   linear thread id, lane = tx % 32, warp = tx // 32, wm = warp % MW,
//   wn = warp // MW:
//     [clear_accum: every C register = 0]
//     for %ks in [0, K / k) {unroll}
//       A registers of k step ks for each m-tile mi   (ldmatrix or loads)
//       B registers of k step ks for each n-tile ni   (ldmatrix or loads)
//       for mi, ni {unroll}: mma C[c(mi, ni)], A[a(mi, ks)], B[b(ni, ks)]
//   Shared operands are read with ldmatrix.x4 (x2 for a lone n-tile of B)
//   whenever the 16-byte rows it reads lie along the buffer's last
//   dimension: always when k is the inner dimension, and with .trans for
//   16-bit operands whose k is outer. 8- and 32-bit operands with k outer
//   are read element by element. Fragment operands are used in place: the
//   register offsets of each instruction tile are computed from the
//   fragment layout by evaluation and must be affine in the tile indices
//   with the tile's elements contiguous in PTX order (true of the layouts
//   gemm-layout pins).
// Guarantees: no tensor-core `gemm` remains; each lane passes mma.sync
//   exactly the elements the PTX ISA's fragment tables assign to it. No
//   barrier is emitted (insert-barriers places them).
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_TRANSFORMS_LOWERMMA_H
#define TILEC_TRANSFORMS_LOWERMMA_H

#include "tilec/Transforms/Pass.h"

namespace tilec {
std::unique_ptr<Pass> createLowerMmaPass();
} // namespace tilec

#endif // TILEC_TRANSFORMS_LOWERMMA_H
