//===- OverlapWgmmaPair.cpp - Issue gemm 1 of k+1 before gemm 2 of k ------===//

#include "OverlapWgmmaPair.h"
#include "../PipelineSchedule.h"
#include "tilec/IR/Builder.h"
#include "tilec/IR/ConstantMatch.h"
#include "llvm/ADT/SmallPtrSet.h"

using namespace tilec;
using namespace tilec::ir;

namespace {

bool isMBarrierOp(const Operation &Op) {
  return Op.is(OpKind::MBarrierArrive) || Op.is(OpKind::MBarrierWait);
}

/// Ops whose ordering the rotation cannot reason about.
bool isUnmovable(const Operation &Op) {
  switch (Op.getKind()) {
  case OpKind::Barrier:
  case OpKind::CpAsync:
  case OpKind::CpAsyncCommit:
  case OpKind::CpAsyncWait:
  case OpKind::TmaLoad:
  case OpKind::MBarrierInit:
  case OpKind::MBarrierExpectTx:
  case OpKind::Break:
  case OpKind::Continue:
    return true;
  default:
    return false;
  }
}

/// The alloc (or parameter) a buffer value names, through views.
const Value *rootBuffer(const Value *V) {
  for (Operation *Def = V->getDefiningOp();
       Def && (Def->is(OpKind::View) || Def->is(OpKind::Subview));
       Def = V->getDefiningOp())
    V = Def->getOperand(0);
  return V;
}

/// The buffers a run of ops reads and writes; mbarrier operations, whose
/// order the pipeline's structure decides, are left out.
struct Effects {
  llvm::SmallPtrSet<const Value *, 8> Read, Written;

  void add(Operation &Root) {
    Root.walk([&](Operation &Op) {
      if (isMBarrierOp(Op))
        return;
      for (unsigned G = 0; G != Op.getNumGroups(); ++G) {
        llvm::ArrayRef<Value *> Group = Op.getGroup(G);
        if (Group.empty() || !Group.front()->getType().isBuffer())
          continue;
        (groupIsWritten(Op, G) ? Written : Read)
            .insert(rootBuffer(Group.front()));
      }
    });
  }

  bool conflicts(const Effects &O) const {
    auto Hits = [](const llvm::SmallPtrSetImpl<const Value *> &W,
                   const Effects &Other) {
      return llvm::any_of(W, [&](const Value *V) {
        return Other.Read.count(V) || Other.Written.count(V);
      });
    };
    return Hits(Written, O) || Hits(O.Written, *this);
  }
};

class PairRotation {
public:
  explicit PairRotation(Operation &Loop)
      : Loop(Loop), Body(Loop.getBody()), IV(Body.getArgument(0)) {}

  void run() {
    if (!isConstantInt(Loop.getOperand(2), 1) || !findGroups() ||
        !checkSync() || !splitMid() || !collectSlice())
      return;
    Value *Lo = Loop.getOperand(0), *Hi = Loop.getOperand(1);
    Builder B;
    B.setLoc(Loop.getLoc());
    B.setInsertionPoint(&Loop);
    Value *NonEmpty = emptyGuard(B);
    emitPrologue(guarded(B, NonEmpty), Lo);
    B.setInsertionPoint(&Loop);
    Loop.setOperand(0, B.createBinary(OpKind::Add, Lo, B.createConstInt(1)));
    B.setInsertionPointAfter(&Loop);
    Builder Tail = guarded(B, NonEmpty);
    Value *Last = Tail.createBinary(OpKind::Sub, Hi, Tail.createConstInt(1));
    emitSecondHalf(Tail, Last, nullptr);
    rotateBody();
  }

private:
  Operation &Loop;
  Block &Body;
  Value *IV;
  /// The groups' delimiters (top level of the body).
  Operation *Fence1 = nullptr, *Wait1 = nullptr;
  Operation *Fence2 = nullptr, *Wait2 = nullptr;
  /// First op of Mid2 (Fence2 when Mid2 is empty).
  Operation *Mid2 = nullptr;
  /// Pure ops of the body that G2 and Post use, in body order.
  std::vector<Operation *> Slice;

