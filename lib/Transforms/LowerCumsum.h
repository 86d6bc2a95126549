//===- LowerCumsum.h - T.cumsum on CUDA cores -------------------*- C++ -*-===//
//
// Expects: layout-inference output (fragment allocs carry `layout`); runs
//   before lower-parallel and lower-fragments, which lower the `parallel`
//   loops this pass emits.
// Does: replaces `cumsum %src, %dst {dim, reverse}` by a scan in shared
//   memory, one thread per line along `dim`:
//     [parallel over src with its layout: work[x] = src[x]]  (fragment src)
//     barrier
//     parallel over the other dims (default layout, the block's threads):
//       acc = 0; for k in [0, n) {serial}: kk = reverse ? n - 1 - k : k;
//       acc += src'[.., kk, ..]; work[.., kk, ..] = acc
//     barrier
//     [parallel over dst with its layout: dst[x] = work[x]; barrier]
//   work is dst when dst is in shared (or global) memory, else a shared
//   scratch buffer of dst's shape and dtype (allocated at the top of the
//   kernel). Cost: a line of n elements takes n dependent steps on one
//   thread, and only (elements / n) threads work; fine for the chunk
//   scans of linear-attention kernels (n = 64), slow for long lines.
// Guarantees: no `cumsum` op remains; the sums accumulate in dst's dtype.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_TRANSFORMS_LOWERCUMSUM_H
#define TILEC_TRANSFORMS_LOWERCUMSUM_H

#include "tilec/Transforms/Pass.h"

namespace tilec {
std::unique_ptr<Pass> createLowerCumsumPass();
} // namespace tilec

#endif
