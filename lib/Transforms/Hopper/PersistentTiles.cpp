//===- PersistentTiles.cpp - Persistent blocks for TMA+wgmma kernels ------===//

#include "PersistentTiles.h"
#include "../PipelineSchedule.h"
#include "tilec/IR/Builder.h"
#include "tilec/IR/ConstantMatch.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"

using namespace tilec;
using namespace tilec::ir;

namespace {

bool isRole(const Operation &Op, llvm::StringRef Role) {
  return Op.is(OpKind::If) && Op.getStringAttr("tma_role") == Role;
}

bool isMBarrierOp(const Operation &Op) {
  return Op.is(OpKind::MBarrierWait) || Op.is(OpKind::MBarrierArrive) ||
         Op.is(OpKind::MBarrierExpectTx);
}

/// The if that initializes the ring's mbarriers (lower-pipelined).
bool isBarrierInit(Operation &Op) {
  return Op.is(OpKind::If) && Op.getNumRegions() == 1 &&
         llvm::all_of(Op.getBody(), [](Operation &Inner) {
           return Inner.is(OpKind::MBarrierInit);
         });
}

bool readsShared(const Operation &Op) {
  return llvm::any_of(Op.getOperands(), [](const Value *V) {
    return V->isBufferIn(Scope::Shared);
  });
}

/// One warp-specialized kernel made persistent.
class Persistence {
public:
  Persistence(Operation &Kernel, const Target &Tgt)
      : Kernel(Kernel), Tgt(Tgt) {}

  /// True when the kernel has the shape the header expects.
  bool match() {
    unsigned Dims = Kernel.getNumOperands();
    if (Dims == 0 || Dims > 2 || !matchTopLevel() || !matchProducer() ||
        !matchConsumer())
      return false;
    return ringEdits(*Fill, FillEdits) && ringEdits(*Main, MainEdits);
  }

  void rewrite() {
    Builder B;
    B.setLoc(Kernel.getLoc());
    B.setInsertionPoint(&Kernel);
    Value *GX = OldGridX = Kernel.getOperand(0);
    Tiles = Kernel.getNumOperands() == 2
                ? B.createBinary(OpKind::Mul, GX, Kernel.getOperand(1))
                : GX;
    int64_t PerSM = std::max<int64_t>(
        1, Kernel.getIntAttr("min_blocks_per_sm").value_or(1));
    Blocks = B.createBinary(OpKind::Min, Tiles,
                            B.createConstInt(Tgt.NumSMs * PerSM));
    if (int64_t Walk = Tgt.PersistentWalk) {
      // ceildiv(tiles, Walk) blocks when that is more than one wave: the
      // hardware hands each SM its next walk when it is free.
      Value *Walks = B.createBinary(
          OpKind::FloorDiv,
          B.createBinary(OpKind::Add, Tiles, B.createConstInt(Walk - 1)),
          B.createConstInt(Walk));
      Blocks = B.createBinary(OpKind::Max, Blocks, Walks);
    }
    Kernel.setOperand(0, Blocks);
    if (Kernel.getNumOperands() == 2)
      Kernel.setOperand(1, B.createConstInt(1));
    Block &FillBody = Fill->getParentOp()->getBody();
    Value *FillBase = tileLoop(FillBody, FillBody.begin());
    applyEdits(*Fill, FillEdits, FillBase);
    Block &Roles = Consumer->getBody();
    auto First = Roles.begin();
    while (First != Roles.end() && First->is(OpKind::SetMaxNReg))
      ++First;
    Value *MainBase = tileLoop(Roles, First);
    applyEdits(*Main, MainEdits, MainBase);
    if (Drain)
      releaseLastStage(MainBase);
  }

private:
  using Edit = std::pair<Operation *, unsigned>;

