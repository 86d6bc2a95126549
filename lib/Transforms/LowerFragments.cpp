//===- LowerFragments.cpp - Fragments become per-thread registers ---------===//

#include "LowerFragments.h"
#include "IndexExprToIR.h"
#include "LiveArrays.h"
#include "tilec/IR/Builder.h"
#include "tilec/Layout/LayoutParser.h"
#include "tilec/Support/Diagnostics.h"
#include "llvm/ADT/SmallPtrSet.h"

using namespace tilec;
using namespace tilec::ir;

namespace {

/// Ops whose buffer groups are single-element accesses this pass rewrites.
bool isElementAccess(const Operation &Op) {
  return Op.is(OpKind::Load) || Op.is(OpKind::Store) || Op.is(OpKind::VCopy) ||
         (Op.is(OpKind::Atomic) &&
          !Op.getGroup(1).front()->getType().isBuffer());
}

class FragmentLowering {
public:
  FragmentLowering(Operation &Alloc, DiagnosticEngine &Diags)
      : Alloc(Alloc), Buf(Alloc.getResult()), Diags(Diags) {}

  bool run() {
    if (!allUsesMappable())
      return true;
    std::string Error;
    llvm::StringRef Text = Alloc.getStringAttr("layout").value_or("");
    auto L = layout::parseFragment(Text, Error);
    auto Shape = Buf->getType().getStaticShape();
    if (!L || !Shape || L->getInputShape() != llvm::ArrayRef<int64_t>(*Shape)) {
      Diags.report(Alloc.getLoc(), diag::err_lowering_unsupported)
          << "fragment '" + Buf->getNameHint().str() + "'"
          << "it has no valid 'layout' (" + Error +
                 "); run layout-inference first";
      return false;
    }
    llvm::SmallPtrSet<Operation *, 16> Users;
    for (const Use &U : Buf->getUses())
      Users.insert(U.User);
    for (Operation *User : Users)
      // Last group first: rewriting a group shifts only the later ones.
      for (unsigned G = User->getNumGroups(); G-- > 0;)
        if (!User->is(OpKind::Gemm) && !User->is(OpKind::View) &&
            User->getGroup(G).front() == Buf)
          remapThroughLayout(*User, G, *L);
    if (Alloc.is(OpKind::View))
      return replaceView();
    Buf->setType(Type::buffer(Scope::Local, {Dim(L->getRegisterCount())},
                              Buf->getType().getDType()));
    Alloc.removeAttr("layout");
    return true;
  }

private:
  Operation &Alloc;
  Value *Buf;
  DiagnosticEngine &Diags;

  /// A view's layout gives each element its source's thread and register
  /// (layout-inference), so its remapped accesses read the source's
  /// registers.
  bool replaceView() {
    Buf->replaceAllUsesWith(Alloc.getOperand(0));
    Alloc.erase();
    return true;
  }

  /// Element accesses are remapped; a tensor-core gemm takes the whole
  /// register array (lower-mma and lower-wgmma read the layout back from
  /// their plans); views are lowered on their own.
  bool allUsesMappable() {
    return llvm::all_of(Buf->getUses(), [](const Use &U) {
      return isElementAccess(*U.User) || U.User->is(OpKind::View) ||
             (U.User->is(OpKind::Gemm) &&
              (U.User->getAttr("mma_warps") || U.User->getAttr("wgmma")));
    });
  }
};

class LowerFragmentsPass : public Pass {
public:
  llvm::StringRef name() const override { return "lower-fragments"; }
  llvm::StringRef description() const override {
    return "Turn fragment buffers into per-thread register arrays";
  }

