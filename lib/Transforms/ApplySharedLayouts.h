//===- ApplySharedLayouts.h - Swizzled shared-memory buffers ---*- C++ -*-===//
//
// Expects: per-thread code (after lower-parallel, lower-gemm, lower-reduce,
//   lower-fragments): a shared buffer is used only by element accesses
//   (load, store, element atomic, vcopy) besides `annotate_layout` ops that
//   Sema left with the text of a layout constructor applied to it:
//   make_swizzled_layout(X) / make_wgmma_swizzled_layout(X) (the gemm
//   operand layout of the layout library: 128/64/32-byte swizzle, else
//   padding), make_full_bank_swizzled_layout(X), make_half_bank_...,
//   make_quarter_bank_... (that swizzle).
// Does: for each annotated shared buffer of rank >= 2 with a static shape
//   (the layout acts on the last two dims; leading dims pass through):
//   the buffer becomes 1-D, `shared<[P] T>` with P the size of the
//   layout's output, and every access index becomes the flattened image
//   of the logical index under the layout (read as expressions,
//   simplified, emitted as i32 ops). A `vcopy` of V lanes stays one vcopy:
//   the layouts keep every V-aligned run of V elements along the last dim
//   contiguous and V-aligned (16-byte chunks are permuted or padded as a
//   whole, and a vcopy moves at most 16 aligned bytes; checked by
//   enumeration, an internal error otherwise). The annotation is removed.
//   Annotations it cannot apply (another layout text, a constructor whose
//   shape conditions fail, sub-byte element types) are removed with the
//   warning "layout annotation on shared buffer 'X' is not applied yet".
// Guarantees: no `annotate_layout` of a shared buffer remains; every
//   element keeps its own address (the layouts are injective), so the
//   program's meaning is unchanged and barriers placed before stay valid.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_TRANSFORMS_APPLYSHAREDLAYOUTS_H
#define TILEC_TRANSFORMS_APPLYSHAREDLAYOUTS_H

#include "tilec/Layout/Layout.h"
#include "tilec/Transforms/Pass.h"

namespace tilec {
std::unique_ptr<Pass> createApplySharedLayoutsPass();

/// The layout that annotation text \p Text names for a [Rows, Cols] tile of
/// \p ElemBits-wide elements; nullopt when it names none or its conditions
/// fail.
std::optional<layout::Layout> sharedLayoutFromText(llvm::StringRef Text,
                                                   int64_t Rows, int64_t Cols,
                                                   int64_t ElemBits);
} // namespace tilec

#endif
