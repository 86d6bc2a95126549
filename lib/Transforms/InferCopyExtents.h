//===- InferCopyExtents.h - Complete the regions of T.copy -----*- C++ -*-===//
//
// Expects: `copy` ops as Sema emits them: each side a buffer group with
//   start indices and an extent attribute (`src_extent`, `dst_extent`) whose
//   entries are a positive int, a symbol name (a full symbolic dim), or -1
//   when the side was written in start-index form (`A[i, j]`).
// Does: fills every -1 side from the other side, aligned to the trailing
//   dims as TileLang does (leading extents of 1 are dropped or added to match
//   the rank); then checks that both regions have the same shape once
//   size-1 dims are ignored, and that constant regions lie inside on-chip
//   buffers of static shape. A global region may run past the end of a
//   static dim (a partial tile, guarded by expand-tile-ops, as TileLang
//   clamps); it is an error only when a constant start is negative or
//   not below the dim's size.
// Guarantees: afterwards every copy has complete extents on both sides with
//   the rank of its buffer; mistakes are reported at the copy's location in
//   the user's terms (err_copy_unknown_extent, err_copy_shape_mismatch,
//   err_region_out_of_bounds).
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_TRANSFORMS_INFERCOPYEXTENTS_H
#define TILEC_TRANSFORMS_INFERCOPYEXTENTS_H

#include "tilec/Transforms/Pass.h"

namespace tilec {
std::unique_ptr<Pass> createInferCopyExtentsPass();
} // namespace tilec

#endif
