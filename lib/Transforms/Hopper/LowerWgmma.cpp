//===- LowerWgmma.cpp - T.gemm as Hopper wgmma.mma_async ------------------===//

#include "LowerWgmma.h"
#include "IndexExprToIR.h"
#include "WgmmaGemm.h"
#include "tilec/IR/Builder.h"
#include "tilec/Layout/Simplify.h"
#include "tilec/Support/Diagnostics.h"

using namespace tilec;
using namespace tilec::ir;
using layout::floorDiv;
using layout::floorMod;
using layout::IndexExpr;
using layout::WgmmaSharedLayout;

namespace {

class WgmmaLowering {
public:
  WgmmaLowering(Operation &Gemm, const WgmmaPlan &P)
      : Gemm(Gemm), P(P), A(Gemm.getOperand(0)), Bm(Gemm.getOperand(1)),
        C(Gemm.getOperand(2)) {}

  bool run() {
    Operation *Kernel = Gemm.getParentOfKind(OpKind::Kernel);
    if (!Kernel)
      return false;
    B.setInsertionPoint(&Gemm);
    B.setLoc(Gemm.getLoc());
    bindWarpgroup();
    std::vector<Value *> Regs = {C};
    if (P.ARegisters)
      Regs.push_back(A);
    B.create(OpKind::WgmmaFence, Regs, groupsOfOne(Regs), {});
    // clear_accum: the first k step overwrites C (scale-d = 0) instead of
    // zero stores before the group, which ptxas would have to order after
    // the wgmmas still in flight (a wait it injects, serializing them).
    int64_t FirstK = 0;
    if (Gemm.getBoolAttr("clear_accum").value_or(false)) {
      emitKStep(0, /*ZeroInit=*/true);
      FirstK = 1;
    }
    Idx.forLoop(P.kSteps() - FirstK, "unroll", "ks", [&](IndexExpr Ks) {
      emitKStep(Ks + FirstK, /*ZeroInit=*/false);
    });
    B.create(OpKind::WgmmaCommit, {}, {}, {});
    // T.wgmma_gemm leaves its group in flight for the user's T.wait_wgmma.
    if (!Gemm.getBoolAttr("wgmma_async").value_or(false))
      B.create(OpKind::WgmmaWait, Regs, groupsOfOne(Regs), {},
               {{"pending", Attribute::integer(0)}});
    Gemm.erase();
    return true;
  }

private:
  Operation &Gemm;
  const WgmmaPlan &P;
  Value *A, *Bm, *C;
  Builder B;
  IndexScope Idx{B};

  static std::vector<unsigned> groupsOfOne(const std::vector<Value *> &V) {
    return std::vector<unsigned>(V.size(), 1);
  }

  /// wm, wn of the executing thread's warpgroup among the threads the gemm
  /// runs on (a role block's, numbered from its first).
  void bindWarpgroup() {
    IndexAtoms Atoms;
    IndexExpr T = Atoms.toExpr(emitRangeThreadId(B, Gemm));
    IndexExpr Wg = floorDiv(T, 128);
    auto Bind = [&](llvm::StringRef Name, IndexExpr E, int64_t Extent) {
      Idx.bind(Name,
               emitIndexExpr(B, layout::simplify(E, Atoms.getExtents()),
                             Atoms.getValues()),
               Extent);
    };
    Bind("wm", floorMod(Wg, P.MWarpgroups), P.MWarpgroups);
    Bind("wn", floorMod(floorDiv(Wg, P.MWarpgroups), P.NWarpgroups),
         P.NWarpgroups);
  }

  void emitKStep(IndexExpr Ks, bool ZeroInit) {
    Idx.forLoop(P.mTiles(), "unroll", "mi", [&](IndexExpr Mi) {
      Idx.forLoop(P.nTiles(), "unroll", "ni",
                  [&](IndexExpr Ni) { emitWgmma(Ks, Mi, Ni, ZeroInit); });
    });
  }

  static Attribute layoutAttr(const WgmmaSharedLayout &L) {
    return Attribute::intArray(
        {L.SwizzleBytes, L.leadingByteOffset(), L.strideByteOffset()});
  }

