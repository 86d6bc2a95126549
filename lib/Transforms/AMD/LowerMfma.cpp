//===- LowerMfma.cpp - T.gemm on AMD matrix cores (MFMA) ------------------===//

#include "LowerMfma.h"
#include "ApplySharedLayouts.h"
#include "MfmaGemm.h"
#include "MmaLowering.h"

using namespace tilec;
using namespace tilec::ir;
using layout::IndexExpr;

namespace {

class MfmaLowering : public MmaLowering {
public:
  MfmaLowering(Operation &Gemm, const MmaPlan &P, DiagnosticEngine &Diags)
      : MmaLowering(Gemm, P, Diags, "this MFMA T.gemm"),
        Instr(mfmaInstruction(P.In, P.Mfma->Tile, P.Mfma->K)) {}

  bool run() {
    if (!mapOperands({mfmaCoordC, mfmaCoordA, mfmaCoordB}, "MFMA"))
      return false;
    B.setInsertionPoint(&Gemm);
    B.setLoc(Gemm.getLoc());
    bindLanes();
    if (Gemm.getBoolAttr("clear_accum").value_or(false))
      emitClear();
    if (A->isBufferIn(Scope::Shared))
      ARegs = allocRegs(P.mTiles() * P.aElems(), "mfma_a");
    if (Bm->isBufferIn(Scope::Shared))
      BRegs = allocRegs(P.nTiles() * P.bElems(), "mfma_b");
    forLoop(P.kSteps(), "ks", [&](IndexExpr Ks) {
      loadOperands(Ks);
      emitMfmas(Ks);
    });
    Gemm.erase();
    return true;
  }

private:
  std::string Instr;

  /// Whether the lane's \p Elems elements of \p Src are one run along its
  /// last dimension (k inner) that the buffer's layout keeps contiguous
  /// (the swizzles move whole 16-byte chunks; a user layout may not): then
  /// one vcopy moves them (4 to 16 bytes, up to ds_read_b128). The run
  /// starts at a multiple of Elems.
  static bool contiguousRun(const Value *Src, bool KInner, int64_t Elems) {
    if (!KInner)
      return false;
    return llvm::all_of(Src->getUses(), [&](const Use &U) {
      if (!U.User->is(OpKind::AnnotateLayout))
        return true;
      std::string Why;
      auto L = annotatedSharedLayout(
          Src, U.User->getStringAttr("layout").value_or(""), Why);
      return L && keepsRuns(*L, Elems);
    });
  }

  /// Register Off + e gets element e of the lane's share of a tile.
  void loadElements(Value *Dst, IndexExpr Off, Value *Src, int64_t Elems,
                    bool KInner,
                    const std::function<TileCoords(int64_t)> &Coords) {
    if (contiguousRun(Src, KInner, Elems)) {
      TileCoords At = Coords(0);
      B.create(OpKind::VCopy, {Dst, emit(Off), Src, emit(At.Row), emit(At.Col)},
               {2, 3}, {}, {{"lanes", Attribute::integer(Elems)}});
      return;
    }
    for (int64_t E = 0; E != Elems; ++E) {
      TileCoords At = Coords(E);
      Value *V = B.createLoad(Src, {emit(At.Row), emit(At.Col)});
      B.createStore(V, Dst, {emit(Off + IndexExpr(E))});
    }
  }

  void loadOperands(IndexExpr Ks) {
    if (ARegs)
      forLoop(P.mTiles(), "mi", [&](IndexExpr Mi) {
        loadElements(ARegs, Mi * P.aElems(), A, P.aElems(), !P.TransA,
                     [&](int64_t E) { return mfmaCoordA(P, Mi, Ks, E); });
      });
    if (BRegs)
      forLoop(P.nTiles(), "ni", [&](IndexExpr Ni) {
        loadElements(BRegs, Ni * P.bElems(), Bm, P.bElems(), P.TransB,
                     [&](int64_t E) { return mfmaCoordB(P, Ni, Ks, E); });
      });
  }

  /// The pack's KPack instructions for every tile: instruction kp takes
  /// items [kp E, (kp + 1) E) of each lane's pack (MfmaLayouts.h).
  void emitMfmas(IndexExpr Ks) {
    int64_t E = P.Mfma->operandElems();
    forLoop(P.Mfma->KPack, "kp", [&](IndexExpr Kp) {
      forLoop(P.mTiles(), "mi", [&](IndexExpr Mi) {
        forLoop(P.nTiles(), "ni", [&](IndexExpr Ni) {
          IndexExpr AOff = ARegs ? Mi * P.aElems() : AMap.at(Mi, Ks);
          IndexExpr BOff = BRegs ? Ni * P.bElems() : BMap.at(Ni, Ks);
          Value *AB = ARegs ? ARegs : A, *BB = BRegs ? BRegs : Bm;
          B.create(OpKind::Mfma,
                   {C, emit(CMap.at(Mi, Ni)), AB, emit(AOff + Kp * E), BB,
                    emit(BOff + Kp * E)},
                   {2, 2, 2}, {}, {{"instr", Attribute::string(Instr)}});
        });
      });
    });
  }
};

class LowerMfmaPass : public Pass {
public:
  llvm::StringRef name() const override { return "lower-mfma"; }
  llvm::StringRef description() const override {
    return "Lower MFMA T.gemms (AMD) to register loads and MFMA "
           "instructions";
  }

  bool run(Operation &Module, PassContext &Ctx) override {
    auto Planned = [](Operation &Op) {
      return Op.is(OpKind::Gemm) && Op.getAttr("mfma");
    };
    return lowerEach(Module, Planned, [&](Operation &Gemm) {
      auto Plan = readMmaPlan(Gemm);
      if (Plan && Plan->Mfma)
        return MfmaLowering(Gemm, *Plan, Ctx.Diags).run();
      Ctx.Diags.report(Gemm.getLoc(), diag::err_lowering_unsupported)
          << "this T.gemm"
          << "its 'mma_warps'/'mma_shape'/'mfma' plan does not fit its "
             "operands";
      return false;
    });
  }
};

} // namespace

std::unique_ptr<Pass> tilec::createLowerMfmaPass() {
  return std::make_unique<LowerMfmaPass>();
}