  /// Both groups at the top level, in order, the body's only ones.
  bool findGroups() {
    int Fences = 0, Waits = 0;
    Loop.walk([&](Operation &Op) {
      Fences += Op.is(OpKind::WgmmaFence);
      Waits += Op.is(OpKind::WgmmaWait);
    });
    if (Fences != 2 || Waits != 2)
      return false;
    std::vector<Operation *> Marks;
    for (Operation &Op : Body)
      if (Op.is(OpKind::WgmmaFence) || Op.is(OpKind::WgmmaWait))
        Marks.push_back(&Op);
    if (Marks.size() != 4 || !Marks[0]->is(OpKind::WgmmaFence) ||
        !Marks[1]->is(OpKind::WgmmaWait) || !Marks[2]->is(OpKind::WgmmaFence) ||
        !Marks[3]->is(OpKind::WgmmaWait))
      return false;
    Fence1 = Marks[0], Wait1 = Marks[1], Fence2 = Marks[2], Wait2 = Marks[3];
    for (Operation *W : {Wait1, Wait2})
      if (W->getIntAttr("pending") != 0 ||
          W->getBoolAttr("user").value_or(false))
        return false;
    for (Value *R : Fence1->getOperands())
      if (llvm::is_contained(Fence2->getOperands(), R))
        return false;
    return true;
  }

  /// No op the rotation cannot order; waits only in Pre, arrives only in
  /// Post, on arrays of two or more stages.
  bool checkSync() {
    bool OK = true, InPre = true, InPost = false;
    for (Operation &Top : Body) {
      InPre &= &Top != Fence1;
      Top.walk([&](Operation &Op) {
        OK &= !isUnmovable(Op);
        if (!isMBarrierOp(Op))
          return;
        OK &= Op.is(OpKind::MBarrierWait) ? InPre : InPost;
        llvm::ArrayRef<Dim> Dims = Op.getOperand(0)->getType().getDims();
        OK &= Dims.size() == 1 && Dims[0].isStatic() && Dims[0].getValue() >= 2;
      });
      InPost |= &Top == Wait2;
    }
    return OK;
  }

  /// The top-level ops from \p From up to (not including) \p To.
  static std::vector<Operation *> range(Operation *From, Operation *To) {
    std::vector<Operation *> Ops;
    for (Operation *Op = From; Op != To; Op = Op->getNextNode())
      Ops.push_back(Op);
    return Ops;
  }

  std::vector<Operation *> secondHalf() const { return range(Fence2, nullptr); }

  /// Mid1 ends at the first op that conflicts with G2 or Post; Pre, G1 and
  /// Mid1 must conflict with neither, and Mid1 must hold some work.
  bool splitMid() {
    Effects Late;
    for (Operation *Op : secondHalf())
      Late.add(*Op);
    Mid2 = Fence2;
    bool Work = false;
    for (Operation *Op : range(Wait1->getNextNode(), Fence2)) {
      Effects E;
      E.add(*Op);
      if (E.conflicts(Late)) {
        Mid2 = Op;
        break;
      }
      Work |= !isPureScalarOp(*Op);
    }
    Effects Early;
    for (Operation *Op : range(&Body.front(), Mid2))
      Early.add(*Op);
    return Work && !Early.conflicts(Late);
  }

  /// The pure ops outside G2 and Post whose values G2 and Post use (and
  /// the ones those use); false when such a value is not a pure op's.
  bool collectSlice() {
    llvm::SmallPtrSet<Operation *, 32> Late, Needed;
    std::vector<Operation *> Work;
    for (Operation *Op : secondHalf())
      Op->walk([&](Operation &Inner) { Late.insert(&Inner); });
    auto Need = [&](Operation &User) {
      for (Value *V : User.getOperands()) {
        Operation *Def = V->getDefiningOp();
        if (Def && Def->getParentBlock() == &Body && !Late.count(Def) &&
            Needed.insert(Def).second)
          Work.push_back(Def);
      }
    };
    for (Operation *Op : Late)
      Need(*Op);
    while (!Work.empty()) {
      Operation *Def = Work.back();
      Work.pop_back();
      if (!isPureScalarOp(*Def))
        return false;
      Need(*Def);
    }
    for (Operation &Op : Body)
      if (Needed.count(&Op))
        Slice.push_back(&Op);
    return true;
  }