  void emitWgmma(IndexExpr Ks, IndexExpr Mi, IndexExpr Ni, bool ZeroInit) {
    IndexExpr K0 = Ks * P.instrK();
    IndexExpr Row = IndexExpr::var("wm") * P.wgM() + Mi * 64;
    IndexExpr Col = IndexExpr::var("wn") * P.wgN() + Ni * P.InstrN;
    IndexExpr COff = (Mi * P.nTiles() + Ni) * P.cElems();
    std::vector<Value *> Ops = {C, Idx.emit(COff)};
    std::vector<unsigned> Groups = {2};
    std::vector<NamedAttribute> Attrs = {
        {"shape", Attribute::string(P.shape())}};
    if (P.ARegisters) {
      IndexExpr AOff = (Mi * P.kSteps() + Ks) * P.aElems();
      Ops.insert(Ops.end(), {A, Idx.emit(AOff)});
      Groups.push_back(2);
    } else {
      WgmmaSharedLayout LA = P.sharedA();
      IndexExpr I = P.TransA ? K0 : Row, J = P.TransA ? Row : K0;
      Ops.insert(Ops.end(), {A, Idx.emit(I), Idx.emit(J)});
      Groups.push_back(3);
      Attrs.push_back({"a_layout", layoutAttr(LA)});
      Attrs.push_back({"a_mn_major", Attribute::boolean(P.TransA)});
    }
    IndexExpr I = P.TransB ? Col : K0, J = P.TransB ? K0 : Col;
    Ops.insert(Ops.end(), {Bm, Idx.emit(I), Idx.emit(J)});
    Groups.push_back(3);
    Attrs.push_back({"b_layout", layoutAttr(P.sharedB())});
    Attrs.push_back({"b_mn_major", Attribute::boolean(!P.TransB)});
    if (ZeroInit)
      Attrs.push_back({"zero_init", Attribute::boolean(true)});
    B.create(OpKind::Wgmma, Ops, Groups, {}, Attrs);
  }
};

bool isRegisterArray(const Value *V) {
  return V->getType().getScope() == Scope::Local && V->getType().rank() == 1;
}

bool registerArrays(const Operation &Gemm, const WgmmaPlan &P) {
  return isRegisterArray(Gemm.getOperand(2)) &&
         (!P.ARegisters || isRegisterArray(Gemm.getOperand(0)));
}

class LowerWgmmaPass : public Pass {
public:
  llvm::StringRef name() const override { return "lower-wgmma"; }
  llvm::StringRef description() const override {
    return "Lower T.gemms planned for wgmma to wgmma.mma_async";
  }

  bool run(Operation &Module, PassContext &Ctx) override {
    auto Planned = [](Operation &Op) {
      return Op.is(OpKind::Gemm) && Op.getAttr("wgmma");
    };
    addAsyncRegisters(Module);
    return lowerEach(Module, Planned, [&](Operation &Gemm) {
      auto Plan = readWgmmaPlan(Gemm);
      if (Plan && !registerArrays(Gemm, *Plan)) {
        Ctx.Diags.report(Gemm.getLoc(), diag::err_lowering_unsupported)
            << "this T.gemm"
            << "its accumulator (and A in registers) must be register arrays; "
               "run lower-fragments first";
        return false;
      }
      if (Plan)
        return WgmmaLowering(Gemm, *Plan).run();
      Ctx.Diags.report(Gemm.getLoc(), diag::err_lowering_unsupported)
          << "this T.gemm"
          << "its 'wgmma' plan does not fit its operands";
      return false;
    });
  }

private:
  /// A user's T.wait_wgmma (`wgmma_wait {user}`) waits for the kernel's
  /// T.wgmma_gemms: it takes their register arrays, so that the emitter
  /// keeps their accesses after it.
  static void addAsyncRegisters(Operation &Module) {
    Module.walk([](Operation &Kernel) {
      if (!Kernel.is(OpKind::Kernel))
        return;
      std::vector<Value *> Regs;
      std::vector<Operation *> Waits;
      Kernel.walk([&](Operation &Op) {
        if (Op.is(OpKind::WgmmaWait) && Op.getBoolAttr("user").value_or(false))
          Waits.push_back(&Op);
        if (!Op.getBoolAttr("wgmma_async").value_or(false))
          return;
        for (unsigned K : {2u, 0u}) {
          Value *V = Op.getOperand(K);
          if (isRegisterArray(V) && !llvm::is_contained(Regs, V))
            Regs.push_back(V);
        }
      });
      for (Operation *Wait : Waits)
        Wait->setOperands(Regs, std::vector<unsigned>(Regs.size(), 1));
    });
  }
};

} // namespace

std::unique_ptr<Pass> tilec::createLowerWgmmaPass() {
  return std::make_unique<LowerWgmmaPass>();
}
