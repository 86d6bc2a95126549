//===- WgmmaLayout.h - Which T.gemms run as wgmma (sm_90a) -----*- C++ -*-===//
//
// Expects: kernels after expand-tile-ops, before gemm-layout and
//   layout-inference, on a target with wgmma (sm_90 without --no-wgmma);
//   each `gemm %A, %B, %C` has a fragment C and static rank-2 operands.
// Does: per kernel, plans every gemm with planWgmmaGemm (WgmmaGemm.h) for
//   the threads it runs on (threadRangeOf: a role block's, which must
//   start on a warpgroup, else the kernel's).
//   When every gemm of the kernel has a plan (all or none, so that the
//   fragments the gemms share, e.g. attention's scores and their cast
//   copy, see one register model), the gemms that fragments connect (a
//   parallel loop or tile operator touching fragments of both, or a view,
//   transitively) share one warpgroup split when they run on one thread
//   range and one fits them all (the group's first gemm's, else the first
//   that fits); other gemms keep their own split. Then for each gemm:
//   - records the plan (`wgmma`, `wgmma_swizzle`, `mma_shape`);
//   - pins C and a fragment A to the wgmma fragments with
//     `annotate_layout %F {layout = "Fragment(...)"}` after their allocs;
//   - annotates each shared operand (for a region of a shared buffer,
//     a `subview`, the buffer itself) with its canonical wgmma layout,
//     `make_wgmma_layout(X, k_major=K, swizzle=S)` (apply-shared-layouts
//     applies it to every access; plan-shared-memory aligns the buffer to
//     its swizzle atom). A user's annotation of an operand is kept in
//     substance when it is one of the canonical layouts the instruction
//     can read (the annotation is rewritten to that form).
//   A region is read in place when, under the layout its buffer gets, it
//   is the canonical tile the gemm reads (elementwise, by enumeration) and
//   it starts on a swizzle atom (every stage too); its start is constant
//   on the last two dims.
//   Otherwise (a gemm without a plan, an operand two gemms need in
//   layouts no one swizzle serves, a region no swizzle of its buffer holds
//   as the gemm reads it, a user layout wgmma cannot read, a fragment
//   two gemms need in different layouts) the kernel's gemms are left alone for
//   gemm-layout (mma.sync or CUDA cores) and a remark says why
//   (`--remarks`).
// Guarantees: a gemm with `wgmma` has C (and a fragment A) pinned to the
//   wgmma fragments and every shared operand annotated with a layout its
//   descriptors can describe; gemm-layout skips such gemms.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_TRANSFORMS_HOPPER_WGMMALAYOUT_H
#define TILEC_TRANSFORMS_HOPPER_WGMMALAYOUT_H

#include "tilec/Transforms/Pass.h"

namespace tilec {
std::unique_ptr<Pass> createWgmmaLayoutPass();
} // namespace tilec

#endif // TILEC_TRANSFORMS_HOPPER_WGMMALAYOUT_H
