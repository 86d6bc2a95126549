//===- LowerStmatrix.h - Accumulator stores to shared as stmatrix -*- C++ -*-//
//
// An accumulator fragment stored into a shared tile (stage-epilogue's tile,
// a user's C_shared) leaves the registers as one 4-byte pair per thread and
// store: 64 st.shared per thread for a 64x256 warpgroup tile. stmatrix
// (sm_90) stores four 8x8 matrices of 16-bit pairs per instruction, a
// quarter of the instructions, from the very register layout that mma and
// wgmma accumulators have (lane 4 r + w holds words w of row r).
//
// Expects: per-thread code after vectorize-loops, before lower-pipelined,
//   plan-shared-memory, insert-barriers and apply-shared-layouts (shared
//   indices are still logical; the kernel's threads are its own).
// Does: a `for {kind = "unroll"}` at the kernel's top level from 0 to R
//   (R a multiple of 2) whose body is pure scalar ops and, last, one
//   `vcopy %S[i, j], %L[o] {lanes = 2}` from a rank-1 register array into
//   a rank-2 shared tile of 16-bit elements, with indices computed from
//   the loop variable, the thread index and constants, is checked by
//   enumerating every thread and iteration: for each warp and each group
//   of Count = 4 (or 2) consecutive iterations m, the pairs the 32 lanes
//   store form Count 8x8 matrices (lane l writes row l / 4 of matrix m at
//   column 2 (l % 4) of a 16-byte-aligned row start). Such a loop becomes
//   a loop over the groups: each thread converts its Count pairs into a
//   16-bit register array and the warp issues `stmatrix %S[i', j'],
//   %regs[0] {count = Count}`, where (i', j') are the copy's indices for
//   iteration Count q + (l / 8) % Count of lane 4 (l % 8) of the warp: the
//   start of the row lane l addresses (row l % 8 of matrix l / 8).
// Guarantees: every element is written with the value and at the place
//   the loop wrote it; loops that do not pass the check are unchanged.
//   --no-stmatrix leaves the pass out of the pipeline.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_TRANSFORMS_HOPPER_LOWERSTMATRIX_H
#define TILEC_TRANSFORMS_HOPPER_LOWERSTMATRIX_H

#include "tilec/Transforms/Pass.h"

namespace tilec {
std::unique_ptr<Pass> createLowerStmatrixPass();
} // namespace tilec

#endif
