//===- PlanSharedMemory.cpp - Shared buffers share bytes by liveness ------===//

#include "PlanSharedMemory.h"
#include "ApplySharedLayouts.h"
#include "Divergence.h"
#include "tilec/Layout/WgmmaLayouts.h"
#include "tilec/Support/Diagnostics.h"
#include "llvm/ADT/DenseMap.h"
#include <algorithm>

using namespace tilec;
using namespace tilec::ir;

namespace {

bool isSharedAlloc(const Operation &Op) {
  return Op.is(OpKind::Alloc) &&
         Op.getResult()->getType().getScope() == Scope::Shared;
}

int64_t alignUp(int64_t V, int64_t A) { return (V + A - 1) / A * A; }

/// Pre-order positions of a kernel's ops; an op with regions spans up to
/// the last op nested in it.
class Linearization {
public:
  explicit Linearization(Operation &Kernel) {
    Kernel.walk([&](Operation &Op) {
      Span[&Op] = {Next, Next};
      ++Next;
    });
    // Every op extends the spans of its ancestors up to the kernel.
    Kernel.walk([&](Operation &Op) {
      for (Operation *P = Op.getParentOp(); P; P = P->getParentOp()) {
        Span[P].second = std::max(Span[P].second, Span[&Op].first);
        if (P == &Kernel)
          break;
      }
    });
  }

  int64_t begin(const Operation *Op) const { return Span.lookup(Op).first; }
  int64_t end(const Operation *Op) const { return Span.lookup(Op).second; }

private:
  llvm::DenseMap<const Operation *, std::pair<int64_t, int64_t>> Span;
  int64_t Next = 0;
};

/// Computes the live interval of each shared buffer of one kernel.
class LivenessAnalysis {
public:
  explicit LivenessAnalysis(Operation &Kernel)
      : Kernel(Kernel), Lin(Kernel), Div(Kernel) {}

  SharedLiveRange rangeOf(Operation &Alloc, int64_t Bytes) {
    SharedLiveRange R{&Alloc, Lin.begin(&Alloc), Lin.begin(&Alloc), Bytes,
                      false};
    Value *Buf = Alloc.getResult();
    // An mbarrier lives from its init to the end of the kernel: its bytes
    // may not be reused without mbarrier.inval.
    if (Alloc.getBoolAttr("mbarrier").value_or(false))
      return {&Alloc, Lin.begin(&Alloc), Lin.end(&Kernel), Bytes, true};
    const Operation *Scope = scratchScope(Alloc);
    for (const Use &U : usesThroughViews(Buf)) {
      // A layout annotation names the buffer without touching it.
      if (U.User->is(OpKind::AnnotateLayout))
        continue;
      auto [Begin, End] = accessSpan(*U.User, Alloc, Scope);
      // An asynchronous copy into the buffer lands by its wait.
      bool Async = U.User->is(OpKind::CpAsync) || U.User->is(OpKind::TmaLoad);
      if (Async && U.User->getGroup(0)[0] == U.User->getOperand(U.Index))
        End = std::max(End, U.User->is(OpKind::CpAsync)
                                ? completion(*U.User)
                                : tmaCompletion(*U.User, Alloc, Scope));
      if (!R.Accessed)
        R.Begin = Begin, R.End = End;
      R.Begin = std::min(R.Begin, Begin);
      R.End = std::max(R.End, End);
      R.Accessed = true;
    }
    return R;
  }

private:
  /// The uses of \p Buf and of its views (T.reshape / T.view), which
  /// access its bytes.
  static std::vector<Use> usesThroughViews(Value *Buf) {
    std::vector<Use> Uses;
    for (const Use &U : Buf->getUses()) {
      if (!U.User->is(OpKind::View)) {
        Uses.push_back(U);
        continue;
      }
      for (const Use &V : U.User->getResult()->getUses())
        Uses.push_back(V);
    }
    return Uses;
  }

  static bool isLoop(const Operation &Op) {
    return Op.is(OpKind::For) || Op.is(OpKind::While) ||
           Op.is(OpKind::Parallel);
  }

  /// For a `scratch` buffer (lower-reduce's exchange buffers: each use
  /// writes what it reads), the innermost op around all its accesses: the
  /// loops from there out start each iteration with nothing live in it.
  static const Operation *scratchScope(const Operation &Alloc) {
    if (!Alloc.getBoolAttr("scratch").value_or(false))
      return nullptr;
    std::vector<const Operation *> Users;
    for (const Use &U : Alloc.getResult()->getUses())
      if (!U.User->is(OpKind::AnnotateLayout))
        Users.push_back(U.User);
    if (Users.empty())
      return nullptr;
    const Operation *Scope = Users.front()->getParentOp();
    auto Encloses = [&](const Operation *U) {
      return U != Scope && Scope->isAncestorOf(U);
    };
    while (Scope && !llvm::all_of(Users, Encloses))
      Scope = Scope->getParentOp();
    return Scope;
  }

