//===- ThreadLayouts.h - Default fragments for CUDA-core loops -*- C++ -*-===//
//
// The fragments layout inference falls back to when no tensor-core
// operator constrains a buffer: a T.Parallel loop or a fragment of shape
// S over T threads with vector width V is flattened row-major, V
// consecutive elements go to one thread and the threads take the groups
// round-robin:
//   thread = (flat // V) % T
//   reg    = (flat // (V * T)) * V + flat % V
// and the fragment of a row vector broadcast over such a 2-D fragment
// (e.g. the result of a row reduction): row i is replicated on every
// thread that holds part of row i.
//
// Expects (asserted): positive sizes, V dividing the element count; for
// the broadcast, V dividing Cols and Cols / V dividing T when Cols / V < T.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_LAYOUT_THREADLAYOUTS_H
#define TILEC_LAYOUT_THREADLAYOUTS_H

#include "tilec/Layout/Layout.h"

namespace tilec {
namespace layout {

Fragment makeDefaultFragment(llvm::ArrayRef<int64_t> Shape, int64_t Threads,
                             int64_t VectorWidth);

/// The [Rows] fragment matching makeDefaultFragment({Rows, Cols}, T, V):
/// thread(i, rep) ranges over the threads holding row i.
Fragment makeBroadcastRowFragment(int64_t Rows, int64_t Cols,
                                  int64_t Threads, int64_t VectorWidth);

} // namespace layout
} // namespace tilec

#endif // TILEC_LAYOUT_THREADLAYOUTS_H
