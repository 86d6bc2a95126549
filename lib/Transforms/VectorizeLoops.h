//===- VectorizeLoops.h - Wide element moves in small loops ----*- C++ -*-===//
//
// User-written `for v in T.vectorized(n)` / `T.unroll(n)` loops that move
// elements (`A_local[v] = A[base + v]`) reach the emitter as loops of
// scalar accesses; this pass gives them the 16-byte accesses a CUDA
// programmer would write.
//
// Expects: low-level IR (after lower-fragments): no fragment buffers.
// Does: a `for %c0, %cV, %c1 {kind = "vectorized" | "unroll"} (%v)` with
//   constant bounds 0..V (V >= 2) whose body holds only pure integer index
//   ops and element moves `%x = load %src[.., i]; store %x, %dst[.., j]`
//   (the loaded value used by that store only), or converting moves
//   `%x = load ..; %y = cast %x : T; store %y, ..` (each value used once),
//   becomes, before the loop, the body's index ops with %v replaced by 0
//   and one `vcopy %dst[.., j0], %src[.., i0] {lanes = L}` per L-element
//   run of each move (V / L of them; j0, i0 the indices at v = 0, plus
//   k * L); a converting move gives a converting vcopy (element types
//   differ). Element types are whole bytes, not i1. L is the largest of 16,
//   8, 4, 2 dividing V with L * element size <= 16 bytes on each side (a
//   converting vcopy's local side, read or written element by element, has
//   no limit) such that, for src and dst: the scope is global, shared or local;
//   the last index is `base + v` (affine in %v with coefficient 1) and no
//   other index depends on %v; the flat offset at v = 0 is a multiple of L
//   (base and every `index * row stride` are provable multiples of L, read
//   from const/add/sub/mul; a symbolic row stride that must supply the
//   factor adds `"K % 8 == 0"` to the func's `assumes`, which the launcher
//   checks). The moves must not interfere: no buffer written by a move is
//   read or written by another move of the loop, nor by its own load.
//   Guards: the body may instead be index ops (comparisons and boolean
//   logic too) and, last, an `if` without else whose condition does not
//   depend on %v and whose body is such moves (and index ops); the guard
//   moves before the loop and the vcopies go where its stores were.
//   Atomics (CUDA sm_90 and later): a move may end in an element `atomic`
//   add of the loaded value into a global f32 buffer, its previous value
//   unused, on buffers without a pending `annotate_layout`; it becomes the
//   vector form `atomic %dst[.., j0], %src[.., i0] {kind = "add", lanes =
//   L}` (one float4/float2 atomicAdd).
// Guarantees: a loop is either replaced whole or left unchanged (also when
//   a move has stride != 1, an unaligned base, or L would be 1, and for a
//   converting move from global into shared memory inside a pipelined
//   loop, which lower-pipelined would take for a cp.async copy).
//   Every vcopy moves exactly the elements the loop moved, at offsets that
//   are multiples of L * element size from a buffer start that is at least
//   16-byte aligned (shared slots and vcopy'd local arrays by the emitter,
//   global pointers checked by the launcher), so the wide access is
//   aligned. Nothing else changes; fold-constants cleans the `+ 0`s.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_TRANSFORMS_VECTORIZELOOPS_H
#define TILEC_TRANSFORMS_VECTORIZELOOPS_H

#include "tilec/Transforms/Pass.h"

namespace tilec {
std::unique_ptr<Pass> createVectorizeLoopsPass();
} // namespace tilec

#endif