  /// Ops around which an access cannot be ordered against others: loops
  /// (the next iteration runs after the accesses that follow) unless a
  /// scratch buffer starts afresh in each iteration, divergent branches
  /// (threads run both at once).
  bool widensAccess(const Operation &Op, const Operation &Alloc,
                    const Operation *ScratchScope) const {
    // The consumers' role of a warp-specialized TMA ring runs in order on
    // its threads; the producer role beside it only issues TMA loads,
    // which count until the consumers' waits (tmaCompletion).
    if (Op.is(OpKind::If))
      return Div.isDivergent(Op.getOperand(0)) &&
             Op.getStringAttr("tma_role") != llvm::StringRef("consumer");
    if (ScratchScope &&
        !(ScratchScope != &Op && ScratchScope->isAncestorOf(&Op)))
      return false;
    // A persistent block's tile loop (persistent-tiles): each tile writes
    // the shared bytes it reads, except the TMA ring's, which the producer
    // fills ahead for the next tile.
    if (Op.getBoolAttr("persistent").value_or(false))
      return Alloc.getBoolAttr("across_tiles").value_or(false);
    return isLoop(Op);
  }

  /// The last role block (`if {thread_range}` without else) among the ops
  /// of \p Role's block, when \p Role is one.
  static const Operation *lastRole(const Operation &Role) {
    auto IsRole = [](const Operation &Op) {
      return Op.is(OpKind::If) && Op.hasAttr("thread_range") &&
             Op.getNumRegions() == 1;
    };
    if (!IsRole(Role))
      return nullptr;
    const Operation *Last = &Role;
    for (const Operation *N = Role.getNextNode(); N; N = N->getNextNode())
      if (IsRole(*N))
        Last = N;
    return Last;
  }

  /// The positions an access by \p User may happen at, between the alloc
  /// (whose enclosing ops repeat the whole life of the buffer) and it.
  /// Role blocks run side by side: an access in one extends over the role
  /// blocks after it, so that it overlaps whatever they access; the last
  /// role's threads run its body in program order.
  std::pair<int64_t, int64_t> accessSpan(Operation &User,
                                         const Operation &Alloc,
                                         const Operation *ScratchScope) {
    const Operation *Outer = &User;
    int64_t End = Lin.end(&User);
    for (Operation *P = User.getParentOp();
         P && P != &Kernel && !P->isAncestorOf(&Alloc); P = P->getParentOp()) {
      if (!widensAccess(*P, Alloc, ScratchScope))
        continue;
      const Operation *Last = lastRole(*P);
      if (Last == P)
        continue;
      Outer = P;
      // A producer's TMA load lands by the consumers' last wait on it
      // (tmaCompletion), not anywhere in the roles after it.
      bool Landed = User.is(OpKind::TmaLoad) &&
                    P->getStringAttr("tma_role") == llvm::StringRef("producer");
      End = std::max(Lin.end(P), Last && !Landed ? Lin.end(Last) : 0);
    }
    return {Lin.begin(Outer), std::max(End, Lin.end(Outer))};
  }

  /// Where the cp.async \p Copy is surely complete: the first
  /// `cp_async_wait {pending = 0}` after it in its block or an enclosing
  /// one (the loop around a pipelined copy ends before its epilogue wait);
  /// the end of the kernel when there is none.
  int64_t completion(Operation &Copy) {
    for (Operation *Op = &Copy; Op && Op != &Kernel; Op = Op->getParentOp())
      for (Operation *N = Op->getNextNode(); N; N = N->getNextNode())
        if (N->is(OpKind::CpAsyncWait) &&
            N->getIntAttr("pending").value_or(0) == 0)
          return Lin.begin(N);
    return Lin.end(&Kernel);
  }

  /// Where the TMA load \p Load has surely landed: the last wait on its
  /// mbarrier array (each wait observes the bytes of its phase; with warp
  /// specialization the waits are in the consumers' role, not the
  /// load's). A load without its mbarrier yet (lower-pipelined's check,
  /// before the ring exists) counts where it is.
  int64_t tmaCompletion(Operation &Load, const Operation &Alloc,
                        const Operation *ScratchScope) {
    int64_t End = Lin.end(&Load);
    if (Load.getNumGroups() < 3)
      return End;
    for (const Use &U : Load.getGroup(2)[0]->getUses())
      if (U.User->is(OpKind::MBarrierWait))
        End = std::max(End, accessSpan(*U.User, Alloc, ScratchScope).second);
    return End;
  }

