//===- MmaLowering.cpp - What lower-mma and lower-mfma share --------------===//

#include "MmaLowering.h"
#include "tilec/Layout/Simplify.h"

using namespace tilec;
using namespace tilec::ir;
using layout::floorDiv;
using layout::floorMod;
using layout::Fragment;
using layout::IndexExpr;

MmaLowering::MmaLowering(Operation &Gemm, const MmaPlan &P,
                         DiagnosticEngine &Diags, llvm::StringRef What)
    : Gemm(Gemm), P(P), Diags(Diags), What(What.str()), A(Gemm.getOperand(0)),
      Bm(Gemm.getOperand(1)), C(Gemm.getOperand(2)) {}

bool MmaLowering::fail(const std::string &Why) {
  Diags.report(Gemm.getLoc(), diag::err_lowering_unsupported) << What << Why;
  return false;
}

bool MmaLowering::mapOperands(const InstrCoords &Coords,
                              llvm::StringRef Instr) {
  auto Map = [&](const Fragment &F, PlanCoordFn Fn, int64_t N1, int64_t N2,
                 int64_t Elems, TileMap &Out) {
    CoordFn Coord = [&](IndexExpr T1, IndexExpr T2, int64_t E) {
      return Fn(P, T1, T2, E);
    };
    auto M = mapFragmentTiles(P, F, Coord, N1, N2, Elems);
    if (M)
      Out = *M;
    return M.has_value();
  };
  std::string Suffix = "'s register layout does not match " + Instr.str();
  if (!Map(P.fragmentC(), Coords.C, P.mTiles(), P.nTiles(), P.cElems(), CMap))
    return fail("its accumulator" + Suffix);
  if (!A->isBufferIn(Scope::Shared) &&
      !Map(P.fragmentA(), Coords.A, P.mTiles(), P.kSteps(), P.aElems(), AMap))
    return fail("its A fragment" + Suffix);
  if (!Bm->isBufferIn(Scope::Shared) &&
      !Map(P.fragmentB(), Coords.B, P.nTiles(), P.kSteps(), P.bElems(), BMap))
    return fail("its B fragment" + Suffix);
  return true;
}

void MmaLowering::bindLanes() {
  IndexAtoms Atoms;
  IndexExpr T = Atoms.toExpr(emitRangeThreadId(B, Gemm));
  int64_t W = P.warpSize();
  IndexExpr Warp = floorDiv(T, W);
  auto Bind = [&](llvm::StringRef Name, IndexExpr E, int64_t Extent) {
    Idx.bind(Name,
             emitIndexExpr(B, layout::simplify(E, Atoms.getExtents()),
                           Atoms.getValues()),
             Extent);
  };
  Bind("lane", floorMod(T, W), W);
  Bind("wm", floorMod(Warp, P.MWarps), P.MWarps);
  Bind("wn", floorMod(floorDiv(Warp, P.MWarps), P.NWarps), P.NWarps);
}

Value *MmaLowering::allocRegs(int64_t Count, llvm::StringRef Name) {
  return B.createAlloc(Type::buffer(Scope::Local, {Dim(Count)}, P.In), Name);
}

void MmaLowering::emitClear() {
  Value *Zero = isFloat(P.Acc) ? B.createConstFloat(0.0, P.Acc)
                               : B.createConstInt(0, P.Acc);
  forLoop(P.fragmentC().getRegisterCount(), "r",
          [&](IndexExpr R) { B.createStore(Zero, C, {emit(R)}); });
}
