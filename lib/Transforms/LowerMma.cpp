//===- LowerMma.cpp - T.gemm on tensor cores (mma.sync) -------------------===//

#include "LowerMma.h"
#include "MmaLowering.h"
#include <functional>

using namespace tilec;
using namespace tilec::ir;
using layout::floorDiv;
using layout::floorMod;
using layout::IndexExpr;

namespace {

class MmaSyncLowering : public MmaLowering {
public:
  MmaSyncLowering(Operation &Gemm, const MmaPlan &P, DiagnosticEngine &Diags)
      : MmaLowering(Gemm, P, Diags, "this tensor-core T.gemm") {}

  bool run() {
    Operation *Kernel = Gemm.getParentOfKind(OpKind::Kernel);
    if (!Kernel || !mapOperands({mmaCoordC, mmaCoordA, mmaCoordB}, "mma"))
      return false;
    B.setInsertionPoint(&Gemm);
    B.setLoc(Gemm.getLoc());
    bindLanes();
    if (Gemm.getBoolAttr("clear_accum").value_or(false))
      emitClear();
    if (A->isBufferIn(Scope::Shared))
      ARegs = allocRegs(P.kSteps() * P.mTiles() * P.aElems(), "mma_a");
    if (Bm->isBufferIn(Scope::Shared))
      BRegs = allocRegs(P.kSteps() * P.nTiles() * P.bElems(), "mma_b");
    // Software-pipelined over k steps: the operands of step ks + 1 are
    // requested before the mmas of step ks, so their shared-memory latency
    // hides behind tensor-core work.
    loadA(IndexExpr(0));
    loadB(IndexExpr(0));
    forLoop(P.kSteps(), "ks", [&](IndexExpr Ks) {
      if (P.kSteps() > 1) {
        Builder::InsertionGuard Guard(B);
        Value *Next = emit(Ks + IndexExpr(1));
        Operation *If = B.createIf(
            B.createCmp(CmpPred::Lt, Next, B.createConstInt(P.kSteps())));
        B.setInsertionPointToEnd(If->getBody(0));
        loadA(Ks + IndexExpr(1));
        loadB(Ks + IndexExpr(1));
      }
      emitMmas(Ks);
    });
    Gemm.erase();
    return true;
  }

private:
  void ldmatrix(Value *Dst, IndexExpr Off, Value *Src, TileCoords At,
                int64_t Count, bool Trans) {
    B.create(OpKind::Ldmatrix,
             {Dst, emit(Off), Src, emit(At.Row), emit(At.Col)}, {2, 3}, {},
             {{"count", Attribute::integer(Count)},
              {"trans", Attribute::boolean(Trans)}});
  }

  /// Element-wise: register Off + e gets the element the PTX table puts
  /// there.
  void loadElements(Value *Dst, IndexExpr Off, Value *Src, int64_t Elems,
                    const std::function<TileCoords(int64_t)> &Coords) {
    for (int64_t E = 0; E != Elems; ++E) {
      TileCoords At = Coords(E);
      Value *V = B.createLoad(Src, {emit(At.Row), emit(At.Col)});
      B.createStore(V, Dst, {emit(Off + IndexExpr(E))});
    }
  }

  IndexExpr lane() const { return IndexExpr::var("lane"); }
  /// 16 bytes of the operand type, in elements.
  int64_t rowChunk() const { return 128 / P.inBits(); }

  /// A m-tile row start, and the k of a k step.
  IndexExpr tileRow(IndexExpr Mi) const {
    return Mi * (16 * P.MWarps) + IndexExpr::var("wm") * 16;
  }
  IndexExpr tileCol(IndexExpr Ni) const {
    return Ni * (8 * P.NWarps) + IndexExpr::var("wn") * 8;
  }

  void loadA(IndexExpr Ks) {
    if (!ARegs)
      return;
    forLoop(P.mTiles(), "mi", [&](IndexExpr Mi) {
      IndexExpr Off = (Ks * P.mTiles() + Mi) * P.aElems();
      IndexExpr Q = floorDiv(lane(), 8), R = floorMod(lane(), 8);
      IndexExpr K0 = Ks * P.stepK();
      if (!P.TransA)
        return ldmatrix(ARegs, Off, A,
                        {tileRow(Mi) + floorMod(Q, 2) * 8 + R,
                         K0 + floorDiv(Q, 2) * rowChunk()},
                        4, false);
      if (P.inBits() == 16)
        return ldmatrix(
            ARegs, Off, A,
            {K0 + floorDiv(Q, 2) * 8 + R, tileRow(Mi) + floorMod(Q, 2) * 8}, 4,
            true);
      loadElements(ARegs, Off, A, P.aElems(),
                   [&](int64_t E) { return mmaCoordA(P, Mi, Ks, E); });
    });
  }