  Operation &Kernel;
  const Target &Tgt;
  Operation *Producer = nullptr, *Consumer = nullptr;
  Operation *Fill = nullptr, *Main = nullptr, *Drain = nullptr;
  Value *Full = nullptr, *Empty = nullptr;
  int64_t Stages = 0;
  /// Kernel-level pure ops that read the block indices, in order.
  std::vector<Operation *> Dependent;
  llvm::SmallPtrSet<const Value *, 16> DependentValues;
  llvm::SetVector<Edit> FillEdits, MainEdits;
  Value *Tiles = nullptr, *Blocks = nullptr, *OldGridX = nullptr;
  Value *TripCount = nullptr;

  bool dependsOnBlock(const Value *V) const {
    return V->getOwnerBlock() == &Kernel.getBody() || DependentValues.count(V);
  }

  /// Allocs, pure scalar ops, the mbarrier init and its barrier, and the
  /// two roles; the pure ops that read the block indices are recorded.
  bool matchTopLevel() {
    for (Operation &Op : Kernel.getBody()) {
      if (isRole(Op, "producer") || isRole(Op, "consumer")) {
        Operation *&Slot = isRole(Op, "producer") ? Producer : Consumer;
        if (Slot)
          return false;
        Slot = &Op;
        continue;
      }
      bool Reads = llvm::any_of(
          Op.getOperands(), [&](const Value *V) { return dependsOnBlock(V); });
      if (Reads && !isPureScalarOp(Op))
        return false;
      if (Reads) {
        Dependent.push_back(&Op);
        DependentValues.insert(Op.getResult());
        continue;
      }
      if (!Op.is(OpKind::Alloc) && !isPureScalarOp(Op) &&
          !Op.is(OpKind::Barrier) && !isBarrierInit(Op))
        return false;
    }
    return Producer && Consumer;
  }

  /// The producer's one loop, in an if of its own; the ring's mbarriers.
  bool matchProducer() {
    std::vector<Operation *> Loops = Producer->collect(OpKind::For);
    if (Loops.size() != 1)
      return false;
    Fill = Loops.front();
    Operation *Leader = Fill->getParentOp();
    if (!Leader->is(OpKind::If) || Leader->getParentOp() != Producer ||
        Leader->getNumRegions() != 1 || &Leader->getBody().front() != Fill ||
        &Leader->getBody().back() != Fill)
      return false;
    Fill->walk([&](Operation &Op) {
      if (Op.is(OpKind::MBarrierExpectTx))
        Full = Op.getOperand(0);
      if (Op.is(OpKind::MBarrierWait))
        Empty = Op.getOperand(0);
    });
    if (!Full || !Empty || Full == Empty)
      return false;
    Stages = Full->getType().getDims()[0].getValue();
    auto Step = matchConstantInt(Fill->getOperand(2));
    return Step && *Step > 0 &&
           llvm::none_of(Fill->getOperands(),
                         [&](Value *V) { return dependsOnBlock(V); });
  }

  /// The consumers' one loop waiting on the ring, with the producer's
  /// bounds; no other shared-memory access or synchronization in the role.
  bool matchConsumer() {
    for (Operation &Op : Consumer->getBody()) {
      bool Waits = false;
      Op.walk([&](Operation &Inner) {
        Waits |= Inner.is(OpKind::MBarrierWait) && Inner.getOperand(0) == Full;
      });
      if (Waits && (Main || !Op.is(OpKind::For)))
        return false;
      if (Waits)
        Main = &Op;
    }
    if (!Main || !llvm::equal(Main->getOperands(), Fill->getOperands()))
      return false;
    bool Clean = true;
    for (Operation &Op : Consumer->getBody())
      if (&Op != Main)
        Op.walk([&](Operation &Inner) {
          Clean &= (!readsShared(Inner) || Inner.is(OpKind::AnnotateLayout)) &&
                   !Inner.is(OpKind::Barrier) && !isMBarrierOp(Inner);
        });
    if (!Clean)
      return false;
    bool Deferred = false;
    Main->walk([&](Operation &Op) {
      Deferred |= Op.is(OpKind::MBarrierArrive) && Op.getOperand(0) == Empty &&
                  Op.getParentOp()->is(OpKind::If) && Op.getParentOp() != Main;
    });
    if (!Deferred)
      return true;
    Operation *Next = Main->getNextNode();
    if (!Next || !Next->is(OpKind::WgmmaWait) ||
        Next->getIntAttr("pending") != 0)
      return false;
    Drain = Next;
    return true;
  }

