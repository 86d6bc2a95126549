//===- HeavyBlocksFirst.h - Launch the longest blocks first ----*- C++ -*-===//
//
// A causal attention kernel's key loop stops at the diagonal, so the query
// block bx runs ceil((bx + 1) M / N) iterations: work grows with bx. The
// hardware starts blocks in index order (x fastest), so every row of the
// grid ends with its heaviest blocks and the last wave is made of them,
// leaving most multiprocessors idle at the end. Starting the heaviest
// blocks first (longest processing time first, as FlashAttention-3's
// scheduler orders causal blocks) balances the tail. Reversing bx alone
// is not enough: the last rows' heavy blocks still start near the end of
// the grid, so bx also becomes slower than by in launch order.
//
// Expects: tile IR before rasterize (the kernels' block indices are still
//   their block arguments).
// Does: for each block index b of a kernel without T.use_swizzle, when the
//   trip count of some `for` loop in the kernel increases with b and none
//   decreases (read from the bounds: b, values that do not depend on b,
//   add, sub, mul and floordiv by positive constants, min and max; any
//   other use of b in a bound leaves the kernel alone), replaces every use
//   of b by g - 1 - b, where g is the grid extent of that dimension. When
//   that index is bx and the kernel has a by that does not grow the work,
//   the launch position p = bx + gx * by is read by fastest instead: bx
//   becomes gx - 1 - p / gy and by becomes p % gy, so the heaviest bx of
//   every by start first (within one bz: in attention one batch's heads,
//   whose keys and values the blocks running at once then share in L2).
// Guarantees: the new indices are a permutation of the old ones, so the
//   kernel computes the same set of blocks; only the order in which the
//   hardware starts them changes.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_TRANSFORMS_HEAVYBLOCKSFIRST_H
#define TILEC_TRANSFORMS_HEAVYBLOCKSFIRST_H

#include "tilec/Transforms/Pass.h"

namespace tilec {
std::unique_ptr<Pass> createHeavyBlocksFirstPass();
} // namespace tilec

#endif
