//===- PersistentTiles.cpp - Persistent blocks for TMA+wgmma kernels ------===//

#include "PersistentTiles.h"
#include "../PipelineSchedule.h"
#include "tilec/IR/Builder.h"
#include "tilec/IR/ConstantMatch.h"
#include "tilec/Support/Diagnostics.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"
#include <optional>

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

bool readsShared(const Operation &Op) {
  return llvm::any_of(Op.getOperands(), [](const Value *V) {
    return V->isBufferIn(Scope::Shared);
  });
}

/// The if that initializes the ring's mbarriers (lower-pipelined).
bool isBarrierInit(Operation &Op) {
  return Op.is(OpKind::If) && Op.getNumRegions() == 1 &&
         llvm::all_of(Op.getBody(), [](Operation &Inner) {
           return Inner.is(OpKind::MBarrierInit);
         });
}

/// One warp-specialized kernel made persistent.
class Persistence {
public:
  Persistence(Operation &Kernel, const Target &Tgt)
      : Kernel(Kernel), Tgt(Tgt) {}

  /// Empty when the kernel has the shape the header expects, else why not.
  std::string match() {
    unsigned Dims = Kernel.getNumOperands();
    if (Dims == 0 || Dims > 3)
      return "it has more than three grid dims";
    if (!matchTopLevel())
      return "its body is not allocs, pure index ops, the mbarrier init and "
             "a producer and a consumer role";
    if (std::string Why = matchProducer(); !Why.empty())
      return Why;
    if (std::string Why = matchConsumer(); !Why.empty())
      return Why;
    if (!ringEdits(*Fill, FillEdits) || !ringEdits(*Consumer, MainEdits))
      return "a ring position is not it % S, it / S or it >= S";
    return "";
  }

  void rewrite() {
    Builder B;
    B.setLoc(Kernel.getLoc());
    B.setInsertionPoint(&Kernel);
    Tiles = Kernel.getOperand(0);
    for (unsigned D = 1; D != Kernel.getNumOperands(); ++D)
      Tiles = B.createBinary(OpKind::Mul, Tiles, Kernel.getOperand(D));
    OldGrid.assign(Kernel.getOperands().begin(), Kernel.getOperands().end());
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
    for (unsigned D = 1; D != Kernel.getNumOperands(); ++D)
      Kernel.setOperand(D, B.createConstInt(1));
    if (Pre)
      createPreEmpty();
    markRing();
    Block &FillBody = Fill->getParentOp()->getBody();
    Value *FillN = nullptr;
    Value *FillBase = tileLoop(FillBody, FillBody.begin(), FillN);
    applyEdits(*Fill, FillEdits, FillBase);
    Block &Roles = Consumer->getBody();
    auto First = Roles.begin();
    while (First != Roles.end() && First->is(OpKind::SetMaxNReg))
      ++First;
    Value *MainN = nullptr;
    Value *MainBase = tileLoop(Roles, First, MainN);
    applyEdits(*Consumer, MainEdits, MainBase);
    if (Drain)
      releaseLastStage(MainBase);
    if (Pre) {
      reloadPrologue(FillN);
      releasePrologue(MainN);
    }
  }

private:
  using Edit = std::pair<Operation *, unsigned>;

  Operation &Kernel;
  const Target &Tgt;
  Operation *Producer = nullptr, *Consumer = nullptr;
  Operation *Fill = nullptr, *Main = nullptr, *Drain = nullptr;
  Value *Full = nullptr, *Empty = nullptr;
  /// The prologue loads' mbarrier (attention's Q), the producer's ops that
  /// issue them before its loop, the consumers' wait for them, and the
  /// mbarrier on which the consumers release the loads' tiles per tile.
  Value *Pre = nullptr, *PreEmpty = nullptr;
  std::vector<Operation *> PreOps;
  Operation *PreWait = nullptr;
  int64_t Stages = 0;
  /// Kernel-level pure ops that read the block indices, in order.
  std::vector<Operation *> Dependent;
  llvm::SmallPtrSet<const Value *, 16> DependentValues;
  llvm::SetVector<Edit> FillEdits, MainEdits;
  Value *Tiles = nullptr, *Blocks = nullptr;
  std::vector<Value *> OldGrid;
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