  Operation &Kernel;
  Linearization Lin;
  Divergence Div;
};

//===----------------------------------------------------------------------===//
// Sizes and alignment of the final buffers
//===----------------------------------------------------------------------===//

/// The dims a shared buffer has after apply-shared-layouts: [P] under the
/// layout its annotation names, else its own.
std::vector<Dim> finalDims(const Value *Buf) {
  for (const Use &U : Buf->getUses()) {
    if (!U.User->is(OpKind::AnnotateLayout))
      continue;
    std::string Why;
    auto L = annotatedSharedLayout(
        Buf, U.User->getStringAttr("layout").value_or(""), Why);
    if (L)
      return {Dim(layout::shapeSize(L->getOutputShape()))};
    break;
  }
  llvm::ArrayRef<Dim> Dims = Buf->getType().getDims();
  return std::vector<Dim>(Dims.begin(), Dims.end());
}

int64_t finalBytes(const Value *Buf) {
  std::vector<Dim> Dims = finalDims(Buf);
  return Type::buffer(Scope::Shared, Dims, Buf->getType().getDType())
      .sizeInBytes()
      .value_or(0);
}

/// The swizzle atom of a wgmma operand (up to 1024 bytes); else 128 bytes
/// for a TMA load's destination or when some dim spans a multiple of 128
/// bytes (the rows of a swizzled tensor-core operand, whose XOR pattern
/// assumes 128-byte rows start on bank 0); else 16 (the widest vector
/// access). The CUDA emitter's fallback for unplanned IR (pass tests) keeps
/// the last two rules.
int64_t finalAlignment(const Value *Buf) {
  int64_t Bits = bitWidth(Buf->getType().getDType());
  // A wgmma operand starts on its swizzle atom: the hardware swizzles
  // absolute address bits.
  auto Shape = Buf->getType().getStaticShape();
  for (const Use &U : Buf->getUses())
    if (U.User->is(OpKind::AnnotateLayout) && Shape && Shape->size() >= 2)
      if (auto W = layout::parseWgmmaLayoutText(
              U.User->getStringAttr("layout").value_or(""),
              (*Shape)[Shape->size() - 2], Shape->back(), Bits))
        return std::max<int64_t>(W->alignment(), 128);
  // The TMA unit writes shared memory in 128-byte aligned boxes.
  for (const Use &U : Buf->getUses())
    if (U.User->is(OpKind::TmaLoad) && U.Index == 0)
      return 128;
  for (const Dim &D : finalDims(Buf))
    if (D.isStatic() && D.getValue() * Bits % 8 == 0 &&
        (D.getValue() * Bits / 8) % 128 == 0)
      return 128;
  return 16;
}

//===----------------------------------------------------------------------===//
// Offset assignment
//===----------------------------------------------------------------------===//

struct Slot {
  SharedLiveRange Range;
  int64_t Align;
  int64_t Offset = 0;

  int64_t end() const { return Offset + Range.Bytes; }
};

int64_t totalOf(const std::vector<Slot> &Slots) {
  int64_t End = 0;
  for (const Slot &S : Slots)
    End = std::max(End, S.end());
  return alignUp(End, 16);
}

/// Declaration order, one after the other: what every buffer live at once
/// needs anyway.
void placeSequentially(std::vector<Slot> &Slots) {
  int64_t End = 0;
  for (Slot &S : Slots) {
    S.Offset = alignUp(End, S.Align);
    End = S.end();
  }
}

bool fitsAt(const std::vector<Slot> &Slots, size_t I, int64_t Offset) {
  for (size_t J = 0; J != I; ++J)
    if (Slots[J].Range.overlaps(Slots[I].Range) && Offset < Slots[J].end() &&
        Slots[J].Offset < Offset + Slots[I].Range.Bytes)
      return false;
  return true;
}

/// First fit in declaration order: the lowest offset, 0 or the aligned end
/// of a placed buffer, that no buffer live at the same time occupies.
void placeFirstFit(std::vector<Slot> &Slots) {
  for (size_t I = 0; I != Slots.size(); ++I) {
    std::vector<int64_t> Candidates = {0};
    for (size_t J = 0; J != I; ++J)
      Candidates.push_back(alignUp(Slots[J].end(), Slots[I].Align));
    llvm::sort(Candidates);
    for (int64_t C : Candidates)
      if (fitsAt(Slots, I, C)) {
        Slots[I].Offset = C;
        break;
      }
  }
}

bool reportOverLimit(const Operation &Kernel, int64_t Total,
                     const std::vector<const Slot *> &Slots, PassContext &Ctx) {
  if (Total <= Ctx.Tgt.MaxSharedMemoryBytes)
    return true;
  Ctx.Diags.report(Kernel.getLoc(), diag::err_shared_memory_limit)
      << Total << Ctx.Tgt.MaxSharedMemoryBytes << Ctx.Tgt.Name;
  for (const Slot *S : Slots)
    Ctx.Diags.report(S->Range.Alloc->getLoc(), diag::note_shared_buffer)
        << S->Range.Alloc->getResult()->getNameHint() << S->Range.Bytes;
  return false;
}

bool planKernel(Operation &Kernel, PassContext &Ctx) {
  std::vector<Slot> Slots;
  for (const SharedLiveRange &R : sharedLiveRanges(Kernel, finalBytes))
    if (R.Accessed)
      Slots.push_back({R, finalAlignment(R.Alloc->getResult())});
  if (Slots.empty())
    return true;
  placeSequentially(Slots);
  std::vector<Slot> Shared = Slots;
  placeFirstFit(Shared);
  // Sharing bytes costs barriers; keep the plain layout unless it saves.
  if (totalOf(Shared) < totalOf(Slots))
    Slots = Shared;
  for (const Slot &S : Slots) {
    S.Range.Alloc->setAttr("shared_offset", Attribute::integer(S.Offset));
    S.Range.Alloc->setAttr("shared_bytes", Attribute::integer(S.Range.Bytes));
    // A view is its source's bytes.
    for (const Use &U : S.Range.Alloc->getResult()->getUses())
      if (U.User->is(OpKind::View)) {
        U.User->setAttr("shared_offset", Attribute::integer(S.Offset));
        U.User->setAttr("shared_bytes", Attribute::integer(S.Range.Bytes));
      }
  }
  std::vector<const Slot *> All;
  for (const Slot &S : Slots)
    All.push_back(&S);
  return reportOverLimit(Kernel, totalOf(Slots), All, Ctx);
}

class PlanSharedMemoryPass : public Pass {
public:
  llvm::StringRef name() const override { return "plan-shared-memory"; }
  llvm::StringRef description() const override {
    return "Give shared buffers with disjoint lifetimes the same bytes";
  }

