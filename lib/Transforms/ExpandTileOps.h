//===- ExpandTileOps.h - Tile copies, fills, atomics as loops --*- C++ -*-===//
//
// Expects: kernels after copy-extent (every `copy` has complete extents on
//   both sides); region extents are positive ints (a symbolic full-dim
//   extent is reported as not supported).
// Does: rewrites each data-movement tile operator into a `parallel` loop
//   whose body moves one element, as TileLang's copy/fill lowering does:
//     copy %src[s..], %dst[d..]  ->  parallel over the non-1 extents:
//                                     %v = load %src[s + i..]
//                                     [%v = cast %v]  (dtypes differ)
//                                     store %v, %dst[d + i..]
//     fill %buf[s..], %x         ->  parallel: store %x, %buf[s + i..]
//     atomic %dst[..], %src[..]  ->  parallel: element `atomic` of a load
//   Size-1 dims of a region are indexed by their start alone; a start that
//   is the constant 0 adds nothing, so a whole fragment is indexed by the
//   loop variables themselves. An all-1 region gives a one-iteration loop
//   over its last dim.
//   Global accesses that may run past the buffer get a guard: a dim needs
//   one when it is symbolic, or when its size is not a multiple of the
//   extent or the start is not provably a multiple of the extent (the
//   start's constant/affine structure is read: consts, mul, add, sub). An
//   out-of-bounds source element reads as 0 when the destination is
//   on-chip (shared, fragment, local); out-of-bounds stores are skipped.
// Guarantees: no `copy`, `fill` or region-form `atomic` remains; gemm,
//   reduce and cumsum are left for their own lowering.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_TRANSFORMS_EXPANDTILEOPS_H
#define TILEC_TRANSFORMS_EXPANDTILEOPS_H

#include "tilec/Transforms/Pass.h"

namespace tilec {
std::unique_ptr<Pass> createExpandTileOpsPass();
} // namespace tilec

#endif
