//===- FragmentStage.h - Fragments redistributed through shared -*- C++ -*-===//
//
// Layout inference uses this when a `parallel` loop moves data between
// fragments whose layouts give an element to different threads: the C
// fragment of one CUDA-core gemm cast into the A operand of the next one
// (`T.copy(acc_s, acc_s_cast)` in attention with few rows), or a fragment
// transposed into a gemm operand. No loop layout can run such a loop with
// every access on the thread that holds its element, so the data goes
// through shared memory instead, as TileLang's copy between fragments of
// different layouts does.
//
// Expects: a `parallel` loop of a kernel and a fragment of static shape it
//   accesses; layouts need not be known yet.
// Does:
//   - stageKindOf: Writes when the loop only stores to the fragment (plain
//     `store`s; anything may feed them), Reads when the loop only loads it
//     (a copy, cast or transpose into another fragment, or a row vector
//     read by a loop laid out for another tile); None when it does both,
//     which stays a layout conflict.
//   - stageThroughShared: allocates `<name>_stage : shared<shape>` at the
//     kernel's start and redirects the loop's accesses of the fragment to
//     it; a new `parallel` over the fragment's shape copies the stage into
//     the fragment right after the loop (Writes) or the fragment into the
//     stage right before it (Reads). Its indices are its own variables,
//     so it takes the fragment's layout.
// Guarantees: the same values reach the same elements; insert-barriers
//   later orders the shared accesses of different threads.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_TRANSFORMS_FRAGMENTSTAGE_H
#define TILEC_TRANSFORMS_FRAGMENTSTAGE_H

#include "tilec/IR/Operation.h"

namespace tilec {

enum class StageKind { None, Writes, Reads };

/// How \p Frag can go through shared memory around \p Loop (see above).
StageKind stageKindOf(ir::Operation &Loop, const ir::Value *Frag);

/// Redirects \p Loop's accesses of \p Frag to a new shared buffer and
/// returns the new copy loop between that buffer and \p Frag.
ir::Operation *stageThroughShared(ir::Operation &Loop, ir::Value *Frag,
                                  StageKind Kind);

} // namespace tilec

#endif
