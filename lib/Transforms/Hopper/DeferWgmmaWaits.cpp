//===- DeferWgmmaWaits.cpp - Wait for a wgmma group where it is used ------===//

#include "DeferWgmmaWaits.h"
#include "tilec/IR/Builder.h"
#include "llvm/ADT/SmallPtrSet.h"

using namespace tilec;
using namespace tilec::ir;

namespace {

/// Ops a wait may not pass: they synchronize with other threads or the
/// async proxy, or the pass cannot tell what they touch. A bulk_reduce and
/// a bulk_wait are not among them: they order only the thread's own bulk
/// reads of their source tile before its next writes of it, release
/// nothing to other threads, and their shared operand is checked like any
/// other read (passable).
bool synchronizes(const Operation &Op) {
  switch (Op.getKind()) {
  case OpKind::Barrier:
  case OpKind::MBarrierInit:
  case OpKind::MBarrierArrive:
  case OpKind::MBarrierWait:
  case OpKind::MBarrierExpectTx:
  case OpKind::TmaLoad:
  case OpKind::FenceProxyAsync:
  case OpKind::CpAsyncWait:
  case OpKind::ScheduleAfter:
  case OpKind::SetMaxNReg:
  case OpKind::Break:
  case OpKind::Continue:
  case OpKind::CallExtern:
    return true;
  default:
    return false;
  }
}

bool isWgmmaOp(const Operation &Op) {
  return Op.is(OpKind::Wgmma) || Op.is(OpKind::WgmmaFence) ||
         Op.is(OpKind::WgmmaCommit) || Op.is(OpKind::WgmmaWait);
}

/// Whether operand group \p G of \p Op may write its buffer (loads and
/// wgmma operands are reads; a store writes its second group; other ops
/// their first, extern calls any).
bool writesGroup(const Operation &Op, unsigned G) {
  if (Op.is(OpKind::Load) || Op.is(OpKind::Wgmma) ||
      Op.is(OpKind::AnnotateLayout))
    return false;
  if (Op.is(OpKind::Store))
    return G == 1;
  return G == 0 || Op.is(OpKind::CallExtern);
}

class GroupWait {
public:
  GroupWait(Operation &Wait) : Wait(Wait), Parent(*Wait.getParentOp()) {}

  void run() {
    if (!findGroup())
      return;
    collectWrittenShared();
    int64_t Pending = 0;
    // Where the wait may stop: never inside another group (its wgmmas must
    // follow its fence), so a stop inside one falls back to its fence.
    Operation *Stop = Wait.getNextNode(), *Pos = Stop;
    int64_t StopPending = 0;
    bool InGroup = false;
    for (; Pos; Pos = Pos->getNextNode()) {
      if (Pos->is(OpKind::WgmmaWait)) {
        if (!InGroup && absorbedBy(*Pos, Pending))
          return;
        break;
      }
      if (!passable(*Pos, InGroup))
        break;
      if (Pos->is(OpKind::WgmmaFence))
        InGroup = true;
      if (Pos->is(OpKind::WgmmaCommit)) {
        InGroup = false;
        ++Pending;
      }
      if (!InGroup) {
        Stop = Pos->getNextNode();
        StopPending = Pending;
      }
    }
    // A wait that passes no commit still moves: an earlier group's wait
    // can then stop before its own first use instead of being absorbed.
    if (Stop)
      Wait.moveBefore(Stop);
    else
      Wait.moveToEnd(*Wait.getParentBlock());
    Wait.setAttr("pending", Attribute::integer(StopPending));
  }

private:
  Operation &Wait;
  Operation &Parent;
  llvm::SmallPtrSet<const Value *, 4> Regs;
  llvm::SmallPtrSet<const Value *, 4> Written;
  /// The group's shared operands.
  llvm::SmallPtrSet<const Value *, 4> Operands;
  /// Whether the block writes one of them other than through TMA: only
  /// then can a barrier between the group and its wait let other threads
  /// overwrite what it still reads.
  bool ReadsWritten = false;