  /// The producer's one loop, in an if of its own after the prologue
  /// loads (issuePrologue); the ring's mbarriers.
  std::string matchProducer() {
    std::vector<Operation *> Loops = Producer->collect(OpKind::For);
    if (Loops.size() != 1)
      return "the producer does not run one loop";
    Fill = Loops.front();
    Operation *Leader = Fill->getParentOp();
    if (!Leader->is(OpKind::If) || Leader->getParentOp() != Producer ||
        Leader->getNumRegions() != 1 || &Leader->getBody().back() != Fill)
      return "the producer's loop is not the last op of its leader's if";
    for (Operation *Op = Fill->getPrevNode(); Op; Op = Op->getPrevNode())
      if (!matchPrologueOp(*Op))
        return "the producer does more than prologue loads before its loop";
    Fill->walk([&](Operation &Op) {
      if (Op.is(OpKind::MBarrierExpectTx))
        Full = Op.getOperand(0);
      if (Op.is(OpKind::MBarrierWait))
        Empty = Op.getOperand(0);
    });
    if (!Full || !Empty || Full == Empty || Pre == Full || Pre == Empty)
      return "the producer's loop does not fill a ring of full and empty "
             "mbarriers";
    Stages = Full->getType().getDims()[0].getValue();
    auto Step = matchConstantInt(Fill->getOperand(2));
    if (!Step || *Step <= 0)
      return "the ring's loop step is not a positive constant";
    if (llvm::any_of(Fill->getOperands(),
                     [&](Value *V) { return dependsOnBlock(V); }))
      return "the ring's loop bounds depend on the block indices";
    if (Pre && !constantTripCount())
      return "the ring's trip count is not a positive constant (the "
             "prologue loads are issued after its first stages)";
    return "";
  }

  /// Constants (which stay), and expect_tx, tma_loads and arrive on one
  /// mbarrier of a single phase (lower-pipelined's prologue loads).
  bool matchPrologueOp(Operation &Op) {
    if (Op.is(OpKind::Const))
      return true;
    Value *Bar = nullptr;
    if (Op.is(OpKind::MBarrierExpectTx) || Op.is(OpKind::MBarrierArrive))
      Bar = Op.getOperand(0);
    else if (Op.is(OpKind::TmaLoad) && Op.getNumGroups() == 3)
      Bar = Op.getGroup(2)[0];
    if (!Bar || Bar->getType().getDims()[0].getValue() != 1 ||
        (Pre && Pre != Bar))
      return false;
    Pre = Bar;
    PreOps.insert(PreOps.begin(), &Op);
    return true;
  }

  std::optional<int64_t> constantTripCount() const {
    auto Lo = matchConstantInt(Fill->getOperand(0));
    auto Hi = matchConstantInt(Fill->getOperand(1));
    int64_t Step = *matchConstantInt(Fill->getOperand(2));
    if (!Lo || !Hi || *Hi <= *Lo)
      return std::nullopt;
    return (*Hi - *Lo + Step - 1) / Step;
  }

  /// The consumers' one loop waiting on the ring, with the producer's
  /// bounds (its first iteration may be peeled before it); no
  /// synchronization on other mbarriers than the ring's and one wait for
  /// the prologue loads.
  std::string matchConsumer() {
    bool Foreign = false;
    Consumer->walk([&](Operation &Op) {
      if (!isMBarrierOp(Op))
        return;
      Value *Bar = Op.getOperand(0);
      bool Waits = Op.is(OpKind::MBarrierWait);
      if (Bar == Pre && Waits && Op.getParentOp() == Consumer && !PreWait &&
          matchConstantInt(Op.getOperand(2)))
        PreWait = &Op;
      else if (Bar != Full && Bar != Empty)
        Foreign = true;
    });
    if (Foreign || (Pre && !PreWait))
      return "the consumers synchronize on other mbarriers than the ring's "
             "and one wait for the prologue loads";
    for (Operation &Op : Consumer->getBody()) {
      bool Waits = false;
      Op.walk([&](Operation &Inner) {
        Waits |= Inner.is(OpKind::MBarrierWait) && Inner.getOperand(0) == Full;
      });
      if (Waits && Op.is(OpKind::For) && Main)
        return "the consumers run more than one loop on the ring";
      if (Waits && Op.is(OpKind::For))
        Main = &Op;
    }
    if (!Main || Main->getOperand(1) != Fill->getOperand(1) ||
        Main->getOperand(2) != Fill->getOperand(2))
      return "the consumers' loop does not end with the producer's";
    if (!tilesOrdered())
      return "the consumers access shared memory outside their loop, and no "
             "wait for prologue loads and barrier start each tile";
    bool Deferred = false;
    Main->walk([&](Operation &Op) {
      Deferred |= Op.is(OpKind::MBarrierArrive) && Op.getOperand(0) == Empty &&
                  Op.getParentOp()->is(OpKind::If) && Op.getParentOp() != Main;
    });
    if (!Deferred)
      return "";
    Operation *Next = Main->getNextNode();
    if (!Next || !Next->is(OpKind::WgmmaWait) ||
        Next->getIntAttr("pending") != 0)
      return "the consumers' deferred release has no closing wgmma_wait";
    Drain = Next;
    return "";
  }

