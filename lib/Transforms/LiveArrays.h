//===- LiveArrays.h - Per-thread arrays held at once ------------*- C++ -*-===//
//
// An estimate of how many bytes of per-thread arrays a kernel holds at the
// same time, for lower-fragments' register-spill warning. Summing every
// array overcounts: flash-attention's backward kernel holds its scores only
// until they become dS, and its dQ only from its GEMM to its atomic add, so
// ptxas fits in 230 registers what the sum puts at 288.
//
// Expects: a kernel op whose register arrays are `alloc`s (lower-fragments
// has given fragments their per-thread shape); uses through `view`s count
// as uses of the array.
// Does: numbers the ops in program order; an array is live from its first
// use to its last, and through the whole of every loop that uses it unless
// the loop's body starts by overwriting it (a store or vcopy into it, or a
// gemm with `clear_accum` into it, not under an `if` of that body).
// Guarantees: the result is the largest total of arrays live at one op,
// with those arrays; an array a loop carries is never counted as dead. A
// store into a few elements counts as an overwrite, so the estimate can be
// low for such arrays; it is a warning's estimate, not an allocation.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_TRANSFORMS_LIVEARRAYS_H
#define TILEC_TRANSFORMS_LIVEARRAYS_H

#include "tilec/IR/Operation.h"
#include <cstdint>
#include <vector>

namespace tilec {

/// A per-thread array, its bytes per thread and, once computed, the
/// positions [Begin, End] in program order over which it is live (empty,
/// Begin > End, for an array that is never used).
struct LiveArray {
  ir::Operation *Alloc;
  int64_t Bytes;
  unsigned Begin = 1, End = 0;
};

/// Sets the live range of each of \p Arrays (allocs inside \p Kernel).
void computeLiveRanges(ir::Operation &Kernel, std::vector<LiveArray> &Arrays);

/// The arrays among \p Arrays (with their live ranges) that are live
/// together where their total is largest; empty when none is used.
std::vector<LiveArray> peakLiveArrays(const std::vector<LiveArray> &Arrays);

} // namespace tilec

#endif // TILEC_TRANSFORMS_LIVEARRAYS_H
