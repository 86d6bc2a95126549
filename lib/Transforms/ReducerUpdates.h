//===- ReducerUpdates.h - The uses of T.alloc_reducer buffers ---*- C++ -*-===//
//
// Expects: layout-inference output (every `parallel` loop has its
//   `loop_layout`); a reducer is an `alloc {reducer = K}` fragment (K sum,
//   max or min) whose per-thread registers hold partial results until a
//   `finalize_reducer` combines the replicas of each element (lower-reduce).
//   Runs before lower-reduce and lower-parallel.
// Does: walks each kernel in program order and checks every access to a
//   reducer against its epoch (TileLang's rules for reducers):
//   - init, before the first update: stores of a constant, the identity 0
//     for sum, any constant for max and min (combining a value with itself
//     changes nothing, so every replica may hold it): T.clear, T.fill;
//   - update: `store (K (load %r[idx]), %x), %r[idx]` (either operand
//     order, the same indices) inside a `parallel` loop. When the loop's
//     layout is replicated the store runs only on the replica-0 thread of
//     its iteration (`if loop.thread(vars, rep = 0) == tx`), so that each
//     contribution enters exactly one partial;
//   - one `finalize_reducer`; after it the reducer is an ordinary
//     fragment that may be read but no longer written.
//   A load before the finalize is only allowed as an update's own read.
// Guarantees: each contribution is in exactly one thread's partial, so the
//   finalize's combine yields the full result on every holder. Any other
//   access is reported at its location (err_reducer_use).
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_TRANSFORMS_REDUCERUPDATES_H
#define TILEC_TRANSFORMS_REDUCERUPDATES_H

#include "tilec/Transforms/Pass.h"

namespace tilec {
std::unique_ptr<Pass> createReducerUpdatesPass();
} // namespace tilec

#endif