  bool run(Operation &Module, PassContext &Ctx) override {
    bool Ok = lowerEach(
        Module,
        [](Operation &Op) {
          return (Op.is(OpKind::Alloc) || Op.is(OpKind::View)) &&
                 Op.getResult()->getType().getScope() == Scope::Fragment;
        },
        [&](Operation &Alloc) {
          return FragmentLowering(Alloc, Ctx.Diags).run();
        });
    if (!Ok)
      return false;
    Module.walk([&](Operation &Op) {
      if (Op.is(OpKind::Kernel))
        Ok &= checkPerThreadMemory(Op, Ctx);
    });
    return Ok;
  }

private:
  /// Here the per-thread size of every fragment is known. Sema rejected
  /// what cannot fit on any layout; a layout's replication or several
  /// arrays together can still exceed local memory (an error) or, those
  /// live at once, the register file (a warning: they spill and the kernel
  /// is slow). Arrays that only the threads of different roles access (a
  /// warp-specialized kernel's accumulators, one per consumer warpgroup)
  /// never occupy the same thread, so both are counted per range of
  /// threads, and the worst range is reported.
  static bool checkPerThreadMemory(Operation &Kernel, PassContext &Ctx) {
    std::vector<int64_t> Block = *Kernel.getIntArrayAttr("threads");
    int64_t Threads = 1;
    for (int64_t N : Block)
      Threads *= N;
    std::vector<LiveArray> Arrays;
    // The threads [First, Last) of the block that access each array.
    std::vector<std::pair<int64_t, int64_t>> Ranges;
    std::vector<int64_t> Cuts = {0};
    Kernel.walk([&](Operation &Op) {
      if (!Op.is(OpKind::Alloc))
        return;
      int64_t Bytes = perThreadBytes(Op);
      if (Bytes == 0)
        return;
      auto [First, Last] = threadsUsing(Op, Threads);
      Arrays.push_back({&Op, Bytes});
      Ranges.push_back({First, Last});
      Cuts.push_back(First);
    });
    computeLiveRanges(Kernel, Arrays);
    llvm::sort(Cuts);
    Cuts.erase(std::unique(Cuts.begin(), Cuts.end()), Cuts.end());
    // The worst ranges start where some array's threads start.
    int64_t Total = 0, LiveBytes = 0;
    std::vector<LiveArray> WorstAll, WorstLive;
    for (int64_t Cut : Cuts) {
      std::vector<LiveArray> Here;
      int64_t Sum = 0;
      for (size_t I = 0; I != Arrays.size(); ++I)
        if (Ranges[I].first <= Cut && Cut < Ranges[I].second) {
          Here.push_back(Arrays[I]);
          Sum = std::min(Sum + Arrays[I].Bytes, int64_t(1) << 62);
        }
      if (Sum > Total)
        Total = Sum, WorstAll = Here;
      std::vector<LiveArray> Live = peakLiveArrays(Here);
      int64_t Bytes = 0;
      for (const LiveArray &A : Live)
        Bytes += A.Bytes;
      if (Bytes > LiveBytes)
        LiveBytes = Bytes, WorstLive = std::move(Live);
    }
    if (Total > Ctx.Tgt.MaxLocalBytesPerThread) {
      Ctx.Diags.report(largest(WorstAll).getLoc(),
                       diag::err_thread_memory_total)
          << Total << Ctx.Tgt.MaxLocalBytesPerThread;
      noteArrays(Ctx, WorstAll);
      return false;
    }
    int64_t Registers = (LiveBytes + 3) / 4;
    if (Registers <= Ctx.Tgt.MaxRegistersPerThread)
      return true;
    Ctx.Diags.report(largest(WorstLive).getLoc(), diag::warn_register_spill)
        << Registers << Ctx.Tgt.MaxRegistersPerThread;
    noteArrays(Ctx, WorstLive);
    return true;
  }

  static Operation &largest(const std::vector<LiveArray> &Arrays) {
    return *std::max_element(Arrays.begin(), Arrays.end(),
                             [](const LiveArray &A, const LiveArray &B) {
                               return A.Bytes < B.Bytes;
                             })
                ->Alloc;
  }

  static void noteArrays(PassContext &Ctx,
                         const std::vector<LiveArray> &Arrays) {
    for (const LiveArray &A : Arrays)
      Ctx.Diags.report(A.Alloc->getLoc(), diag::note_thread_buffer)
          << A.Alloc->getResult()->getNameHint() << A.Bytes;
  }

  /// The threads [First, Last) that access \p Alloc: the hull of the
  /// innermost role (an `if` with thread_range) around each use, all
  /// \p Threads of the block for a use outside roles or an unused array.
  static std::pair<int64_t, int64_t> threadsUsing(Operation &Alloc,
                                                  int64_t Threads) {
    int64_t First = Threads, Last = 0;
    for (const Use &U : Alloc.getResult()->getUses()) {
      Operation *Role = U.User;
      while (Role && !(Role->is(OpKind::If) && Role->hasAttr("thread_range")))
        Role = Role->getParentOp();
      if (!Role)
        return {0, Threads};
      std::vector<int64_t> R = *Role->getIntArrayAttr("thread_range");
      First = std::min(First, R[0]);
      Last = std::max(Last, R[0] + R[1]);
    }
    return First < Last ? std::make_pair(First, Last)
                        : std::make_pair(int64_t(0), Threads);
  }

  /// Bytes one thread holds for \p Alloc: all of a local or var buffer,
  /// its registers under the layout for a fragment left for a later pass.
  static int64_t perThreadBytes(Operation &Alloc) {
    const Type &T = Alloc.getResult()->getType();
    int64_t Bits = T.getDType() == DType::Bool ? 8 : bitWidth(T.getDType());
    if (T.getScope() == Scope::Local || T.getScope() == Scope::Var)
      return T.sizeInBytes().value_or(0);
    if (T.getScope() != Scope::Fragment)
      return 0;
    std::string Error;
    auto L = layout::parseFragment(Alloc.getStringAttr("layout").value_or(""),
                                   Error);
    return L ? (L->getRegisterCount() * Bits + 7) / 8 : 0;
  }
};

} // namespace

std::unique_ptr<Pass> tilec::createLowerFragmentsPass() {
  return std::make_unique<LowerFragmentsPass>();
}