  /// Whether the consumers' shared accesses of one tile all come after
  /// those of the tile before. With prologue loads: none precedes the
  /// wait for them, and a barrier of the role follows it (each tile's
  /// accesses start once every consumer finished the last tile's). Else
  /// only the loop accesses shared memory (the ring, ordered by its
  /// mbarriers), and nothing else in the role synchronizes.
  bool tilesOrdered() const {
    auto Clean = [&](Operation &Top) {
      bool Ok = true;
      Top.walk([&](Operation &Op) {
        Ok &= (!readsShared(Op) || Op.is(OpKind::AnnotateLayout)) &&
              (PreWait || (!Op.is(OpKind::Barrier) && !isMBarrierOp(Op)));
      });
      return Ok;
    };
    if (PreWait) {
      Operation *Next = PreWait->getNextNode();
      if (!Next || !Next->is(OpKind::Barrier))
        return false;
      for (Operation &Op : Consumer->getBody()) {
        if (&Op == PreWait)
          return true;
        if (!Clean(Op))
          return false;
      }
      return false;
    }
    return llvm::all_of(Consumer->getBody(), [&](Operation &Op) {
      return &Op == Main || Clean(Op);
    });
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
      Operation *Def = It->getDefiningOp();
      // A position defined outside the role (a peeled iteration's constant
      // one) gets its sum where it is used.
      bool Outside = Def && !Loop.isAncestorOf(Def);
      Value *&G = Global[It];
      if (!G || Outside) {
        Builder B;
        B.setLoc(Loop.getLoc());
        if (Outside)
          B.setInsertionPoint(E.first);
        else if (Def)
          B.setInsertionPointAfter(Def);
        else
          B.setInsertionPointToStart(*It->getOwnerBlock());
        G = B.createBinary(OpKind::Add, Base, It);
      }
      E.first->setOperand(E.second, G);
    }
  }

  /// Moves [From, end) of \p Body into `for t in [bx, tiles, blocks)`,
  /// recomputes the block-dependent ops from t at its top and returns the
  /// tile's first ring position n * NK (\p N: the block's tile count n).
  Value *tileLoop(Block &Body, Block::iterator From, Value *&N) {
    std::vector<Operation *> Moved;
    for (auto It = From; It != Body.end(); ++It)
      Moved.push_back(&*It);
    Builder B;
    B.setLoc(Kernel.getLoc());
    B.setInsertionPointToEnd(Body);
    Value *BX = Kernel.getBody().getArgument(0);
    Operation *Loop = B.createFor(BX, Tiles, Blocks, "serial", "tile");
    // plan-shared-memory: only the ring's buffers live across tiles.
    Loop->setAttr("persistent", Attribute::boolean(true));
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
    N = B.createBinary(OpKind::FloorDiv, B.createBinary(OpKind::Sub, T, BX),
                       Blocks);
    TripCount = tripCount(B);
    return B.createBinary(OpKind::Mul, N, TripCount);
  }

  /// bx = t % gx, by = t / gx % gy, bz = t / (gx * gy) (the old grid's
  /// launch order).
  void mapBlockIndices(Builder &B, Value *T, ValueMap &Map) {
    Block &Body = Kernel.getBody();
    unsigned Dims = Body.getNumArguments();
    if (Dims == 1) {
      Map[Body.getArgument(0)] = T;
      return;
    }
    Map[Body.getArgument(0)] = B.createBinary(OpKind::FloorMod, T, OldGrid[0]);
    Value *Rest = B.createBinary(OpKind::FloorDiv, T, OldGrid[0]);
    if (Dims == 2) {
      Map[Body.getArgument(1)] = Rest;
      return;
    }
    Map[Body.getArgument(1)] =
        B.createBinary(OpKind::FloorMod, Rest, OldGrid[1]);
    Map[Body.getArgument(2)] =
        B.createBinary(OpKind::FloorDiv, Rest, OldGrid[1]);
  }

  /// ceildiv(max(hi - lo, 0), step) of the producer's loop.
  Value *tripCount(Builder &B) {
    Value *Lo = Fill->getOperand(0), *Hi = Fill->getOperand(1);
    int64_t Step = *matchConstantInt(Fill->getOperand(2));
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

  /// The ring's buffers (the producer loop's TMA destinations) live across
  /// the tiles: the producer fills them for the next tile while the
  /// consumers finish this one (plan-shared-memory reads the mark).
  void markRing() {
    Fill->walk([](Operation &Op) {
      if (Op.is(OpKind::TmaLoad))
        if (Operation *Alloc = Op.getOperand(0)->getDefiningOp())
          Alloc->setAttr("across_tiles", Attribute::boolean(true));
    });
  }

  /// An mbarrier of one phase per tile, on which every consumer thread
  /// releases the prologue loads' tiles (and whatever shares their bytes)
  /// at the end of its tile, initialized with the ring's.
  void createPreEmpty() {
    Builder B;
    B.setLoc(Kernel.getLoc());
    Operation *PreAlloc = Pre->getDefiningOp();
    B.setInsertionPointAfter(PreAlloc);
    PreEmpty = B.createAlloc(Pre->getType(), "tma_pre_empty");
    PreEmpty->getDefiningOp()->setAttr("mbarrier", Attribute::boolean(true));
    for (const Use &U : Empty->getUses()) {
      if (!U.User->is(OpKind::MBarrierInit))
        continue;
      int64_t Count = U.User->getIntArrayAttr("counts")->front();
      B.setInsertionPointAfter(U.User);
      B.create(OpKind::MBarrierInit, {PreEmpty}, {1}, {},
               {{"counts", Attribute::intArray({Count})}});
      return;
    }
  }

  /// The prologue loads of tile n move behind the producer's first
  /// min(S, NK) stages, so that those load while the consumers finish
  /// tile n - 1; from the second tile on they wait for the consumers to
  /// release tile n - 1's (phase n - 1 of PreEmpty).
  void reloadPrologue(Value *N) {
    Builder B;
    B.setLoc(Fill->getLoc());
    B.setInsertionPointToEnd(Fill->getBody());
    int64_t Step = *matchConstantInt(Fill->getOperand(2));
    int64_t Last = (std::min(Stages, *constantTripCount()) - 1) * Step;
    Value *IV = Fill->getBody().getArgument(0);
    Value *At = B.createCmp(CmpPred::Eq, IV,
                            B.createBinary(OpKind::Add, Fill->getOperand(0),
                                           B.createConstInt(Last)));
    B.setInsertionPointToEnd(B.createIf(At)->getBody());
    Value *Zero = B.createConstInt(0), *One = B.createConstInt(1),
          *Two = B.createConstInt(2);
    Value *Reuse = B.createCmp(CmpPred::Ge, N, One);
    Builder Then = B;
    Then.setInsertionPointToEnd(B.createIf(Reuse)->getBody());
    Value *Parity = Then.createBinary(
        OpKind::FloorMod, Then.createBinary(OpKind::Add, N, One), Two);
    Then.create(OpKind::MBarrierWait, {PreEmpty, Zero, Parity}, {2, 1}, {});
    for (Operation *Op : PreOps)
      Op->moveToEnd(*B.getInsertionBlock());
  }

  /// The consumers wait for phase n of the prologue loads and release
  /// them at the end of their tile; the fence orders their generic
  /// accesses of the bytes before the next tile's TMA writes.
  void releasePrologue(Value *N) {
    Builder B;
    B.setLoc(PreWait->getLoc());
    B.setInsertionPoint(PreWait);
    PreWait->setOperand(
        2, B.createBinary(OpKind::FloorMod, N, B.createConstInt(2)));
    Block &Tile = *PreWait->getParentBlock();
    B.setInsertionPointToEnd(Tile);
    B.create(OpKind::FenceProxyAsync, {}, {}, {});
    B.create(OpKind::MBarrierArrive, {PreEmpty, B.createConstInt(0)}, {2}, {});
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
      std::string Why = P.match();
      if (Why.empty())
        P.rewrite();
      else
        Ctx.Diags.report(Kernel->getLoc(), diag::remark_not_persistent) << Why;
    }
    return true;
  }
};

} // namespace

std::unique_ptr<Pass> tilec::createPersistentTilesPass() {
  return std::make_unique<PersistentTilesPass>();
}
