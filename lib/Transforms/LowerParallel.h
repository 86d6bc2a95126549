//===- LowerParallel.h - Thread binding and vectorization ------*- C++ -*-===//
//
// Expects: layout-inference output: every `parallel` loop has
//   `loop_layout = "Fragment(...)"` (a Fragment over its iteration space
//   using at most the kernel's T threads) and `vector_size = V` (each thread
//   owns runs of V consecutive iterations along the last dim in V-aligned
//   registers, and the non-fragment accesses allow V-wide accesses).
// Does: replaces each loop by the work of one thread tx (the linear thread
//   index): with R registers per thread,
//     [if tx < threads-used]
//     for %ro in [0, R / V) {kind = unroll | serial}   (absent when R == V)
//       for %vi in [0, V) {kind = vectorized}          (absent when V == 1)
//         coordinates = L^-1(r = ro * V + vi, tx)      (simplified, as ops)
//         [if coordinates inside the iteration space]
//           body, with the loop variables replaced by the coordinates
//   The inverse comes from the layout library: the mixed-radix form of
//   default and broadcast fragments (verified by enumeration), else the
//   symbolic inverse (registers, thread) -> (element, replica) of
//   bijective bit-linear layouts (replicas in any thread bits), else a
//   scan over all (element, replica) pairs guarded by `thread(e, rep) ==
//   tx`. A replicated layout runs each iteration on every thread holding
//   it (TileLang's semantics); the scan needs the replicas of an element
//   on distinct threads (checked by enumeration), so that no thread runs
//   an iteration twice, and is reported otherwise. A body whose only
//   effects are stores to shared or global memory (no register writes,
//   shuffles, atomics or calls) runs on replica 0 alone, under
//   `if replica == 0`: the other replicas would store the same values,
//   and their stores to shared memory would race with its own.
//   A body that is a plain copy (one load whose value one store writes,
//   same dtype, plus index arithmetic) with V > 1 becomes one `vcopy
//   %dst[..], %src[..] {lanes = V}` per run instead of the inner loop.
//   The register loop is unrolled when the body touches a fragment (so
//   registers stay in registers) or runs at most 16 times.
// Guarantees: no `parallel` op remains. Fragment accesses keep their
//   logical indices (now computed from tx and the register number); every
//   such access is owned by the executing thread, so lower-fragments can
//   map it to a register with the fragment's forward_index.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_TRANSFORMS_LOWERPARALLEL_H
#define TILEC_TRANSFORMS_LOWERPARALLEL_H

#include "tilec/Transforms/Pass.h"

namespace tilec {
std::unique_ptr<Pass> createLowerParallelPass();
} // namespace tilec

#endif
