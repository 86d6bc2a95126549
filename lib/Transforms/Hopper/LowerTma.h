//===- LowerTma.h - Pipelined tile copies as TMA loads ----------*- C++ -*-===//
//
// Expects: kernels after wgmma-layout, before layout-inference, on a target
//   with TMA (sm_90 with wgmma; --no-tma turns it off): the T.copy of a
//   global tile into shared memory is the `parallel` loop expand-tile-ops
//   made of it,
//     parallel {extents = [R, C]} (%i, %j) {
//       pure index ops
//       %v = load %G[.., b0 + %i, .., b1 + %j]; store %v, %S[%i, %j]
//     }
//   optionally with the move under `if c {..} {store 0, %S[%i, %j]}`, c a
//   conjunction of `b + %i < extent` / `b + %j < extent` bounds checks of
//   the global tensor's own extents; or the same of a vector,
//   `parallel {extents = [C]} (%j)` storing `%S[%j]` (a row of LSE values).
// Does: per `for {kind = "pipelined", num_stages >= 1}` that can be
//   software-pipelined (canSoftwarePipeline), when every global->shared
//   copy loop at the top of its body takes TMA, replaces each by one
//   `tma_load %S[0, 0], %G[.., b0, b1] {box, swizzle, dst_offsets,
//   src_offsets}` (docs/ir.md) at the copy's location. A copy takes TMA
//   when: j runs along G's contiguous (last) dim and i along one other dim
//   (the tile's rows; `row_dim` when it is not the second to last, e.g.
//   K[b, s0 + i, h, j] of attention); the other indices and the bases are
//   computed outside the loop nest of the copy (affine); G's row stride is a
//   static multiple of 16 bytes; S has a canonical wgmma layout
//   (make_wgmma_layout, wgmma-layout's annotation); and enumeration shows
//   that the boxes [min(R, 256), swizzle span] written by the TMA unit with
//   that swizzle (an XOR of address bits [4, 7) with [7, 10) relative to
//   the atom) put every element where the layout does, each box starting
//   on an atom boundary. A vector is copied as one-row boxes of up to 256
//   elements (a multiple of 16 bytes) along G's contiguous dim, unswizzled,
//   its row at the index of the dim before. The bounds checks become the
//   hardware's zero
//   fill of out-of-bounds elements, so partial and dynamic tiles need no
//   predicates. The tma_loads get their mbarrier from lower-pipelined.
//   Once a loop's copies take TMA (a loop without order/stage), so do the
//   copies before it in its block (prologue loads, attention's Q) whose
//   tiles the loop reads, nothing else uses but their annotation or
//   writes, from tensors the kernel does not write (Target::
//   TmaPrologueLoads; off: --no-tma-prologue-loads).
//   When some copy of a loop cannot take TMA, no copy of it does, and a
//   remark (--remarks) names the reason; loops whose tma_loads would not
//   all be issued ahead (PipelineSchedule.h) are left as they were.
// Guarantees: each tma_load it creates is the head of a producer item of
//   its pipelined loop, or before that loop in its block with its tile
//   read in the loop and accessed nowhere else; the copied elements,
//   out-of-bounds zeros included, are the ones the replaced loop stored.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_TRANSFORMS_HOPPER_LOWERTMA_H
#define TILEC_TRANSFORMS_HOPPER_LOWERTMA_H

#include "tilec/Transforms/Pass.h"

namespace tilec {
std::unique_ptr<Pass> createLowerTmaPass();
} // namespace tilec

#endif // TILEC_TRANSFORMS_HOPPER_LOWERTMA_H