  /// The operands that hold the ring position `it` in \p Loop's stage and
  /// parity computations (reached from the mbarrier ops' indices and from
  /// the condition of the producer's wait for a released stage).
  bool ringEdits(Operation &Loop, llvm::SetVector<Edit> &Edits) {
    std::vector<Value *> Sinks;
    Loop.walk([&](Operation &Op) {
      if (isMBarrierOp(Op) &&
          (Op.getOperand(0) == Full || Op.getOperand(0) == Empty))
        Sinks.insert(Sinks.end(), Op.getOperands().begin() + 1,
                     Op.getOperands().end());
      bool GuardsReuse = Op.is(OpKind::If) &&
                         llvm::any_of(Op.getBody(), [&](Operation &Inner) {
                           return Inner.is(OpKind::MBarrierWait) &&
                                  Inner.getOperand(0) == Empty;
                         });
      if (GuardsReuse)
        Sinks.push_back(Op.getOperand(0));
    });
    return llvm::all_of(
        Sinks, [&](Value *V) { return positionOperands(Loop, V, Edits); });
  }

  /// `it % S`, `it / S` (+ 1), `it >= S`, with it or it - 1 at their first
  /// operand; constants carry no position.
  bool positionOperands(Operation &Loop, Value *V,
                        llvm::SetVector<Edit> &Edits) {
    if (matchConstantInt(V))
      return true;
    Operation *Def = V->getDefiningOp();
    if (!Def || !Loop.isAncestorOf(Def))
      return false;
    if (Def->is(OpKind::Add))
      return positionOperands(Loop, Def->getOperand(0), Edits) &&
             positionOperands(Loop, Def->getOperand(1), Edits);
    bool ByStages = isConstantInt(Def->getOperand(1), Stages);
    if (!ByStages || !(Def->is(OpKind::FloorMod) || Def->is(OpKind::FloorDiv) ||
                       Def->is(OpKind::Cmp)))
      return false;
    Operation *Prev = Def->getOperand(0)->getDefiningOp();
    if (Prev && Prev->is(OpKind::Sub) &&
        isConstantInt(Prev->getOperand(1), 1) && Loop.isAncestorOf(Prev))
      Edits.insert({Prev, 0});
    else
      Edits.insert({Def, 0});
    return true;
  }

  /// Every edited operand `it` becomes `Base + it`.
  void applyEdits(Operation &Loop, const llvm::SetVector<Edit> &Edits,
                  Value *Base) {
    llvm::DenseMap<Value *, Value *> Global;
    for (const Edit &E : Edits) {
      Value *It = E.first->getOperand(E.second);
      Value *&G = Global[It];
      if (!G) {
        Builder B;
        B.setLoc(Loop.getLoc());
        Operation *Def = It->getDefiningOp();
        if (Def && Loop.isAncestorOf(Def))
          B.setInsertionPointAfter(Def);
        else
          B.setInsertionPointToStart(Loop.getBody());
        G = B.createBinary(OpKind::Add, Base, It);
      }
      E.first->setOperand(E.second, G);
    }
  }

