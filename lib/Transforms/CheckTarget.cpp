//===- CheckTarget.cpp - Checks that need to know the target GPU ----------===//

#include "CheckTarget.h"
#include "PlanSharedMemory.h"
#include "tilec/IR/Operation.h"
#include "tilec/Support/Diagnostics.h"
#include <map>

using namespace tilec;
using namespace tilec::ir;

namespace {

/// How many copies of each shared buffer the pipeliner will keep: the
/// largest num_stages of a pipelined loop that copies global memory into
/// it (copies from on-chip buffers run in their own iteration, unstaged).
std::map<const Value *, int64_t> pipelineStages(Operation &Kernel) {
  std::map<const Value *, int64_t> Stages;
  Kernel.walk([&](Operation &Op) {
    if (!Op.is(OpKind::Copy) ||
        Op.getGroup(0).front()->getType().getScope() != Scope::Global)
      return;
    Value *Dst = Op.getGroup(1).front();
    for (Operation *P = Op.getParentOp(); P && P != &Kernel;
         P = P->getParentOp()) {
      std::optional<llvm::StringRef> Kind = P->getStringAttr("kind");
      if (!P->is(OpKind::For) || !Kind || *Kind != "pipelined")
        continue;
      int64_t N = P->getIntAttr("num_stages").value_or(0);
      if (N > 1 && Dst->getParentBlock() &&
          !P->isAncestorOf(Dst->getDefiningOp()))
        Stages[Dst] = std::max(Stages[Dst], N);
    }
  });
  return Stages;
}

bool isFp8(DType T) { return T == DType::Float8E4M3 || T == DType::Float8E5M2; }
bool isInt4(DType T) { return T == DType::Int4 || T == DType::UInt4; }

class CheckTargetPass : public Pass {
public:
  llvm::StringRef name() const override { return "check-target"; }
  llvm::StringRef description() const override {
    return "Check shared memory and dtypes against the target";
  }

  bool run(Operation &Module, PassContext &Ctx) override {
    bool OK = true;
    Module.walk([&](Operation &Op) {
      if (Op.is(OpKind::Kernel))
        OK &= checkSharedMemory(Op, Ctx);
      if (Op.is(OpKind::Gemm))
        OK &= checkGemmDTypes(Op, Ctx);
      if (Op.is(OpKind::MBarrierExpectTx))
        OK &= checkHopperOnly(Op, "T.mbarrier_expect_tx", Ctx);
      if (const char *What = ptxOnlyFeature(Op))
        OK &= checkNotAMD(Op, What, Ctx);
      if (Op.getBoolAttr("wgmma_async").value_or(false))
        OK &= checkWgmma(Op, "T.wgmma_gemm", Ctx);
      if (Op.is(OpKind::WgmmaWait))
        OK &= checkWgmma(Op, "T.wait_wgmma", Ctx);
    });
    return OK;
  }

private:
  /// Buffers with disjoint lifetimes will share bytes (plan-shared-memory
  /// decides after lowering), so what must fit is the most that is live at
  /// once; lowering adds small buffers and alignment, checked there.
  bool checkSharedMemory(Operation &Kernel, PassContext &Ctx) {
    std::map<const Value *, int64_t> Stages = pipelineStages(Kernel);
    auto BytesOf = [&](const Value *Buf) {
      int64_t Bytes = Buf->getType().sizeInBytes().value_or(0);
      auto It = Stages.find(Buf);
      return It == Stages.end() ? Bytes : Bytes * It->second;
    };
    return checkPeakSharedMemory(Kernel, sharedLiveRanges(Kernel, BytesOf),
                                 Ctx);
  }

  /// PTX that exists from sm_90 on (mbarrier transaction counts), reported
  /// at the user's call rather than left to ptxas.
  bool checkHopperOnly(Operation &Op, llvm::StringRef What, PassContext &Ctx) {
    if (Ctx.Tgt.isCUDA() && Ctx.Tgt.SmVersion >= 90)
      return true;
    Ctx.Diags.report(Op.getLoc(), diag::err_instruction_needs_target)
        << What.str() << Ctx.Tgt.Name;
    return false;
  }

