//===- OverlapWgmma.cpp - Keep one wgmma group in flight per loop ---------===//

#include "OverlapWgmma.h"
#include "tilec/IR/Builder.h"
#include "llvm/ADT/SmallPtrSet.h"

using namespace tilec;
using namespace tilec::ir;

namespace {

bool isPureOp(const Operation &Op) {
  OpKind K = Op.getKind();
  return isBinaryOp(K) || isUnaryOp(K) || K == OpKind::Const ||
         K == OpKind::Cmp || K == OpKind::Select || K == OpKind::Cast ||
         K == OpKind::Bitcast || K == OpKind::Math || K == OpKind::ThreadId;
}

/// lower-pipelined's copies: cp_asyncs, possibly under `if`/`for` with
/// pure index ops.
bool isAsyncCopy(Operation &Op) {
  bool Copies = false, Other = false;
  Op.walk([&](Operation &Inner) {
    Copies |= Inner.is(OpKind::CpAsync);
    Other |= !Inner.is(OpKind::CpAsync) && !Inner.is(OpKind::If) &&
             !Inner.is(OpKind::For) && !isPureOp(Inner);
  });
  return Copies && !Other;
}

/// Whether \p Op or an op nested in it writes one of \p Bufs.
bool writesAny(Operation &Op, const llvm::SmallPtrSetImpl<Value *> &Bufs) {
  bool Found = false;
  Op.walk([&](Operation &Inner) {
    for (unsigned G = 0; G != Inner.getNumGroups(); ++G) {
      bool Dst = Inner.is(OpKind::Store) ? G == 1
                 : Inner.is(OpKind::Load) || Inner.is(OpKind::Wgmma)
                     ? false
                     : G == 0 || Inner.is(OpKind::CallExtern);
      Found |= Dst && Bufs.count(Inner.getGroup(G)[0]);
    }
  });
  return Found;
}

class LoopOverlap {
public:
  explicit LoopOverlap(Operation &Loop) : Loop(Loop), Body(Loop.getBody()) {}

  void run() {
    if (Body.empty() || !Body.front().is(OpKind::CpAsyncWait) || !findGroup())
      return;
    collectGroup();
    if (!registersPrivate() || !operandWritesMovable())
      return;
    Operation *Cursor = Wait;
    for (Operation *Op : Producers) {
      Op->moveAfter(Cursor);
      Cursor = Op;
    }
    Wait->setAttr("pending", Attribute::integer(1));
    Builder B;
    B.setInsertionPointAfter(&Loop);
    B.setLoc(Wait->getLoc());
    B.create(OpKind::WgmmaWait, Wait->getOperands(), Wait->getSegments(), {},
             {{"pending", Attribute::integer(0)}});
  }

private:
  Operation &Loop;
  Block &Body;
  Operation *Fence = nullptr, *Wait = nullptr;
  /// Top-level ops from Fence to Wait, and everything nested in them.
  llvm::SmallPtrSet<Operation *, 32> GroupOps;
  llvm::SmallPtrSet<Value *, 4> Operands;
  std::vector<Operation *> Producers;

  /// The body's one wgmma_fence and one wgmma_wait {pending = 0} after it,
  /// both at its top level.
  bool findGroup() {
    int Fences = 0, Waits = 0;
    Body.getParentOp()->walk([&](Operation &Op) {
      Fences += Op.is(OpKind::WgmmaFence);
      Waits += Op.is(OpKind::WgmmaWait);
    });
    if (Fences != 1 || Waits != 1)
      return false;
    for (Operation &Op : Body) {
      if (Op.is(OpKind::WgmmaFence))
        Fence = &Op;
      else if (Op.is(OpKind::WgmmaWait) && Fence)
        Wait = &Op;
    }
    // A user's T.wait_wgmma stays as written.
    return Fence && Wait && Wait->getIntAttr("pending") == 0 &&
           !Wait->getBoolAttr("user").value_or(false);
  }

  void collectGroup() {
    for (Operation *Op = Fence; Op; Op = Op->getNextNode()) {
      Op->walk([&](Operation &Inner) {
        GroupOps.insert(&Inner);
        if (!Inner.is(OpKind::Wgmma))
          return;
        for (unsigned G = 1; G != 3; ++G)
          if (Inner.getGroup(G)[0]->getType().getScope() == Scope::Shared)
            Operands.insert(Inner.getGroup(G)[0]);
      });
      if (Op == Wait)
        break;
    }
  }

  /// Nothing in the loop but the group touches its registers.
  bool registersPrivate() {
    for (Value *Regs : Fence->getOperands())
      for (const Use &U : Regs->getUses())
        if (Loop.isAncestorOf(U.User) && !GroupOps.count(U.User))
          return false;
    return true;
  }

  /// Every write of an operand outside the group is a producer copy before
  /// it; those copies and the commits before the group are moved.
  bool operandWritesMovable() {
    bool Before = true;
    for (Operation &Op : Body) {
      if (&Op == Fence)
        Before = false;
      if (GroupOps.count(&Op))
        continue;
      bool Copy = Before && isAsyncCopy(Op);
      if (writesAny(Op, Operands) && !Copy)
        return false;
      if (Copy || (Before && Op.is(OpKind::CpAsyncCommit)))
        Producers.push_back(&Op);
    }
    return !Producers.empty();
  }
};

class OverlapWgmmaPass : public Pass {
public:
  llvm::StringRef name() const override { return "overlap-wgmma"; }
  llvm::StringRef description() const override {
    return "Keep one wgmma group in flight across the iterations of a "
           "pipelined loop";
  }

  bool run(Operation &Module, PassContext &) override {
    std::vector<Operation *> Loops = Module.collect(OpKind::For);
    for (Operation *Loop : Loops)
      LoopOverlap(*Loop).run();
    return true;
  }
};

} // namespace

std::unique_ptr<Pass> tilec::createOverlapWgmmaPass() {
  return std::make_unique<OverlapWgmmaPass>();
}
