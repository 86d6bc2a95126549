//===- Tma.cpp - The TMA loads of sm_90 -----------------------------------===//
//
// tma_load as docs/ir.md defines it: the executing thread copies boxes of a
// global tensor into shared memory, rows of the box BC elements apart with
// the 16-byte chunks of each row swizzled by the hardware's XOR of shared
// address bits [4, 7) with [7, 10) over the swizzle span; elements outside
// the tensor read as zero. The interpreter lands the data when the load is
// issued and then takes its bytes off the mbarrier's expected transaction
// count, so the phase completes once every arrival and every byte is in: a
// consumer warpgroup that waits on it runs again once the producer has
// issued its loads (Scheduler.h).
//
// bulk_reduce adds its shared row into global memory when it is issued;
// bulk_wait then has nothing left to wait for.
//
//===----------------------------------------------------------------------===//
#include "Machine.h"
#include "tilec/Interp/Numerics.h"

using namespace tilec;
using namespace tilec::interp;
using namespace tilec::ir;

namespace {

/// One tma_load's geometry, read from its attributes.
struct TmaBoxes {
  int64_t Rows, Cols, Swizzle, RowDim;
  std::vector<int64_t> DstOffsets, SrcOffsets;
};

TmaBoxes readBoxes(const Operation &Op, int64_t Rank) {
  std::vector<int64_t> Box = *Op.getIntArrayAttr("box");
  return {Box[0],
          Box[1],
          Op.getIntAttr("swizzle").value_or(0),
          Op.getIntAttr("row_dim").value_or(Rank - 2),
          *Op.getIntArrayAttr("dst_offsets"),
          *Op.getIntArrayAttr("src_offsets")};
}

/// The shared byte address \p Addr as the TMA unit swizzles it.
int64_t swizzleAddress(int64_t Addr, int64_t Swizzle) {
  if (Swizzle == 0)
    return Addr;
  return Addr ^ (((Addr >> 7) & (Swizzle / 16 - 1)) << 4);
}

/// Row-major position of \p Idx in \p Shape, or -1 outside it.
int64_t flatIndex(llvm::ArrayRef<int64_t> Shape, llvm::ArrayRef<int64_t> Idx) {
  int64_t Flat = 0;
  for (size_t D = 0; D != Shape.size(); ++D) {
    if (Idx[D] < 0 || Idx[D] >= Shape[D])
      return -1;
    Flat = Flat * Shape[D] + Idx[D];
  }
  return Flat;
}

} // namespace

void Machine::execTmaLoad(const Operation &Op, const Mask &M) {
  Buffer &Src = buffer(Op, Op.getGroup(1).front());
  int64_t Rank = int64_t(Src.Shape.size());
  TmaBoxes Geo = readBoxes(Op, Rank);
  int64_t ElemBytes = std::max<int64_t>(bitWidth(Src.Elem) / 8, 1);
  bool HasBarrier = Op.getNumGroups() > 2;
  for (int64_t T = 0; T < NumThreads; ++T) {
    if (!M[T])
      continue;
    ElemRef Base = elem(Op, 0, T);
    Buffer &Dst = *Base.Buf;
    std::vector<int64_t> Origin;
    for (Value *I : Op.getGroup(1).drop_front())
      Origin.push_back(asInt(get(I, T)));
    for (size_t N = 0; N != Geo.DstOffsets.size(); ++N) {
      for (int64_t R = 0; R != Geo.Rows; ++R)
        for (int64_t C = 0; C != Geo.Cols; ++C) {
          std::vector<int64_t> Idx = Origin;
          Idx[Geo.RowDim] += Geo.SrcOffsets[2 * N] + R;
          Idx[Rank - 1] += Geo.SrcOffsets[2 * N + 1] + C;
          int64_t From = flatIndex(Src.Shape, Idx);
          int64_t Linear = Base.Flat + Geo.DstOffsets[N] + R * Geo.Cols + C;
          int64_t Addr = swizzleAddress(Dst.SharedOffset + Linear * ElemBytes,
                                        Geo.Swizzle);
          int64_t To = (Addr - Dst.SharedOffset) / ElemBytes;
          if (To < 0 || To >= Dst.NumElems)
            fail(Op,
                 "tma_load writes element " + std::to_string(To) + " of '" +
                     Dst.Name + "', which has " + std::to_string(Dst.NumElems),
                 T);
          Dst.Data[To] = From < 0 ? 0 : Src.Data[From];
          noteWrite({&Dst, To}, T);
        }
    }
    if (!HasBarrier)
      continue;
    Buffer &Bars = *elem(Op, 2, T).Buf;
    int64_t I = elem(Op, 2, T).Flat;
    Bars.BarTx[I] -=
        int64_t(Geo.DstOffsets.size()) * Geo.Rows * Geo.Cols * ElemBytes;
    tryCompletePhase(Bars, I);
  }
}

void Machine::execBulkReduce(const Operation &Op, const Mask &M) {
  int64_t Lanes = *Op.getIntAttr("bytes") / 4;
  for (int64_t T = 0; T < NumThreads; ++T) {
    if (!M[T])
      continue;
    for (int64_t L = 0; L < Lanes; ++L) {
      ElemRef S = elem(Op, 1, T, L), D = elem(Op, 0, T, L);
      checkRead(Op, S, T);
      double Sum = toDouble(D.Buf->Elem, D.Buf->Data[D.Flat]) +
                   toDouble(S.Buf->Elem, S.Buf->Data[S.Flat]);
      noteWrite(D, T);
      D.Buf->Data[D.Flat] = fromDouble(D.Buf->Elem, Sum);
    }
  }
}
