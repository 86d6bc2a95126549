//===- StageEpilogue.h - Accumulator epilogues through shared -*- C++ -*-===//
//
// A GEMM's `T.copy(C_local, C[...])` from a tensor-core accumulator to
// global memory stores straight from the accumulator fragment: each thread
// holds pairs of neighbouring columns, so the stores are 4 bytes wide (a
// half2) and every warp store touches eight rows. Staged through a shared
// tile, the fragment's stores go to shared memory (swizzle-staging makes
// them conflict-free) and the copy out reads and writes 16-byte runs of
// whole rows.
//
// Expects: tile IR before expand-tile-ops (tile copies are still `copy`
//   ops), for a target with tensor cores.
// Does: per kernel, a `copy` of a whole fragment that is the accumulator
//   (C) of a `gemm` of the kernel into a `global` buffer with 16-bit
//   elements, at the kernel's top level, becomes a copy of the fragment
//   into a new shared tile of the fragment's shape and the global element
//   type (allocated after the fragment, named after it with `_stage`) and
//   a copy of that tile into the global region. A copy is staged only when
//   the tile fits: its bytes are at most those of the shared buffers no op
//   after the copy uses (counted once per stage of a pipelined loop using
//   them, which plan-shared-memory lets the tile reuse), or the kernel's
//   shared buffers and the tile together stay within the target's limit.
// Guarantees: the values stored to global memory and their order per
//   element are unchanged (the conversion to the output type happens on
//   the store into the tile, as the direct copy converted); the tile is
//   plain (swizzle-staging may swizzle it). --no-epilogue-staging (and
//   --persistent, whose persistent-tiles wants no shared memory in the
//   consumers after their loop) leaves the pass out of the pipeline.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_TRANSFORMS_HOPPER_STAGEEPILOGUE_H
#define TILEC_TRANSFORMS_HOPPER_STAGEEPILOGUE_H

#include "tilec/Transforms/Pass.h"

namespace tilec {
std::unique_ptr<Pass> createStageEpiloguePass();
} // namespace tilec

#endif
