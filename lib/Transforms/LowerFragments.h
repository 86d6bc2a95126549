//===- LowerFragments.h - Fragments become per-thread registers -*- C++ -*-===//
//
// Expects: every fragment alloc has `layout = "Fragment(...)"`
//   (layout-inference), and every access of a fragment (load, store,
//   element atomic, vcopy) is made by a thread that owns the element under
//   that layout (lower-parallel guarantees it for the loops it lowers).
// Does: each fragment `%f = alloc : fragment<[..] T> {layout = L}` becomes
//   `%f = alloc : local<[R] T>` (same name; R = registers per thread of L),
//   and each access %f[i..] becomes %f[reg] with reg = L.forward_index(i..)
//   flattened row-major over L's register shape. The indices are read back
//   as expressions (IndexExprToIR: thread_id, constant-bound `for`
//   variables and parallel variables keep their ranges) and simplified, so
//   the usual result is the register loop variable itself.
//   A tensor-core gemm (one with `mma_warps`, see MmaGemm.h) keeps using
//   the whole register array: lower-mma recomputes the same layout from
//   the gemm's plan. A fragment still used by an op this pass cannot map
//   (CUDA-core gemm, reduce, cumsum, region copies: lowered by their own
//   passes first) is left as it is, with its layout.
//   Then, per kernel, adds up what each thread holds (local and var
//   buffers, fragment registers; an array accessed only inside roles, `if`s
//   with thread_range, counts only on those roles' threads): where all of
//   it is more than the target's local memory per thread (512 KiB) it is
//   err_thread_memory_total; where the arrays live at once (LiveArrays.h)
//   need more than its registers (255 32-bit words), warn_register_spill;
//   both at the largest array of the worst threads, with a note per array
//   counted.
//   A fragment `view` (T.reshape) is laid out so that each element has its
//   source's thread and register: its accesses are remapped through its
//   own layout onto the source's register array, and the view disappears.
// Guarantees: a kernel with only element accesses of fragments has no
//   fragment buffer afterwards; the register arrays are indexed by the
//   per-thread slot, V-aligned where lower-parallel emitted a vcopy.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_TRANSFORMS_LOWERFRAGMENTS_H
#define TILEC_TRANSFORMS_LOWERFRAGMENTS_H

#include "tilec/Transforms/Pass.h"

namespace tilec {
std::unique_ptr<Pass> createLowerFragmentsPass();
} // namespace tilec

#endif
