//===- UnswitchMasks.h - Masks that hold on a whole loop box ---*- C++ -*-===//
//
// Attention kernels preload their causal (or ragged-length) mask into the
// score accumulator with a parallel loop of `select (i + q0 >= j + k0), 0,
// -inf` inside the key loop; only the blocks on the diagonal (or at the
// end) mix both values, yet every block pays a compare and a select per
// element.
//
// Expects: tile IR before expand-tile-ops (parallel loops not yet bound to
//   threads).
// Does: for each `parallel` op nested in a `for`, takes the first `select`
//   of its body whose condition is a `cmp` (lt, le, gt, ge) of two i32
//   values that are affine in the parallel variables (consts, add, sub,
//   mul by a constant, over the variables and values defined outside the
//   loop), and wraps the loop into
//     if (the cmp holds at the corner of the box where it is hardest) {
//       the loop with the select replaced by its true operand
//     } else { the loop as it was }
//   The corner is computed outside the loop: a difference lhs - rhs that
//   is affine with coefficient c for a variable of extent n reaches its
//   minimum at 0 (c > 0) or n - 1 (c < 0), and its maximum the other way.
// Guarantees: both branches compute what the original loop computes: the
//   cmp holds on the whole box exactly when it holds at that corner. Loops
//   whose select does not depend on a parallel variable, and loops outside
//   a `for`, are left alone.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_TRANSFORMS_UNSWITCHMASKS_H
#define TILEC_TRANSFORMS_UNSWITCHMASKS_H

#include "tilec/Transforms/Pass.h"

namespace tilec {
std::unique_ptr<Pass> createUnswitchMasksPass();
} // namespace tilec

#endif
