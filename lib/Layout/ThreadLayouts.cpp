//===- ThreadLayouts.cpp - Default fragments for CUDA-core loops ----------===//

#include "tilec/Layout/ThreadLayouts.h"
#include <cassert>

using namespace tilec::layout;

Fragment tilec::layout::makeDefaultFragment(llvm::ArrayRef<int64_t> Shape,
                                            int64_t Threads,
                                            int64_t VectorWidth) {
  assert(Threads > 0 && VectorWidth > 0 &&
         shapeSize(Shape) % VectorWidth == 0 && "bad default fragment");
  IndexExpr Flat = 0;
  for (unsigned D = 0; D < Shape.size(); ++D)
    Flat = Flat * Shape[D] + Layout::inputVar(D);
  IndexExpr Thread = floorMod(floorDiv(Flat, VectorWidth), Threads);
  IndexExpr Reg = floorDiv(Flat, VectorWidth * Threads) * VectorWidth +
                  floorMod(Flat, VectorWidth);
  return Fragment(Shape, {Reg}, Thread);
}

Fragment tilec::layout::makeBroadcastRowFragment(int64_t Rows, int64_t Cols,
                                                 int64_t Threads,
                                                 int64_t VectorWidth) {
  assert(Rows > 0 && Threads > 0 && VectorWidth > 0 &&
         Cols % VectorWidth == 0 && "bad broadcast fragment");
  int64_t ThreadsPerRow = Cols / VectorWidth;
  IndexExpr I = Layout::inputVar(0), Rep = Fragment::replicateVar();
  // Each row spans every thread: all threads hold all rows.
  if (ThreadsPerRow >= Threads)
    return Fragment({Rows}, {I}, Rep, Threads);
  assert(Threads % ThreadsPerRow == 0 && "rows must not straddle rounds");
  int64_t RowsPerRound = Threads / ThreadsPerRow;
  IndexExpr Thread = floorMod(I, RowsPerRound) * ThreadsPerRow + Rep;
  return Fragment({Rows}, {floorDiv(I, RowsPerRound)}, Thread, ThreadsPerRow);
}
