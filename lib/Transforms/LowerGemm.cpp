//===- LowerGemm.cpp - T.gemm on CUDA cores -------------------------------===//

#include "LowerGemm.h"
#include "GemmLayout.h"
#include "IndexExprToIR.h"
#include "LoopAccess.h"
#include "tilec/IR/Builder.h"
#include "tilec/Layout/LayoutParser.h"
#include "tilec/Layout/Simplify.h"
#include "tilec/Support/Diagnostics.h"
#include <functional>

using namespace tilec;
using namespace tilec::ir;
using layout::Fragment;
using layout::IndexExpr;

namespace {

std::string name(const Value *V) { return V->getNameHint().str(); }

class GemmLowering {
public:
  GemmLowering(Operation &Gemm, DiagnosticEngine &Diags)
      : Gemm(Gemm), Diags(Diags), A(Gemm.getOperand(0)), Bm(Gemm.getOperand(1)),
        C(Gemm.getOperand(2)), Acc(C->getType().getDType()),
        TransA(Gemm.getBoolAttr("transpose_a").value_or(false)),
        TransB(Gemm.getBoolAttr("transpose_b").value_or(false)) {}

  bool run() {
    Operation *Kernel = Gemm.getParentOfKind(OpKind::Kernel);
    if (!Kernel || !readGrid() || !checkLayouts())
      return false;
    B.setInsertionPoint(&Gemm);
    B.setLoc(Gemm.getLoc());
    ARegs = B.createAlloc(
        Type::buffer(Scope::Local, {Dim(G.rowsPerThread())}, Acc), "gemm_a");
    BRegs = B.createAlloc(
        Type::buffer(Scope::Local, {Dim(G.colsPerThread())}, Acc), "gemm_b");
    if (vectorB() && Bm->getType().getDType() != Acc)
      BStage =
          B.createAlloc(Type::buffer(Scope::Local, {Dim(G.colsPerThread())},
                                     Bm->getType().getDType()),
                        "gemm_b_in");
    Value *Tx = emitRangeThreadId(B, Gemm);
    int64_t Threads = threadRangeOf(Gemm).Count;
    if (G.threads() < Threads) {
      Operation *If = B.createIf(
          B.createCmp(CmpPred::Lt, Tx, B.createConstInt(G.threads())));
      B.setInsertionPointToEnd(If->getBody(0));
    }
    bindThreadCoords(Tx, G.threads() < Threads);
    if (Gemm.getBoolAttr("clear_accum").value_or(false))
      emitClear();
    bool Unroll =
        A->isBufferIn(Scope::Fragment) || Bm->isBufferIn(Scope::Fragment);
    forLoop(K, Unroll ? "unroll" : "serial", "k", [&](IndexExpr Kv) {
      loadA(Kv);
      loadB(Kv);
      emitOuterProduct();
    });
    Gemm.erase();
    return true;
  }

private:
  Operation &Gemm;
  DiagnosticEngine &Diags;
  Value *A, *Bm, *C;
  DType Acc;
  bool TransA, TransB;
  FmaGemmGrid G;
  int64_t K = 1;
  Builder B;
  Value *ARegs = nullptr, *BRegs = nullptr, *BStage = nullptr;
  IndexScope Idx{B};

  bool fail(const std::string &Why) {
    Diags.report(Gemm.getLoc(), diag::err_lowering_unsupported)
        << "this T.gemm" << Why;
    return false;
  }

  bool readGrid() {
    auto P = Gemm.getIntArrayAttr("fma_grid");
    auto SA = A->getType().getStaticShape();
    auto SC = C->getType().getStaticShape();
    if (!SA || !SC)
      return fail("its operands need static shapes");
    K = TransA ? (*SA)[0] : (*SA)[1];
    std::optional<FmaGemmGrid> Grid;
    if (P && P->size() == 3)
      Grid = makeFmaGrid((*SC)[0], (*SC)[1], (*P)[0], (*P)[1], (*P)[2]);
    if (!Grid)
      return fail("it has no valid 'fma_grid'; run gemm-layout before "
                  "layout-inference");
    G = *Grid;
    return true;
  }

  bool checkLayouts() {
    if (!checkLayout(C, makeFmaFragmentC(G)))
      return false;
    if (A->isBufferIn(Scope::Fragment) &&
        !checkLayout(A, makeFmaFragmentA(G, K, TransA)))
      return false;
    return !Bm->isBufferIn(Scope::Fragment) ||
           checkLayout(Bm, makeFmaFragmentB(G, K, TransB));
  }

  bool checkLayout(Value *Buf, const Fragment &Want) {
    Operation *Alloc = Buf->getDefiningOp();
    std::string Error;
    llvm::StringRef Text =
        Alloc ? Alloc->getStringAttr("layout").value_or("") : "";
    auto Have = layout::parseFragment(Text, Error);
    if (Have && Have->getInputShape() == Want.getInputShape() &&
        sameFragment(*Have, Want))
      return true;
    return fail("fragment '" + name(Buf) + "' has the layout '" + Text.str() +
                "', but its CUDA-core gemm needs '" + Want.toString() + "'");
  }

  //===--- Index arithmetic -----------------------------------------------===//

  void bindThreadCoords(Value *Tx, bool Guarded) {
    IndexAtoms Atoms;
    IndexExpr T = Atoms.toExpr(Tx);
    IndexExpr Tm = layout::floorDiv(T, G.TN);
    if (Guarded)
      Tm = layout::floorMod(Tm, G.TM);
    Idx.bind("tm", emit(layout::simplify(Tm, Atoms.getExtents()), Atoms), G.TM);
    Idx.bind(
        "tn",
        emit(layout::simplify(layout::floorMod(T, G.TN), Atoms.getExtents()),
             Atoms),
        G.TN);
  }

