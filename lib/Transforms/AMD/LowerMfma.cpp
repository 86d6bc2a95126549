//===- LowerMfma.cpp - T.gemm on AMD matrix cores (MFMA) ------------------===//

#include "LowerMfma.h"
#include "ApplySharedLayouts.h"
#include "IndexExprToIR.h"
#include "MfmaGemm.h"
#include "tilec/IR/Builder.h"
#include "tilec/Layout/Simplify.h"
#include "tilec/Support/Diagnostics.h"

using namespace tilec;
using namespace tilec::ir;
using layout::floorDiv;
using layout::floorMod;
using layout::Fragment;
using layout::IndexExpr;

namespace {

class MfmaLowering {
public:
  MfmaLowering(Operation &Gemm, const MmaPlan &P, DiagnosticEngine &Diags)
      : Gemm(Gemm), P(P), Diags(Diags), A(Gemm.getOperand(0)),
        Bm(Gemm.getOperand(1)), C(Gemm.getOperand(2)),
        Instr(mfmaInstruction(P.In, P.Mfma->Tile, P.Mfma->K)) {}

  bool run() {
    if (!mapOperands())
      return false;
    B.setInsertionPoint(&Gemm);
    B.setLoc(Gemm.getLoc());
    bindWave();
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
  Operation &Gemm;
  const MmaPlan &P;
  DiagnosticEngine &Diags;
  Value *A, *Bm, *C;
  std::string Instr;
  Value *ARegs = nullptr, *BRegs = nullptr;
  TileMap CMap, AMap, BMap;
  Builder B;
  IndexScope Idx{B};

  bool fail(const std::string &Why) {
    Diags.report(Gemm.getLoc(), diag::err_lowering_unsupported)
        << "this MFMA T.gemm" << Why;
    return false;
  }

  /// The register maps of C and of fragment operands.
  bool mapOperands() {
    CoordFn CC = [&](IndexExpr Mi, IndexExpr Ni, int64_t E) {
      return mfmaCoordC(P, Mi, Ni, E);
    };
    CoordFn CA = [&](IndexExpr Mi, IndexExpr Ks, int64_t E) {
      return mfmaCoordA(P, Mi, Ks, E);
    };
    CoordFn CB = [&](IndexExpr Ni, IndexExpr Ks, int64_t E) {
      return mfmaCoordB(P, Ni, Ks, E);
    };
    auto Map = [&](const Fragment &F, const CoordFn &Coords, int64_t N1,
                   int64_t N2, int64_t Elems, TileMap &Out) {
      auto M = mapFragmentTiles(P, F, Coords, N1, N2, Elems);
      if (M)
        Out = *M;
      return M.has_value();
    };
    if (!Map(P.fragmentC(), CC, P.mTiles(), P.nTiles(), P.cElems(), CMap))
      return fail("its accumulator's register layout does not match MFMA");
    if (!A->isBufferIn(Scope::Shared) &&
        !Map(P.fragmentA(), CA, P.mTiles(), P.kSteps(), P.aElems(), AMap))
      return fail("its A fragment's register layout does not match MFMA");
    if (!Bm->isBufferIn(Scope::Shared) &&
        !Map(P.fragmentB(), CB, P.nTiles(), P.kSteps(), P.bElems(), BMap))
      return fail("its B fragment's register layout does not match MFMA");
    return true;
  }

  void bindWave() {
    IndexAtoms Atoms;
    IndexExpr T = Atoms.toExpr(emitRangeThreadId(B, Gemm));
    int64_t W = P.warpSize();
    IndexExpr Wave = floorDiv(T, W);
    auto Bind = [&](llvm::StringRef Name, IndexExpr E, int64_t Extent) {
      Idx.bind(Name,
               emitIndexExpr(B, layout::simplify(E, Atoms.getExtents()),
                             Atoms.getValues()),
               Extent);
    };
    Bind("lane", floorMod(T, W), W);
    Bind("wm", floorMod(Wave, P.MWarps), P.MWarps);
    Bind("wn", floorMod(floorDiv(Wave, P.MWarps), P.NWarps), P.NWarps);
  }

  Value *emit(const IndexExpr &E) { return Idx.emit(E); }

  void forLoop(int64_t N, llvm::StringRef Name,
               llvm::function_ref<void(IndexExpr)> Body) {
    Idx.forLoop(N, "unroll", Name, Body);
  }

  Value *allocRegs(int64_t Count, llvm::StringRef Name) {
    return B.createAlloc(Type::buffer(Scope::Local, {Dim(Count)}, P.In), Name);
  }

  void emitClear() {
    Value *Zero = isFloat(P.Acc) ? B.createConstFloat(0.0, P.Acc)
                                 : B.createConstInt(0, P.Acc);
    forLoop(P.fragmentC().getRegisterCount(), "r",
            [&](IndexExpr R) { B.createStore(Zero, C, {emit(R)}); });
  }

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
