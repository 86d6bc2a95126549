//===- PredicatedCopy.h - Guarded copies as predicated cp_async -*- C++ -*-===//
//
// Part of lower-pipelined (LowerPipelined.h): the bounds-guarded copies of
// partial tiles.
//
// Expects: a loop as expand-tile-ops + lower-parallel leave a guarded copy
//   of V elements from global into shared memory (V >= 2, a power of 2):
//     for v in [0, V) {kind = "vectorized" | "unroll"} {
//       pure index ops
//       if c { [pure ops] x = load G[g..]; [pure ops] store x, S[s..] }
//          { [pure ops] store 0, S[s..] }     (the same element, +0)
//     }
// Does: finds the widest run L (a divisor of V, L * element size = 4, 8 or
//   16 bytes) such that for every run [j*L, j*L + L):
//   - both addresses are contiguous and L-aligned: the last index is
//     `base + v` with base a multiple of L, the other indices do not use v
//     and index * row stride is a multiple of L;
//   - c is the same for all L elements: built with and/or/xor/not from
//     comparisons that do not use v, or `base + v < b` / `>=` (either side)
//     with base and b multiples of L, so that no bound falls inside a run.
//   Divisibility is read from constants, add/sub/mul and, for symbolic
//   dims, the func's `assumes` (`K % 8 == 0`, checked by the launcher);
//   nothing new is assumed. The loop then becomes V / L
//     cp_async %S[s(j*L)..], %G[select(c, g, 0)..], %c {bytes = L * size}
//   which copies the run when c holds and zero-fills it (without reading
//   global memory) when not: exactly what the loop stores. The source
//   indices are clamped to 0 when c is false so that the address the
//   hardware computes stays inside G.
// Guarantees: loops that do not match, or whose runs may straddle a bound
//   or be misaligned, are reported as 0 bytes and left alone (they stay
//   element-wise, synchronous and correct).
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_TRANSFORMS_PREDICATEDCOPY_H
#define TILEC_TRANSFORMS_PREDICATEDCOPY_H

#include "tilec/IR/Operation.h"

namespace tilec {

/// Bytes of each cp_async \p Loop becomes (4, 8 or 16), 0 when it is not a
/// guarded copy that predicated cp_async can do exactly.
int64_t predicatedCopyBytes(const ir::Operation &Loop);

/// Replaces \p Loop (predicatedCopyBytes(Loop) != 0) by its predicated
/// cp_asyncs and the index ops they need; \p Loop is erased.
void makePredicatedCopy(ir::Operation &Loop);

} // namespace tilec

#endif