  Value *emit(const IndexExpr &E, const IndexAtoms &Atoms) {
    return emitIndexExpr(B, E, Atoms.getValues());
  }

  Value *emit(const IndexExpr &E) { return Idx.emit(E); }

  IndexExpr row(IndexExpr I) {
    return IndexExpr::var("tm") + IndexExpr(G.TM) * I;
  }
  IndexExpr col(IndexExpr Jg, IndexExpr Jv) {
    return (Jg * G.TN + IndexExpr::var("tn")) * G.VN + Jv;
  }

  void forLoop(int64_t N, llvm::StringRef Kind, llvm::StringRef Name,
               llvm::function_ref<void(IndexExpr)> Body) {
    Idx.forLoop(N, Kind, Name, Body);
  }

  /// Loops over this thread's columns: (register j, column group, lane).
  void
  forColumns(const std::function<void(IndexExpr, IndexExpr, IndexExpr)> &Body) {
    forLoop(G.colGroups(), "unroll", "jg", [&](IndexExpr Jg) {
      forLoop(G.VN, "unroll", "jv",
              [&](IndexExpr Jv) { Body(Jg * G.VN + Jv, Jg, Jv); });
    });
  }

  Value *toAcc(Value *V) {
    return V->getType().getDType() == Acc ? V : B.createCast(V, Acc);
  }

  //===--- The gemm -------------------------------------------------------===//

  void emitClear() {
    Value *Zero =
        isFloat(Acc) ? B.createConstFloat(0.0, Acc) : B.createConstInt(0, Acc);
    forLoop(G.rowsPerThread(), "unroll", "i", [&](IndexExpr I) {
      forColumns([&](IndexExpr, IndexExpr Jg, IndexExpr Jv) {
        B.createStore(Zero, C, {emit(row(I)), emit(col(Jg, Jv))});
      });
    });
  }

  void loadA(IndexExpr Kv) {
    forLoop(G.rowsPerThread(), "unroll", "i", [&](IndexExpr I) {
      Value *R = emit(row(I)), *Kx = emit(Kv);
      Value *V = TransA ? B.createLoad(A, {Kx, R}) : B.createLoad(A, {R, Kx});
      B.createStore(toAcc(V), ARegs, {emit(I)});
    });
  }

  /// A shared B read along its rows in VN-wide accesses of 2 to 16 bytes.
  bool vectorB() const {
    int64_t Bits = G.VN * bitWidth(Bm->getType().getDType());
    return !TransB && !Bm->isBufferIn(Scope::Fragment) && G.VN > 1 &&
           Bits >= 16 && Bits <= 128;
  }

  void loadB(IndexExpr Kv) {
    if (!vectorB()) {
      forColumns([&](IndexExpr J, IndexExpr Jg, IndexExpr Jv) {
        Value *Cx = emit(col(Jg, Jv)), *Kx = emit(Kv);
        Value *V =
            TransB ? B.createLoad(Bm, {Cx, Kx}) : B.createLoad(Bm, {Kx, Cx});
        B.createStore(toAcc(V), BRegs, {emit(J)});
      });
      return;
    }
    Value *Dst = BStage ? BStage : BRegs;
    forLoop(G.colGroups(), "unroll", "jg", [&](IndexExpr Jg) {
      std::vector<Value *> Ops = {Dst, emit(Jg * G.VN), Bm, emit(Kv),
                                  emit(col(Jg, IndexExpr(0)))};
      B.create(OpKind::VCopy, Ops, {2, 3}, {},
               {{"lanes", Attribute::integer(G.VN)}});
    });
    if (!BStage)
      return;
    forLoop(G.colsPerThread(), "unroll", "j", [&](IndexExpr J) {
      Value *Jx = emit(J);
      B.createStore(toAcc(B.createLoad(BStage, {Jx})), BRegs, {Jx});
    });
  }

  void emitOuterProduct() {
    forLoop(G.rowsPerThread(), "unroll", "i", [&](IndexExpr I) {
      Value *Av = B.createLoad(ARegs, {emit(I)});
      Value *Row = emit(row(I));
      forColumns([&](IndexExpr J, IndexExpr Jg, IndexExpr Jv) {
        Value *Bv = B.createLoad(BRegs, {emit(J)});
        std::vector<Value *> Idx = {Row, emit(col(Jg, Jv))};
        Value *Sum = B.createBinary(OpKind::Add, B.createLoad(C, Idx),
                                    B.createBinary(OpKind::Mul, Av, Bv));
        B.createStore(Sum, C, Idx);
      });
    });
  }
};

class LowerGemmPass : public Pass {
public:
  llvm::StringRef name() const override { return "lower-gemm"; }
  llvm::StringRef description() const override {
    return "Lower CUDA-core T.gemms to per-thread FMA loops";
  }

  bool run(Operation &Module, PassContext &Ctx) override {
    // Tensor-core gemms (planned by gemm-layout) are lower-mma's.
    return lowerEach(
        Module,
        [](Operation &Op) {
          return Op.is(OpKind::Gemm) && !Op.getAttr("mma_warps") &&
                 !Op.getAttr("wgmma");
        },
        [&](Operation &Op) { return GemmLowering(Op, Ctx.Diags).run(); });
  }
};

} // namespace

std::unique_ptr<Pass> tilec::createLowerGemmPass() {
  return std::make_unique<LowerGemmPass>();
}
