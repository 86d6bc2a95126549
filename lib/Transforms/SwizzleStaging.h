//===- SwizzleStaging.h - Swizzle accumulator staging tiles ----*- C++ -*-===//
//
// An epilogue that copies a tensor-core accumulator into a shared tile
// (attention's O_shared, a GEMM's C_shared) stores from the accumulator
// fragment: each quad of lanes holds a row and eight quads hold eight rows.
// With rows of 128 bytes or more, those eight rows start in the same bank,
// so every store is an 8-way bank conflict (attention's O_shared: 1024
// wavefronts where 128 would do, --report-bank-conflicts). The XOR swizzle
// gemm operands get moves the eight rows' 16-byte chunks onto different
// banks and keeps every 16-byte run contiguous, so the row-wise reads of
// the copy out stay conflict-free and vectorized.
//
// Expects: tile IR after gemm-layout and wgmma-layout (tensor-core gemms
//   carry `mma_shape`, operand annotations are in place), before
//   layout-inference.
// Does: for each kernel, for each tensor-core gemm (`mma_shape` without
//   `mfma`), each shared buffer that receives a store of an element loaded
//   from its accumulator C (directly or through a `cast`) is annotated
//   `make_swizzled_layout(X)` (apply-shared-layouts applies it) when the
//   buffer is an `alloc` with a static rank-2 shape of 8-, 16- or 32-bit
//   elements whose rows hold a whole swizzle period (Swizzle.h's
//   chooseSwizzle), has no annotation of its own, and is used only by
//   element stores and by loads whose values are only stored (a copy out;
//   no TMA, gemm, view or region use, and no atomic reading it: a split-K
//   epilogue's vector atomics keep the plain layout).
// Guarantees: the swizzle is a permutation of the tile's elements (no
//   padding, same size), so the program's meaning and the shared-memory
//   plan are unchanged. A user's T.annotate_layout of the buffer (any
//   layout, the plain one included) keeps the buffer out; --no-staging-swizzle
//   leaves the pass out of the pipeline.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_TRANSFORMS_SWIZZLESTAGING_H
#define TILEC_TRANSFORMS_SWIZZLESTAGING_H

#include "tilec/Transforms/Pass.h"

namespace tilec {
std::unique_ptr<Pass> createSwizzleStagingPass();
} // namespace tilec

#endif
