//===- ApplySharedLayouts.h - Swizzled shared-memory buffers ---*- C++ -*-===//
//
// Expects: per-thread code (after lower-parallel, lower-gemm, lower-reduce,
//   lower-fragments): a shared buffer is used only by element accesses
//   (load, store, element atomic, vcopy, cp_async, ldmatrix) besides
//   `annotate_layout` ops whose text is either a layout constructor applied
//   to it: make_swizzled_layout(X) / make_wgmma_swizzled_layout(X) (the
//   gemm operand layout of the layout library: 128/64/32-byte swizzle,
//   else padding), make_full_bank_swizzled_layout(X), make_half_bank_...,
//   make_quarter_bank_... (that swizzle); make_wgmma_layout(X, k_major=K,
//   swizzle=S) (wgmma-layout's canonical layouts, WgmmaLayouts.h; a wgmma
//   op's index is its tile's first element, whose image is the
//   descriptor's start address); or a user layout in the printed
//   form `Layout([..] -> [..], transform: ...)` (T.Layout, evaluated by
//   Sema).
// Does: for each annotated shared buffer with a static shape (a
//   constructor acts on the last two dims, a user layout on as many
//   trailing dims as its input has; leading dims pass through): the buffer
//   becomes 1-D, `shared<[P] T>` with P the size of the layout's output,
//   and every access index becomes the flattened image of the logical
//   index under the layout (read as expressions, simplified, emitted as
//   i32 ops). A `vcopy`/`cp_async` of V elements and an `ldmatrix` row (16
//   bytes) stay one access: the layout must keep every V-aligned run of V
//   elements along the last dim contiguous and V-aligned (checked by
//   enumeration; the constructors permute or pad whole 16-byte chunks,
//   layout-inference narrows T.copy's vectors to what a user layout
//   keeps; an error otherwise). The annotation is removed.
//   A user layout must be injective (padding is allowed) and match the
//   buffer's shape: otherwise, or for a T.Fragment on a shared buffer, the
//   error "T.annotate_layout: cannot use '...' as the layout of shared
//   buffer 'X': why". Constructor annotations it cannot apply (shape
//   conditions fail, sub-byte element types) are removed with the warning
//   "layout annotation on shared buffer 'X' is not applied yet".
//   A user layout of a global buffer (a parameter or workspace, annotated
//   inside one kernel) must take the buffer's whole static shape to as
//   many places as it has elements, injectively (checked where the
//   enumeration limit allows): a permutation of the tensor. Every access
//   of the buffer inside that kernel (elements, vcopy/cp_async runs it
//   keeps contiguous) gets the indices of the element's place: the
//   layout's flat output split over the buffer's dims. The buffer's type
//   is unchanged; accesses in other kernels are not touched.
//   `permute_dims(p0, ...)` on a global buffer (T.Layout of a symbolic
//   shape reordering its dims): the annotating kernel's accesses go to a
//   `view` with dims p0, ... of the buffer (created at the kernel's start)
//   at their indices reordered alike; a TMA load of it, a vector copy when
//   the last dim moves, or a text that is not a permutation of the dims is
//   an error.
//   A `view` of an annotated buffer reads the bytes in its own shape: it is
//   not remapped through the buffer's layout.
// Guarantees: no `annotate_layout` of a shared or global buffer remains; every
//   element keeps its own address (the layouts are injective), so the
//   program's meaning is unchanged and barriers placed before stay valid.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_TRANSFORMS_APPLYSHAREDLAYOUTS_H
#define TILEC_TRANSFORMS_APPLYSHAREDLAYOUTS_H

#include "tilec/IR/Operation.h"
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

/// The user layout `Layout(...)` (printed form, from T.Layout) of a shared
/// buffer of static shape \p Shape: its input shape must be Shape or its
/// trailing dims (leading dims, e.g. pipeline stages, pass through), and
/// it must be injective (checked by enumeration). nullopt with the reason
/// in \p Why otherwise.
std::optional<layout::Layout> userSharedLayout(llvm::StringRef Text,
                                               llvm::ArrayRef<int64_t> Shape,
                                               std::string &Why);

/// The layout apply-shared-layouts gives shared buffer \p Buf for the
/// annotation text \p Text (a constructor or a user layout; leading dims
/// pass through); nullopt with the reason in \p Why when it gives none.
std::optional<layout::Layout> annotatedSharedLayout(const ir::Value *Buf,
                                                    llvm::StringRef Text,
                                                    std::string &Why);

/// Every V-aligned run of V elements along the last dim stays contiguous
/// and V-aligned under \p L (by enumeration; false for huge layouts).
bool keepsRuns(const layout::Layout &L, int64_t V);

/// The largest power of two V <= MaxV with keepsRuns(L, V) (at least 1).
int64_t widestKeptRun(const layout::Layout &L, int64_t MaxV);
} // namespace tilec

#endif
