//===- LowerBulkReduce.h - Shared tiles added by the bulk engine -*- C++ -*-==//
//
// T.atomic_add(G[..], S) of a shared tile S into a global tensor would
// otherwise be one atomic per element (float2/float4 vector atomics at
// best), issued by every thread in the middle of its work. On sm_90 the
// bulk copy engine adds a contiguous run of shared memory into global
// memory itself (`cp.reduce.async.bulk...add.f32`): a thread issues one
// instruction per row and goes on while the engine reads the row and
// performs the additions, as FlashAttention-3's backward accumulates dQ.
//
// Expects: tile IR before expand-tile-ops, on a target with TMA (sm_90).
// Does: replaces each region `atomic %G[..], %S {kind = "add", extent =
//   [R, C]}` that qualifies by
//     for each row r of R owned by thread t (r = t, t + T, ..., T the
//     block's threads), when row r is inside G:
//       bulk_reduce %G[.., g0 + r, .., c0], %S[r, 0] {kind = "add",
//                                                  bytes = 4 C}
//   and, when every use of S names its region (copies, fills, the
//   atomic), pads S's rows by 32 bytes: the rows stay contiguous for the
//   engine, and the eight rows a tensor-core accumulator's 8-byte stores
//   touch at once fall on different banks (the plain rows of 512 bytes of
//   attention's dQ tile all start in bank 0). It makes the issuing threads
//   wait for the engine's reads of S (`bulk_wait %S`, executed by every
//   thread: a thread without bulk groups does not wait) before S can be
//   written again: right before
//   each later top-level op of the atomic's block that writes S, before
//   each such op of a loop body (the next iteration's write), after that
//   loop, and, when nothing follows, at the end of the block. It
//   qualifies when: the kind is add with relaxed order; S is a shared
//   `alloc` of f32 of static rank-2 shape [R, C], the whole buffer, used
//   by no view and with no layout annotation; G is an f32 global tensor
//   of static shape whose region extent is C along its last dim and R
//   along one other (1 elsewhere); 4 C, G's last extent times 4 and the
//   constant column start times 4 are multiples of 16 bytes (the engine's
//   alignment), the columns lie inside G; the kernel is one-dimensional in
//   threads, accesses G only by atomics and holds no atomic with an order
//   and no grid barrier (the engine's writes are ordered only by the
//   kernel's end); and the atomic's block is the kernel body or a loop
//   body. Other atomics stay as they are (--remarks says why).
// Guarantees: every element of the region is added exactly once, rows
//   outside G not at all (the element atomics' bounds checks); S is not
//   written, and the kernel does not end, before every bulk_reduce that
//   reads it has finished reading (insert-barriers treats bulk_reduce and
//   bulk_wait as reads of S, so a barrier separates the wait from other
//   threads' next writes, and the writes from the bulk_reduce;
//   insert-proxy-fences fences the generic writes before it).
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_TRANSFORMS_HOPPER_LOWERBULKREDUCE_H
#define TILEC_TRANSFORMS_HOPPER_LOWERBULKREDUCE_H

#include "tilec/Transforms/Pass.h"

namespace tilec {
std::unique_ptr<Pass> createLowerBulkReducePass();
} // namespace tilec

#endif // TILEC_TRANSFORMS_HOPPER_LOWERBULKREDUCE_H