  bool run(Operation &Module, PassContext &Ctx) override {
    return lowerEach(
        Module, [](Operation &Op) { return Op.is(OpKind::Kernel); },
        [&](Operation &Kernel) { return planKernel(Kernel, Ctx); });
  }
};

} // namespace

std::vector<SharedLiveRange>
tilec::sharedLiveRanges(Operation &Kernel,
                        llvm::function_ref<int64_t(const Value *)> BytesOf) {
  std::vector<Operation *> Allocs = Kernel.collect(isSharedAlloc);
  std::vector<SharedLiveRange> Ranges;
  if (Allocs.empty())
    return Ranges;
  LivenessAnalysis Liveness(Kernel);
  for (Operation *Alloc : Allocs)
    Ranges.push_back(Liveness.rangeOf(*Alloc, BytesOf(Alloc->getResult())));
  return Ranges;
}

bool tilec::checkPeakSharedMemory(const Operation &Kernel,
                                  const std::vector<SharedLiveRange> &Ranges,
                                  PassContext &Ctx) {
  // The total live at some point peaks where some interval begins.
  int64_t Peak = 0;
  std::vector<const SharedLiveRange *> PeakLive;
  for (const SharedLiveRange &At : Ranges) {
    int64_t Total = 0;
    std::vector<const SharedLiveRange *> Live;
    for (const SharedLiveRange &R : Ranges)
      if (R.Begin <= At.Begin && At.Begin <= R.End) {
        Total += R.Bytes;
        Live.push_back(&R);
      }
    if (Total > Peak)
      Peak = Total, PeakLive = Live;
  }
  if (Peak <= Ctx.Tgt.MaxSharedMemoryBytes)
    return true;
  Ctx.Diags.report(Kernel.getLoc(), diag::err_shared_memory_limit)
      << Peak << Ctx.Tgt.MaxSharedMemoryBytes << Ctx.Tgt.Name;
  for (const SharedLiveRange *R : PeakLive)
    Ctx.Diags.report(R->Alloc->getLoc(), diag::note_shared_buffer)
        << R->Alloc->getResult()->getNameHint() << R->Bytes;
  return false;
}

std::optional<std::pair<int64_t, int64_t>>
tilec::plannedSharedRange(const Value *Buf) {
  const Operation *Alloc = Buf->getDefiningOp();
  if (!Alloc || !(Alloc->is(OpKind::Alloc) || Alloc->is(OpKind::View)))
    return std::nullopt;
  auto Offset = Alloc->getIntAttr("shared_offset");
  auto Bytes = Alloc->getIntAttr("shared_bytes");
  if (!Offset || !Bytes)
    return std::nullopt;
  return std::make_pair(*Offset, *Bytes);
}

std::unique_ptr<Pass> tilec::createPlanSharedMemoryPass() {
  return std::make_unique<PlanSharedMemoryPass>();
}