  /// The user synchronization tilec writes as PTX (mbarriers, named
  /// barriers): nothing on AMD implements it yet.
  static const char *ptxOnlyFeature(const Operation &Op) {
    if (Op.is(OpKind::MBarrierInit))
      return "mbarriers (T.alloc_barrier)";
    if (Op.is(OpKind::Barrier) && Op.getAttr("id"))
      return "named barriers (T.sync_threads(id, count))";
    return nullptr;
  }

  bool checkNotAMD(Operation &Op, llvm::StringRef What, PassContext &Ctx) {
    if (!Ctx.Tgt.isHIP())
      return true;
    Ctx.Diags.report(Op.getLoc(), diag::err_feature_unsupported)
        << What.str() + " on " + Ctx.Tgt.Name;
    return false;
  }

  /// T.wgmma_gemm has no mma.sync fallback (TileLang's rule): it needs
  /// wgmma, which --no-wgmma turns off on sm_90.
  bool checkWgmma(Operation &Op, llvm::StringRef What, PassContext &Ctx) {
    if (!checkHopperOnly(Op, What, Ctx))
      return false;
    if (Ctx.Tgt.Wgmma)
      return true;
    Ctx.Diags.report(Op.getLoc(), diag::err_lowering_unsupported)
        << What.str()
        << "it needs wgmma, which --no-wgmma turns off, and has no mma.sync "
           "fallback";
    return false;
  }

  /// Why an OCP fp8 T.gemm cannot run on an AMD target.
  static std::string amdFp8Reason(const Target &Tgt) {
    if (!Tgt.MfmaFp8)
      return Tgt.Name + " has no fp8 MFMA instructions (gfx940 has)";
    return "its fp8 MFMA instructions (v_mfma_f32_16x16x32_fp8_fp8, "
           "_32x32x16_fp8_fp8 and the bf8 forms) read the FNUZ encodings "
           "(exponent bias 8 and 16, NaN at 0x80, no infinity or negative "
           "zero), not the OCP encodings of float8_e4m3 and float8_e5m2; "
           "give T.gemm T.float8_e4m3fnuz or T.float8_e5m2fnuz operands";
  }

  /// fp8 needs sm_89+; int4 mma.sync (every CUDA target); AMD: see
  /// amdFp8Reason, and MFMA has no 4-bit integer instructions.
  bool checkGemmDTypes(Operation &Gemm, PassContext &Ctx) {
    for (Value *V : Gemm.getOperands()) {
      DType T = V->getType().getDType();
      std::string Reason;
      if (isFp8(T) && Ctx.Tgt.isHIP())
        Reason = amdFp8Reason(Ctx.Tgt);
      if (isInt4(T) && Ctx.Tgt.isHIP())
        Reason = "the MFMA instructions of " + Ctx.Tgt.Name +
                 " have no 4-bit integer operands";
      if (!Reason.empty()) {
        Ctx.Diags.report(Gemm.getLoc(), diag::err_gemm_dtype_on_target)
            << std::string(tileLangName(T)) << Ctx.Tgt.Name << Reason;
        return false;
      }
      bool Unsupported =
          T == DType::Float4E2M1 || (isFp8(T) && Ctx.Tgt.SmVersion < 89);
      if (!Unsupported)
        continue;
      Ctx.Diags.report(Gemm.getLoc(), diag::err_dtype_unsupported_on_target)
          << std::string(tileLangName(T)) + " in T.gemm" << Ctx.Tgt.Name;
      return false;
    }
    return true;
  }
};

} // namespace

std::unique_ptr<Pass> tilec::createCheckTargetPass() {
  return std::make_unique<CheckTargetPass>();
}