  void loadB(IndexExpr Ks) {
    if (!BRegs)
      return;
    int64_t Pairs = P.nTiles() / 2;
    bool Ld = P.TransB || P.inBits() == 16;
    if (!Ld) {
      forLoop(P.nTiles(), "ni", [&](IndexExpr Ni) {
        loadElements(BRegs, (Ks * P.nTiles() + Ni) * P.bElems(), Bm, P.bElems(),
                     [&](int64_t E) { return mmaCoordB(P, Ni, Ks, E); });
      });
      return;
    }
    forLoop(Pairs, "nj", [&](IndexExpr Nj) { loadBTiles(Ks, Nj * 2, 4); });
    if (P.nTiles() % 2)
      loadBTiles(Ks, IndexExpr(P.nTiles() - 1), 2);
  }

  /// ldmatrix of n-tiles Ni (and Ni + 1 for Count 4): matrix q of the x4
  /// is n-tile Ni + q / 2, k half q % 2.
  void loadBTiles(IndexExpr Ks, IndexExpr Ni, int64_t Count) {
    IndexExpr Off = (Ks * P.nTiles() + Ni) * P.bElems();
    IndexExpr Q = floorMod(floorDiv(lane(), 8), Count);
    IndexExpr R = floorMod(lane(), 8);
    IndexExpr K0 = Ks * P.stepK();
    IndexExpr N = tileCol(Ni + floorDiv(Q, 2));
    if (P.TransB)
      return ldmatrix(BRegs, Off, Bm, {N + R, K0 + floorMod(Q, 2) * rowChunk()},
                      Count, false);
    ldmatrix(BRegs, Off, Bm, {K0 + floorMod(Q, 2) * 8 + R, N}, Count, true);
  }

  void emitMmas(IndexExpr Ks) {
    forLoop(P.mTiles(), "mi", [&](IndexExpr Mi) {
      forLoop(P.nTiles(), "ni", [&](IndexExpr Ni) {
        IndexExpr AOff =
            ARegs ? (Ks * P.mTiles() + Mi) * P.aElems() : AMap.at(Mi, Ks);
        IndexExpr BOff =
            BRegs ? (Ks * P.nTiles() + Ni) * P.bElems() : BMap.at(Ni, Ks);
        Value *AB = ARegs ? ARegs : A, *BB = BRegs ? BRegs : Bm;
        B.create(OpKind::Mma,
                 {C, emit(CMap.at(Mi, Ni)), AB, emit(AOff), BB, emit(BOff)},
                 {2, 2, 2}, {},
                 {{"shape", Attribute::string(P.shape().str())}});
      });
    });
  }
};

class LowerMmaPass : public Pass {
public:
  llvm::StringRef name() const override { return "lower-mma"; }
  llvm::StringRef description() const override {
    return "Lower tensor-core T.gemms to ldmatrix and mma.sync";
  }

  bool run(Operation &Module, PassContext &Ctx) override {
    // MFMA plans (`mfma`) are lower-mfma's (AMD/LowerMfma.h).
    auto Planned = [](Operation &Op) {
      return Op.is(OpKind::Gemm) && Op.getAttr("mma_warps") &&
             !Op.getAttr("mfma");
    };
    return lowerEach(Module, Planned, [&](Operation &Gemm) {
      auto Plan = readMmaPlan(Gemm);
      if (Plan)
        return MmaSyncLowering(Gemm, *Plan, Ctx.Diags).run();
      Ctx.Diags.report(Gemm.getLoc(), diag::err_lowering_unsupported)
          << "this T.gemm"
          << "its 'mma_warps'/'mma_shape' plan does not fit its operands";
      return false;
    });
  }
};

} // namespace

std::unique_ptr<Pass> tilec::createLowerMmaPass() {
  return std::make_unique<LowerMmaPass>();
}