  /// `lo < hi`, or null when the bounds are constants that make it true.
  Value *emptyGuard(Builder &B) {
    auto Lo = matchConstantInt(Loop.getOperand(0));
    auto Hi = matchConstantInt(Loop.getOperand(1));
    if (Lo && Hi && *Lo < *Hi)
      return nullptr;
    return B.createCmp(CmpPred::Lt, Loop.getOperand(0), Loop.getOperand(1));
  }

  static Builder guarded(Builder &B, Value *Cond) {
    Builder Inner = B;
    if (Cond)
      Inner.setInsertionPointToEnd(B.createIf(Cond)->getBody());
    return Inner;
  }

  /// The first half of iteration \p K (Pre to Mid2) with all its waits.
  void emitPrologue(Builder B, Value *K) {
    ValueMap Map;
    Map[IV] = K;
    for (Operation *Op : range(&Body.front(), Fence2))
      B.insert(Op->clone(Map));
  }

  /// G2, its wait and Post of iteration \p K; with \p SplitAt, the wait and
  /// Post go before that op instead of after G2.
  void emitSecondHalf(Builder &B, Value *K, Operation *SplitAt) {
    ValueMap Map;
    Map[IV] = K;
    for (Operation *Op : Slice)
      B.insert(Op->clone(Map));
    for (Operation *Op : range(Fence2, Wait2))
      B.insert(Op->clone(Map));
    if (SplitAt) {
      B.setInsertionPoint(SplitAt);
      emitScheduleAfterMid1(B, SplitAt);
    }
    for (Operation *Op : range(Wait2, nullptr))
      B.insert(Op->clone(Map));
  }

  /// ptxas moves the wait for group 2 up to the wait for group 1, above
  /// Mid1, which then no longer overlaps group 2: a schedule_after on the
  /// first element of the last register array Mid1 stores (the softmax's
  /// running sum) keeps the wait below Mid1's work.
  void emitScheduleAfterMid1(Builder &B, Operation *SplitAt) {
    Operation *Last = nullptr;
    for (Operation *Op : range(Wait1->getNextNode(), SplitAt))
      Op->walk([&](Operation &Inner) {
        if (Inner.is(OpKind::Store) && isScalarArray(Inner.getOperand(1)))
          Last = &Inner;
      });
    if (!Last)
      return;
    Value *Array = Last->getOperand(1);
    std::vector<Value *> Zeros(Array->getType().rank(), B.createConstInt(0));
    B.create(OpKind::ScheduleAfter, {B.createLoad(Array, Zeros)}, {}, {});
  }

  static bool isScalarArray(const Value *Buffer) {
    const Type &T = Buffer->getType();
    return T.isBufferIn(Scope::Local) &&
           (T.getDType() == DType::Float32 || T.getDType() == DType::Int32);
  }

  /// Pre(k) G1(k) G2(k - 1) wait{1} Mid1(k) wait{0} Post(k - 1) Mid2(k).
  void rotateBody() {
    std::vector<Operation *> Old = secondHalf();
    Builder B;
    B.setLoc(Loop.getLoc());
    B.setInsertionPoint(Wait1);
    Value *Prev = B.createBinary(OpKind::Sub, IV, B.createConstInt(1));
    emitSecondHalf(B, Prev, Mid2);
    Wait1->setAttr("pending", Attribute::integer(1));
    for (auto It = Old.rbegin(); It != Old.rend(); ++It)
      (*It)->erase();
  }
};

class OverlapWgmmaPairPass : public Pass {
public:
  llvm::StringRef name() const override { return "overlap-wgmma-pair"; }
  llvm::StringRef description() const override {
    return "Rotate a loop of two dependent wgmma groups so that the first "
           "group of iteration k runs with the second group of k - 1";
  }

  bool run(Operation &Module, PassContext &) override {
    std::vector<Operation *> Loops = Module.collect(OpKind::For);
    // Inner loops first: rotating a loop erases the loops nested in its
    // second group.
    for (auto It = Loops.rbegin(); It != Loops.rend(); ++It)
      PairRotation(**It).run();
    return true;
  }
};

} // namespace

std::unique_ptr<Pass> tilec::createOverlapWgmmaPairPass() {
  return std::make_unique<OverlapWgmmaPairPass>();
}