  /// Moves [From, end) of \p Body into `for t in [bx, tiles, blocks)`,
  /// recomputes the block-dependent ops from t at its top and returns the
  /// tile's first ring position n * NK.
  Value *tileLoop(Block &Body, Block::iterator From) {
    std::vector<Operation *> Moved;
    for (auto It = From; It != Body.end(); ++It)
      Moved.push_back(&*It);
    Builder B;
    B.setLoc(Kernel.getLoc());
    B.setInsertionPointToEnd(Body);
    Value *BX = Kernel.getBody().getArgument(0);
    Operation *Loop = B.createFor(BX, Tiles, Blocks, "serial", "tile");
    for (Operation *Op : Moved)
      Op->moveToEnd(Loop->getBody());
    B.setInsertionPointToStart(Loop->getBody());
    Value *T = Loop->getBody().getArgument(0);
    ValueMap Map;
    mapBlockIndices(B, T, Map);
    for (Operation *Op : Dependent)
      B.insert(Op->clone(Map));
    for (Operation &Top : Loop->getBody())
      Top.walk([&](Operation &Op) {
        for (unsigned I = 0; I != Op.getNumOperands(); ++I)
          if (Value *New = Map.lookup(Op.getOperand(I)))
            Op.setOperand(I, New);
      });
    Value *N = B.createBinary(OpKind::FloorDiv,
                              B.createBinary(OpKind::Sub, T, BX), Blocks);
    TripCount = tripCount(B);
    return B.createBinary(OpKind::Mul, N, TripCount);
  }

  /// bx = t % gx, by = t / gx (the old grid's launch order).
  void mapBlockIndices(Builder &B, Value *T, ValueMap &Map) {
    Block &Body = Kernel.getBody();
    if (Body.getNumArguments() == 1) {
      Map[Body.getArgument(0)] = T;
      return;
    }
    Map[Body.getArgument(0)] = B.createBinary(OpKind::FloorMod, T, OldGridX);
    Map[Body.getArgument(1)] = B.createBinary(OpKind::FloorDiv, T, OldGridX);
  }

  /// ceildiv(max(hi - lo, 0), step) of the main loop.
  Value *tripCount(Builder &B) {
    Value *Lo = Main->getOperand(0), *Hi = Main->getOperand(1);
    int64_t Step = *matchConstantInt(Main->getOperand(2));
    auto LoC = matchConstantInt(Lo), HiC = matchConstantInt(Hi);
    if (LoC && HiC)
      return B.createConstInt((std::max<int64_t>(*HiC - *LoC, 0) + Step - 1) /
                              Step);
    Value *Span = B.createBinary(
        OpKind::Max, B.createBinary(OpKind::Sub, Hi, Lo), B.createConstInt(0));
    return B.createBinary(
        OpKind::FloorDiv,
        B.createBinary(OpKind::Add, Span, B.createConstInt(Step - 1)),
        B.createConstInt(Step));
  }

  /// With one wgmma group in flight the loop releases the stage of it - 1;
  /// the tile's last stage is released once its closing wait returned.
  void releaseLastStage(Value *Base) {
    Builder B;
    B.setLoc(Drain->getLoc());
    B.setInsertionPointAfter(Drain);
    auto NK = matchConstantInt(TripCount);
    if (NK && *NK < 1)
      return;
    if (!NK)
      B.setInsertionPointToEnd(
          B.createIf(B.createCmp(CmpPred::Ge, TripCount, B.createConstInt(1)))
              ->getBody());
    Value *Last = B.createBinary(
        OpKind::Add, Base,
        B.createBinary(OpKind::Sub, TripCount, B.createConstInt(1)));
    Value *Stage =
        B.createBinary(OpKind::FloorMod, Last, B.createConstInt(Stages));
    B.create(OpKind::MBarrierArrive, {Empty, Stage}, {2}, {});
  }
};

class PersistentTilesPass : public Pass {
public:
  llvm::StringRef name() const override { return "persistent-tiles"; }
  llvm::StringRef description() const override {
    return "sm_90: warp-specialized TMA kernels run one block per SM over "
           "their tiles, the TMA ring running on across tiles";
  }

  bool run(Operation &Module, PassContext &Ctx) override {
    std::vector<Operation *> Kernels = Module.collect(OpKind::Kernel);
    for (Operation *Kernel : Kernels) {
      Persistence P(*Kernel, Ctx.Tgt);
      if (P.match())
        P.rewrite();
    }
    return true;
  }
};

} // namespace

std::unique_ptr<Pass> tilec::createPersistentTilesPass() {
  return std::make_unique<PersistentTilesPass>();
}