  /// The wait directly follows its commit, and the run back to the fence
  /// holds only this group's wgmmas.
  bool findGroup() {
    if (Wait.getIntAttr("pending") != 0 ||
        Wait.getBoolAttr("user").value_or(false))
      return false;
    Operation *Commit = Wait.getPrevNode();
    if (!Commit || !Commit->is(OpKind::WgmmaCommit))
      return false;
    for (const Value *V : Wait.getOperands())
      Regs.insert(V);
    for (Operation *Op = Commit->getPrevNode(); Op; Op = Op->getPrevNode()) {
      Op->walk([&](Operation &Inner) {
        if (Inner.is(OpKind::Wgmma))
          for (unsigned G = 1; G != Inner.getNumGroups(); ++G)
            if (Inner.getGroup(G)[0]->isBufferIn(Scope::Shared))
              Operands.insert(Inner.getGroup(G)[0]);
      });
      if (Op->is(OpKind::WgmmaFence))
        return llvm::all_of(Op->getOperands(),
                            [&](const Value *V) { return Regs.count(V); });
      bool Foreign = false;
      Op->walk([&](Operation &Inner) {
        Foreign |= Inner.is(OpKind::WgmmaCommit) ||
                   Inner.is(OpKind::WgmmaWait) || synchronizes(Inner);
      });
      if (Foreign)
        return false;
    }
    return false;
  }

  /// The shared buffers that ops of the wait's block (nested ones
  /// included) write other than through TMA.
  void collectWrittenShared() {
    Parent.walk([&](Operation &Op) {
      if (Op.is(OpKind::TmaLoad))
        return;
      for (unsigned G = 0; G != Op.getNumGroups(); ++G) {
        llvm::ArrayRef<Value *> Group = Op.getGroup(G);
        if (!Group.empty() && Group[0]->isBufferIn(Scope::Shared) &&
            writesGroup(Op, G))
          Written.insert(Group[0]);
      }
    });
    ReadsWritten = llvm::any_of(
        Operands, [&](const Value *V) { return Written.count(V) != 0; });
  }

  /// \p Op neither touches the group's registers nor synchronizes, and,
  /// when the group reads a shared buffer the block writes other than
  /// through TMA, insert-barriers cannot put a barrier before it (which
  /// would let other threads write what the group still reads): it writes
  /// no shared memory other than through TMA, and reads no shared buffer
  /// the block writes so. A wgmma op outside another group's run is left
  /// alone too.
  bool passable(Operation &Op, bool InGroup) {
    bool Ok = true;
    Op.walk([&](Operation &Inner) {
      for (const Value *V : Inner.getOperands())
        Ok &= !Regs.count(V);
      Ok &= !synchronizes(Inner);
      if (&Inner != &Op && isWgmmaOp(Inner) && !Inner.is(OpKind::Wgmma))
        Ok = false;
      if (Inner.is(OpKind::Wgmma) && !InGroup)
        Ok = false;
      for (unsigned G = 0; G != Inner.getNumGroups(); ++G) {
        llvm::ArrayRef<Value *> Group = Inner.getGroup(G);
        if (ReadsWritten && !Group.empty() &&
            Group[0]->isBufferIn(Scope::Shared))
          Ok &= !writesGroup(Inner, G) && !Written.count(Group[0]);
      }
    });
    if (Op.is(OpKind::WgmmaCommit) && !InGroup)
      return false;
    return Ok;
  }

  /// A later wait that completes this group too (at most \p Pending groups
  /// left, all issued after it) takes over its registers.
  bool absorbedBy(Operation &Other, int64_t Pending) {
    if (Other.getIntAttr("pending").value_or(0) > Pending ||
        Other.getBoolAttr("user").value_or(false))
      return false;
    std::vector<Value *> Operands(Other.getOperands().begin(),
                                  Other.getOperands().end());
    for (Value *V : Wait.getOperands())
      if (!llvm::is_contained(Operands, V))
        Operands.push_back(V);
    Builder B;
    B.setInsertionPoint(&Other);
    B.setLoc(Other.getLoc());
    B.create(OpKind::WgmmaWait, Operands,
             std::vector<unsigned>(Operands.size(), 1), {}, Other.getAttrs());
    Other.erase();
    Wait.erase();
    return true;
  }
};

class DeferWgmmaWaitsPass : public Pass {
public:
  llvm::StringRef name() const override { return "defer-wgmma-waits"; }
  llvm::StringRef description() const override {
    return "Wait for a wgmma group right before its first use, issuing the "
           "independent gemms in between";
  }

  bool run(Operation &Module, PassContext &) override {
    std::vector<Operation *> Waits = Module.collect(OpKind::WgmmaWait);
    // Last first: a wait then meets later waits already in place.
    for (auto It = Waits.rbegin(); It != Waits.rend(); ++It)
      GroupWait(**It).run();
    return true;
  }
};

} // namespace

std::unique_ptr<Pass> tilec::createDeferWgmmaWaitsPass() {
  return std::make_unique<DeferWgmmaWaitsPass>();
}
