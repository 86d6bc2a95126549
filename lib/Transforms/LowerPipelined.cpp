//===- LowerPipelined.cpp - Software pipelining of T.Pipelined loops ------===//

#include "LowerPipelined.h"
#include "AsyncCopies.h"
#include "PipelineSchedule.h"
#include "PlanSharedMemory.h"
#include "StagedSchedule.h"
#include "tilec/IR/Builder.h"
#include "tilec/IR/ConstantMatch.h"
#include "tilec/Support/Diagnostics.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"
#include <algorithm>
#include <numeric>

using namespace tilec;
using namespace tilec::ir;

namespace {

bool isPipelined(const Operation &Op) {
  return Op.is(OpKind::For) &&
         Op.getStringAttr("kind") == llvm::StringRef("pipelined");
}

void makeSerial(Operation &Loop) {
  Loop.setAttr("kind", Attribute::string("serial"));
  for (llvm::StringRef Name : {"num_stages", "order", "stage"})
    Loop.removeAttr(Name);
}

class PipelineLowering {
public:
  PipelineLowering(Operation &Loop, PassContext &Ctx)
      : Loop(Loop), Ctx(Ctx), Body(Loop.getBody()), IV(Body.getArgument(0)) {}

  /// False after an error was reported.
  bool run() {
    Stages = Loop.getIntAttr("num_stages").value_or(0);
    if (Stages < 1 || !canSoftwarePipeline(Loop, Step))
      return makeSerial(Loop), true;
    PB = analyzePipelineBody(Loop);
    if (isGeneralSchedule())
      return lowerStaged();
    if (!chooseProducers() || !checkOrder())
      return false;
    std::vector<unsigned> Producers = producerItems();
    bool AnyAsync =
        Ctx.Tgt.AsyncCopy && llvm::any_of(Producers, [&](unsigned I) {
          return hasAsyncCopy(*PB.Items[I].head());
        });
    bool AnyTma = llvm::any_of(Producers, [&](unsigned I) {
      return PB.Items[I].head()->is(OpKind::TmaLoad);
    });
    if (AnyTma) {
      if (!llvm::all_of(Producers, [&](unsigned I) {
            return PB.Items[I].head()->is(OpKind::TmaLoad);
          })) {
        error("its TMA copies cannot be mixed with other copies");
        return false;
      }
      for (unsigned I : Producers)
        Staged.insert(PB.Items[I].Prod->Dsts.begin(),
                      PB.Items[I].Prod->Dsts.end());
      if (!fitsSharedMemory())
        return false;
      emitTmaPipeline();
      makeSerial(Loop);
      return true;
    }
    if (Producers.empty() || (Stages == 1 && !AnyAsync))
      return makeSerial(Loop), true;
    if (Stages > 1) {
      for (unsigned I : Producers)
        Staged.insert(PB.Items[I].Prod->Dsts.begin(),
                      PB.Items[I].Prod->Dsts.end());
      if (!fitsSharedMemory())
        return false;
      // Copies before the loop that only the loop reads (attention's Q)
      // join the prologue's first group instead of delaying it.
      if (Ctx.Tgt.AsyncCopy && Ctx.Tgt.AsyncPrologueCopies)
        for (Operation *Op : prologueCopies(Loop))
          makeAsync(*Op);
      emitMultiStage();
    } else {
      // One buffer: the copies complete before anything else runs.
      std::stable_partition(Sequence.begin(), Sequence.end(),
                            [&](unsigned I) { return IsProducer[I]; });
      emitSingleStage();
    }
    makeSerial(Loop);
    return true;
  }

private:
  Operation &Loop;
  PassContext &Ctx;
  Block &Body;
  Value *IV;
  int64_t Stages = 0;
  int64_t Step = 1;
  PipelineBody PB;
  /// Per item: issued ahead (a producer) or in its own iteration.
  std::vector<bool> IsProducer;
  /// Item indices in issue order.
  std::vector<unsigned> Sequence;
  /// The multi-buffered shared buffers.
  llvm::SmallSetVector<Value *, 4> Staged;
  /// TMA pipelines: the mbarrier arrays and the block's thread count.
  Value *Full = nullptr, *Empty = nullptr;
  /// Copies before the loop that the ring issues first, and their mbarrier.
  std::vector<Operation *> PrologueLoads;
  Value *Pre = nullptr;
  int64_t NumThreads = 1;
  /// The wgmma_wait {0} after a loop whose group stays in flight.
  Operation *DrainWait = nullptr;

  std::vector<unsigned> producerItems() const {
    std::vector<unsigned> Result;
    for (unsigned I : Sequence)
      if (IsProducer[I])
        Result.push_back(I);
    return Result;
  }

  void error(const std::string &Message) {
    Ctx.Diags.report(Loop.getLoc(), diag::err_bad_pipeline) << Message;
  }

  /// Without order/stage: every hoistable copy is a producer, in body
  /// order. With them: stage 0 statements are producers (they must be
  /// hoistable), stage num_stages - 1 the rest, issued in `order`.
  bool chooseProducers() {
    unsigned N = PB.Items.size();
    IsProducer.assign(N, false);
    auto Order = Loop.getIntArrayAttr("order");
    auto Stage = Loop.getIntArrayAttr("stage");
    if (!Order && !Stage) {
      for (unsigned I = 0; I != N; ++I) {
        IsProducer[I] = PB.Items[I].Prod.has_value();
        Sequence.push_back(I);
      }
      return true;
    }
    size_t NumStmts = PB.Statements.size();
    size_t Given = Order ? Order->size() : Stage->size();
    if (Given != NumStmts) {
      error("cannot match the " + std::to_string(Given) +
            " entries of 'order'/'stage' to the " + std::to_string(NumStmts) +
            " statements of the lowered loop body; this stage assignment is "
            "not supported");
      return false;
    }
    for (size_t S = 0; S != NumStmts; ++S)
      if (!classifyStatement(S, Stage ? (*Stage)[S] : -1))
        return false;
    std::vector<size_t> Stmts(NumStmts);
    std::iota(Stmts.begin(), Stmts.end(), 0);
    if (Order)
      std::stable_sort(Stmts.begin(), Stmts.end(), [&](size_t A, size_t B) {
        return (*Order)[A] < (*Order)[B];
      });
    for (size_t S : Stmts)
      Sequence.insert(Sequence.end(), PB.Statements[S].begin(),
                      PB.Statements[S].end());
    return Stages > 1 || producersFirst();
  }

  /// \p St is the user's stage of statement \p S, -1 when not given.
  bool classifyStatement(size_t S, int64_t St) {
    bool Hoistable = isHoistable(S);
    bool Ahead = St < 0 ? Hoistable : St == 0 && Stages > 1;
    if (St < 0 && Loop.hasAttr("stage") && !Hoistable) {
      error("statement " + std::to_string(S) +
            " has order and stage -1 but is not a copy from global to shared "
            "memory that can be issued ahead; give it an order and a stage");
      return false;
    }
    if (Ahead && !Hoistable) {
      error("statement " + std::to_string(S) +
            " has stage 0 but is not a "
            "copy from global to shared memory that can be issued ahead; "
            "this stage assignment is not supported");
      return false;
    }
    if (Stages == 1)
      Ahead = Hoistable;
    for (unsigned I : PB.Statements[S])
      IsProducer[I] = Ahead;
    return true;
  }

  bool isHoistable(size_t S) const {
    return llvm::all_of(PB.Statements[S], [&](unsigned I) {
      return PB.Items[I].Prod.has_value();
    });
  }

  /// Whether the user's stages are more than copies in stage 0 (or -1)
  /// issued ahead of the rest in stage num_stages - 1 (StagedSchedule.h).
  bool isGeneralSchedule() const {
    auto Stage = Loop.getIntArrayAttr("stage");
    if (!Stage || Stage->size() != PB.Statements.size())
      return false;
    for (size_t S = 0; S != Stage->size(); ++S) {
      int64_t St = (*Stage)[S];
      if (St != -1 && St != Stages - 1 &&
          !(St == 0 && Stages > 1 && isHoistable(S)))
        return true;
    }
    return false;
  }

  /// The user's schedule, each statement in its stage (StagedSchedule.h).
  bool lowerStaged() {
    auto Order = Loop.getIntArrayAttr("order");
    std::vector<int64_t> Stage = *Loop.getIntArrayAttr("stage");
    std::vector<ScheduleUnit> Units;
    IsProducer.assign(PB.Items.size(), false);
    bool AnyTma = false, AllTma = true;
    for (size_t S = 0; S != PB.Statements.size(); ++S) {
      ScheduleUnit U;
      U.Items = PB.Statements[S];
      U.Stage = Stage[S];
      U.Order = Order ? (*Order)[S] : Stage[S] == -1 ? -1 : int64_t(S);
      U.Copy = isHoistable(S);
      for (unsigned I : U.Items) {
        IsProducer[I] = U.Copy;
        bool Tma = PB.Items[I].head()->is(OpKind::TmaLoad);
        AnyTma |= U.Copy && Tma;
        AllTma &= !U.Copy || Tma;
      }
      Units.push_back(std::move(U));
    }
    Sequence.resize(PB.Items.size());
    std::iota(Sequence.begin(), Sequence.end(), 0);
    if (AnyTma && !AllTma) {
      error("its TMA copies cannot be mixed with other copies");
      return false;
    }
    StagedSchedule Schedule(Loop, PB, std::move(Units), Stages, Step, AnyTma,
                            Ctx);
    if (!Schedule.check())
      return false;
    if (AnyTma)
      return lowerStagedRing(Schedule);
    ScheduleHooks Hooks;
    Hooks.EmitCopy = [&](Builder &B, unsigned I, Value *K, Value *Slot) {
      emitProducer(B, I, K, nullptr, Slot);
    };
    Schedule.emit(Hooks);
    makeSerial(Loop);
    return true;
  }

  /// The user's schedule over the TMA ring: lower-pipelined's producer
  /// warpgroup (or thread 0) loads the stages, the schedule's statements
  /// acquire and release them.
  bool lowerStagedRing(StagedSchedule &Schedule) {
    for (unsigned I : producerItems())
      Staged.insert(PB.Items[I].Prod->Dsts.begin(),
                    PB.Items[I].Prod->Dsts.end());
    if (!fitsSharedMemory())
      return false;
    std::vector<Operation *> Consumer;
    Value *Leader = nullptr;
    int64_t Threads = setUpRing(Consumer, Leader);
    if (Threads)
      splitRoles(*Loop.getParentOfKind(OpKind::Kernel), Threads, Consumer);
    ScheduleHooks Hooks;
    Hooks.Acquire = [&](Builder &B, Value *J) {
      Value *SC = B.createConstInt(Stages);
      B.create(OpKind::MBarrierWait,
               {Full, B.createBinary(OpKind::FloorMod, J, SC),
                B.createBinary(OpKind::FloorDiv, J, SC)},
               {2, 1}, {});
    };
    Hooks.Release = [&](Builder &B, Value *J, Value *K) {
      releaseStage(B, J, K, Stages * Step, Leader);
    };
    Schedule.emit(Hooks);
    makeSerial(Loop);
    return true;
  }

  /// With one stage, the copies complete before the rest of the iteration.
  bool producersFirst() {
    bool SeenConsumer = false;
    for (unsigned I : Sequence) {
      if (IsProducer[I] && SeenConsumer) {
        error("with num_stages = 1, 'order' must issue the copies before the "
              "statements that use them; this order is not supported");
        return false;
      }
      SeenConsumer |= !IsProducer[I];
    }
    return true;
  }

  /// The statements issued in Sequence order must still see every value
  /// they use computed before them.
  bool checkOrder() {
    llvm::DenseMap<const Operation *, unsigned> Position;
    for (unsigned I = 0; I != Sequence.size(); ++I)
      for (Operation *Op : PB.Items[Sequence[I]].Ops)
        Position[Op] = I;
    for (unsigned I = 0; I != Sequence.size(); ++I) {
      bool Late = false;
      for (Operation *Op : PB.Items[Sequence[I]].Ops)
        Op->walk([&](Operation &Inner) {
          for (Value *V : Inner.getOperands()) {
            auto It = Position.find(V->getDefiningOp());
            Late |= It != Position.end() && It->second > I;
          }
        });
      if (Late) {
        error("'order' issues a statement before the statement computing a "
              "value it uses; this order is not supported");
        return false;
      }
    }
    return true;
  }

  /// Whether the most shared memory live at once, with the staged buffers
  /// multiplied, fits the target (plan-shared-memory checks the final plan).
  bool fitsSharedMemory() {
    Operation *Kernel = Loop.getParentOfKind(OpKind::Kernel);
    auto BytesOf = [&](const Value *Buf) {
      int64_t Bytes = Buf->getType().sizeInBytes().value_or(0);
      return llvm::is_contained(Staged, Buf) ? Bytes * Stages : Bytes;
    };
    return checkPeakSharedMemory(*Kernel, sharedLiveRanges(*Kernel, BytesOf),
                                 Ctx);
  }

  /// Clones producer item \p I for iteration \p K at \p B, under
  /// `if Cond` when Cond is given, writing stage \p Stage when given.
  Operation *emitProducer(Builder &B, unsigned I, Value *K, Value *Cond,
                          Value *Stage) {
    Builder Inner = B;
    if (Cond)
      Inner.setInsertionPointToEnd(B.createIf(Cond)->getBody());
    ValueMap Map;
    Map[IV] = K;
    const BodyItem &Item = PB.Items[I];
    for (Operation *Op : Item.Prod->Slice)
      Inner.insert(Op->clone(Map));
    Operation *Copy = Inner.insert(Item.head()->clone(Map));
    if (Stage) {
      std::vector<Operation *> Users;
      Copy->walk([&](Operation &Op) { Users.push_back(&Op); });
      for (Operation *Op : Users)
        for (Value *Dst : Item.Prod->Dsts)
          prependIndex(*Op, Dst, Stage);
    }
    if (Copy->is(OpKind::TmaLoad))
      return Copy;
    if (Ctx.Tgt.AsyncCopy)
      makeAsync(*Copy);
    return nullptr;
  }

  /// Without asynchronous copies (AMD) the copies are complete when they
  /// return: there is nothing to commit or wait for.
  void createWait(Builder &B, int64_t Pending) {
    if (Ctx.Tgt.AsyncCopy)
      B.create(OpKind::CpAsyncWait, {}, {}, {},
               {{"pending", Attribute::integer(Pending)}});
  }

  void createCommit(Builder &B) {
    if (Ctx.Tgt.AsyncCopy)
      B.create(OpKind::CpAsyncCommit, {}, {}, {});
  }

  /// The shared accesses of the items issued in their own iteration.
  std::vector<std::pair<Operation *, Value *>> consumerUses() const {
    std::vector<std::pair<Operation *, Value *>> Uses;
    for (unsigned I : Sequence) {
      if (IsProducer[I])
        continue;
      for (Operation *Op : PB.Items[I].Ops)
        Op->walk([&](Operation &Inner) {
          for (Value *Buf : Staged)
            if (llvm::is_contained(Inner.getOperands(), Buf))
              Uses.push_back({&Inner, Buf});
        });
    }
    return Uses;
  }

  /// prologue: for s in [0, S-1): [if lo + s*step < hi] producers(s); commit
  void emitPrologue(Builder &B) {
    Value *Lo = Loop.getOperand(0), *Hi = Loop.getOperand(1);
    auto LoC = matchConstantInt(Lo), HiC = matchConstantInt(Hi);
    for (int64_t S = 0; S + 1 < Stages; ++S) {
      Value *K = LoC      ? B.createConstInt(*LoC + S * Step)
                 : S == 0 ? Lo
                          : B.createBinary(OpKind::Add, Lo,
                                           B.createConstInt(S * Step));
      bool Known = LoC && HiC;
      Value *Cond = Known ? nullptr : B.createCmp(CmpPred::Lt, K, Hi);
      if (!Known || *LoC + S * Step < *HiC)
        for (unsigned I : producerItems())
          emitProducer(B, I, K, Cond, B.createConstInt(S));
      createCommit(B);
    }
  }

  /// The number of the current iteration, (k - lo) / step.
  Value *iterationNumber(Builder &B) {
    Value *Lo = Loop.getOperand(0);
    Value *N = isConstantInt(Lo, 0) ? IV : B.createBinary(OpKind::Sub, IV, Lo);
    return Step == 1
               ? N
               : B.createBinary(OpKind::FloorDiv, N, B.createConstInt(Step));
  }

  /// Gives every staged buffer a leading dim of Stages.
  void stageBuffers() {
    for (Value *Buf : Staged) {
      std::vector<Dim> Dims = {Dim(Stages)};
      for (const Dim &D : Buf->getType().getDims())
        Dims.push_back(D);
      Buf->setType(
          Type::buffer(Scope::Shared, Dims, Buf->getType().getDType()));
    }
  }

  /// prologue; for k { wait S-2; barrier; [if k + (S-1)*step < hi]
  /// producers(k + S-1) into stage (it + S-1) % S; commit; consumers(k)
  /// reading stage it % S }; wait 0
  void emitMultiStage() {
    auto Uses = consumerUses();
    stageBuffers();
    Builder B;
    B.setLoc(Loop.getLoc());
    B.setInsertionPoint(&Loop);
    emitPrologue(B);
    B.setInsertionPointToStart(Body);
    createWait(B, Stages - 2);
    B.create(OpKind::Barrier, {}, {}, {});
    Value *It = iterationNumber(B);
    Value *StageK =
        B.createBinary(OpKind::FloorMod, It, B.createConstInt(Stages));
    Value *Next =
        B.createBinary(OpKind::Add, IV, B.createConstInt((Stages - 1) * Step));
    Value *Cond = B.createCmp(CmpPred::Lt, Next, Loop.getOperand(1));
    Value *StageNext = B.createBinary(
        OpKind::FloorMod,
        B.createBinary(OpKind::Add, It, B.createConstInt(Stages - 1)),
        B.createConstInt(Stages));
    B.setInsertionPointToEnd(Body);
    issueBody(B, Next, Cond, StageNext, /*WaitBeforeConsumers=*/false);
    for (auto &[Op, Buf] : Uses)
      prependIndex(*Op, Buf, StageK);
    B.setInsertionPointAfter(&Loop);
    createWait(B, 0);
  }

  //===--- TMA pipelines (sm_90) ------------------------------------------===//

  /// A ring of Stages stages, each with a `full` mbarrier (one arrival of
  /// the issuing thread plus the TMA bytes) and an `empty` one (one arrival
  /// of every thread once it is done reading the stage):
  ///   init; barrier
  ///   for s in [0, S): [if lo + s*step < hi] if leader: load(s) into s
  ///   for k: wait full[it % S] (parity it / S); consumers(it % S);
  ///          release(it % S): arrive empty; if k + S*step < hi and leader:
  ///            wait empty (same parity); load(k + S*step) into it % S
  /// When the consumers end with one wgmma group that nothing else in the
  /// loop touches (and S >= 2), its wait keeps one group in flight, and
  /// the stage released is the previous iteration's (it - 1) % S, refilled
  /// with k + (S-1)*step; a wgmma_wait {0} follows the loop. No block
  /// barrier runs in the loop.
  void emitTmaPipeline() {
    auto Uses = consumerUses();
    collectPrologueLoads();
    std::vector<Operation *> Consumer;
    Value *Leader = nullptr;
    int64_t Threads = setUpRing(Consumer, Leader);
    Builder B;
    B.setLoc(Loop.getLoc());
    if (Pre) {
      B.setInsertionPoint(&Loop);
      Value *Zero = B.createConstInt(0);
      Operation *Wait =
          B.create(OpKind::MBarrierWait, {Pre, Zero, Zero}, {2, 1}, {});
      // After a try_wait loop ptxas cannot prove the warps converged and
      // keeps the wgmma descriptors' arithmetic off the uniform datapath
      // for the whole loop (5% on causal attention on the H200); a
      // barrier of the waiting threads restores it. Inside the consumers'
      // role insert-barriers makes it the role's named barrier.
      Operation *Converge = B.create(OpKind::Barrier, {}, {}, {});
      if (Threads)
        Consumer.insert(llvm::find(Consumer, &Loop), {Wait, Converge});
    }
    rewriteConsumerLoop(B, Uses, Leader);
    if (Threads)
      splitRoles(*Loop.getParentOfKind(OpKind::Kernel), Threads, Consumer);
    eraseProducers();
  }

  /// Stages the ring's buffers and creates its barriers. Returns the
  /// block's thread count when a producer warpgroup will load the stages
  /// (\p Consumer: what splitRoles moves into the consumers' role), else 0
  /// after the leader's prologue loads (\p Leader: its condition).
  int64_t setUpRing(std::vector<Operation *> &Consumer, Value *&Leader) {
    Operation *Kernel = Loop.getParentOfKind(OpKind::Kernel);
    // TileLang's pass config tl.disable_warp_specialized (Sema).
    Operation *Func = Kernel->getParentOfKind(OpKind::Func);
    bool Off = Func && Func->getBoolAttr("no_warp_specialize").value_or(false);
    int64_t Threads = Ctx.Tgt.WarpSpecialize && !Off
                          ? warpSpecializable(*Kernel, Consumer)
                          : 0;
    stageBuffers();
    Builder B;
    B.setLoc(Loop.getLoc());
    if (Threads) {
      B.setInsertionPointToStart(Kernel->getBody());
      NumThreads = Threads;
      createBarriers(B, B.createCmp(CmpPred::Eq, B.createThreadId(0),
                                    B.createConstInt(0)));
      return Threads;
    }
    B.setInsertionPoint(&Loop);
    Leader = leaderCondition(B);
    createBarriers(B, Leader);
    if (Pre) {
      Builder Then = B;
      Then.setInsertionPointToEnd(B.createIf(Leader)->getBody());
      issuePrologueLoads(Then);
    }
    emitTmaPrologue(B, Leader);
    return 0;
  }

  /// The tma_loads lower-tma made of copies before the loop in its block
  /// (no mbarrier yet, their tile read in the loop): the ring issues them
  /// first, completing on an mbarrier of their own that the consumers
  /// wait for before the loop.
  void collectPrologueLoads() {
    for (Operation *Op = Loop.getPrevNode(); Op; Op = Op->getPrevNode()) {
      if (!Op->is(OpKind::TmaLoad) || Op->getNumGroups() > 2)
        continue;
      if (llvm::any_of(Op->getOperand(0)->getUses(),
                       [&](const Use &U) { return Loop.isAncestorOf(U.User); }))
        PrologueLoads.insert(PrologueLoads.begin(), Op);
    }
  }

  /// expect_tx pre[0]; the prologue loads, completing on pre[0]; arrive.
  void issuePrologueLoads(Builder &B) {
    int64_t Bytes = 0;
    for (Operation *Tma : PrologueLoads)
      Bytes += tmaBytes(*Tma);
    Value *Zero = B.createConstInt(0);
    B.create(OpKind::MBarrierExpectTx, {Pre, Zero, B.createConstInt(Bytes)},
             {2, 1}, {});
    for (Operation *Tma : PrologueLoads) {
      Tma->moveToEnd(*B.getInsertionBlock());
      appendBarrier(*Tma, Pre, Zero);
    }
    B.create(OpKind::MBarrierArrive, {Pre, Zero}, {2}, {});
  }

  static int64_t tmaBytes(const Operation &Tma) {
    std::vector<int64_t> Box = *Tma.getIntArrayAttr("box");
    return int64_t(Tma.getIntArrayAttr("dst_offsets")->size()) * Box[0] *
           Box[1] * bitWidth(Tma.getOperand(0)->getType().getDType()) / 8;
  }

  /// \p Tma completes on \p Bars[\p Stage].
  static void appendBarrier(Operation &Tma, Value *Bars, Value *Stage) {
    std::vector<Value *> Operands(Tma.getOperands().begin(),
                                  Tma.getOperands().end());
    std::vector<unsigned> Segments(Tma.getSegments().begin(),
                                   Tma.getSegments().end());
    Operands.push_back(Bars);
    Operands.push_back(Stage);
    Segments.push_back(2);
    Tma.setOperands(Operands, Segments);
  }

  /// The loop reads its stage once full, then releases a stage (refilled
  /// by \p Leader when given: the pipeline without a producer role).
  void
  rewriteConsumerLoop(Builder &B,
                      const std::vector<std::pair<Operation *, Value *>> &Uses,
                      Value *Leader) {
    B.setInsertionPointToStart(Body);
    Value *It = iterationNumber(B);
    Value *SC = B.createConstInt(Stages);
    Value *StageK = B.createBinary(OpKind::FloorMod, It, SC);
    B.create(OpKind::MBarrierWait,
             {Full, StageK, B.createBinary(OpKind::FloorDiv, It, SC)}, {2, 1},
             {});
    for (Operation *Op : PB.FreeOps)
      Op->moveToEnd(Body);
    for (unsigned I : Sequence)
      if (!IsProducer[I])
        for (Operation *Op : PB.Items[I].Ops)
          Op->moveToEnd(Body);
    for (auto &[Op, Buf] : Uses)
      prependIndex(*Op, Buf, StageK);
    Operation *GroupWait = Stages >= 2 ? overlappableWgmmaWait() : nullptr;
    B.setInsertionPointToEnd(Body);
    if (!GroupWait)
      return releaseStage(B, It, IV, Stages * Step, Leader);
    GroupWait->setAttr("pending", Attribute::integer(1));
    Value *Started = B.createCmp(CmpPred::Ge, It, B.createConstInt(1));
    B.setInsertionPointToEnd(B.createIf(Started)->getBody());
    releaseStage(B, B.createBinary(OpKind::Sub, It, B.createConstInt(1)), IV,
                 (Stages - 1) * Step, Leader);
    B.setInsertionPointAfter(&Loop);
    DrainWait = B.create(OpKind::WgmmaWait, GroupWait->getOperands(),
                         GroupWait->getSegments(), {},
                         {{"pending", Attribute::integer(0)}});
  }

  void eraseProducers() {
    for (unsigned I : producerItems())
      PB.Items[I].head()->erase();
  }

  /// Thread (0, 0, 0) issues the TMA loads.
  Value *leaderCondition(Builder &B) {
    Operation *Kernel = Loop.getParentOfKind(OpKind::Kernel);
    std::vector<int64_t> Threads = *Kernel->getIntArrayAttr("threads");
    NumThreads = 1;
    Value *Cond = nullptr;
    for (unsigned D = 0; D != Threads.size(); ++D) {
      NumThreads *= Threads[D];
      if (Threads[D] == 1)
        continue;
      Value *Zero =
          B.createCmp(CmpPred::Eq, B.createThreadId(D), B.createConstInt(0));
      Cond = Cond ? B.createBinary(OpKind::And, Cond, Zero) : Zero;
    }
    return Cond ? Cond : B.createConstBool(true);
  }

  /// The full and empty mbarrier arrays, initialized by the leader and
  /// published by a block barrier.
  void createBarriers(Builder &B, Value *Leader) {
    Type T = Type::buffer(Scope::Shared, {Dim(Stages)}, DType::UInt64);
    Full = B.createAlloc(T, "tma_full");
    Empty = B.createAlloc(T, "tma_empty");
    if (!PrologueLoads.empty())
      Pre = B.createAlloc(Type::buffer(Scope::Shared, {Dim(1)}, DType::UInt64),
                          "tma_pre");
    for (Value *Bars : {Full, Empty, Pre})
      if (Bars)
        Bars->getDefiningOp()->setAttr("mbarrier", Attribute::boolean(true));
    Builder Then = B;
    Then.setInsertionPointToEnd(B.createIf(Leader)->getBody());
    if (Pre)
      Then.create(OpKind::MBarrierInit, {Pre}, {1}, {},
                  {{"counts", Attribute::intArray({1})}});
    Then.create(
        OpKind::MBarrierInit, {Full}, {1}, {},
        {{"counts", Attribute::intArray(std::vector<int64_t>(Stages, 1))}});
    Then.create(OpKind::MBarrierInit, {Empty}, {1}, {},
                {{"counts", Attribute::intArray(
                                std::vector<int64_t>(Stages, NumThreads))}});
    B.create(OpKind::Barrier, {}, {}, {});
  }

  /// for s in [0, S): [if lo + s*step < hi] if leader: load(s) into s
  void emitTmaPrologue(Builder &B, Value *Leader) {
    Value *Lo = Loop.getOperand(0), *Hi = Loop.getOperand(1);
    auto LoC = matchConstantInt(Lo), HiC = matchConstantInt(Hi);
    for (int64_t S = 0; S < Stages; ++S) {
      if (LoC && HiC && *LoC + S * Step >= *HiC)
        break;
      Value *K = LoC      ? B.createConstInt(*LoC + S * Step)
                 : S == 0 ? Lo
                          : B.createBinary(OpKind::Add, Lo,
                                           B.createConstInt(S * Step));
      Value *Cond = LoC && HiC
                        ? Leader
                        : B.createBinary(OpKind::And, Leader,
                                         B.createCmp(CmpPred::Lt, K, Hi));
      // The stage index is defined before the if that uses it.
      Value *Stage = B.createConstInt(S);
      Builder Then = B;
      Then.setInsertionPointToEnd(B.createIf(Cond)->getBody());
      issueLoads(Then, K, Stage);
    }
  }

  /// expect_tx full[Stage]; the producers' loads of iteration K into
  /// Stage, completing on full[Stage]; the leader's arrival.
  void issueLoads(Builder &B, Value *K, Value *Stage) {
    int64_t Bytes = 0;
    for (unsigned I : producerItems())
      Bytes += tmaBytes(*PB.Items[I].head());
    B.create(OpKind::MBarrierExpectTx, {Full, Stage, B.createConstInt(Bytes)},
             {2, 1}, {});
    for (unsigned I : producerItems())
      appendBarrier(*emitProducer(B, I, K, nullptr, Stage), Full, Stage);
    B.create(OpKind::MBarrierArrive, {Full, Stage}, {2}, {});
  }

  /// Iteration \p It is done with its stage: every thread arrives on its
  /// empty barrier; the leader (when given) waits for all of them and
  /// refills the stage with the iteration at loop value \p K + \p Ahead
  /// (when that is in the loop).
  void releaseStage(Builder &B, Value *It, Value *K, int64_t Ahead,
                    Value *Leader) {
    Value *SC = B.createConstInt(Stages);
    Value *Stage = B.createBinary(OpKind::FloorMod, It, SC);
    B.create(OpKind::MBarrierArrive, {Empty, Stage}, {2}, {});
    if (!Leader)
      return;
    Value *Next = B.createBinary(OpKind::Add, K, B.createConstInt(Ahead));
    Value *Cond = B.createBinary(
        OpKind::And, B.createCmp(CmpPred::Lt, Next, Loop.getOperand(1)),
        Leader);
    Builder Then = B;
    Then.setInsertionPointToEnd(B.createIf(Cond)->getBody());
    Then.create(OpKind::MBarrierWait,
                {Empty, Stage, Then.createBinary(OpKind::FloorDiv, It, SC)},
                {2, 1}, {});
    issueLoads(Then, Next, Stage);
  }

  //===--- Warp specialization --------------------------------------------===//

  /// The block's thread count T when a producer warpgroup can be added to
  /// it for this loop, else 0; \p Consumer gets the kernel's top-level ops
  /// that go into the consumers' role (all but allocs and the pure ops the
  /// producer may need). Needs: the loop at the kernel's top level, a 1-D
  /// block of at least two warpgroups with room for one more (a block of
  /// one warpgroup fits several per SM; a producer warpgroup, as large in
  /// registers, would halve them: measured 0.6x on a 128x128 tile), and no
  /// synchronization, thread roles or register moves (T.set_max_nreg) of
  /// the program's own.
  int64_t warpSpecializable(Operation &Kernel,
                            std::vector<Operation *> &Consumer) {
    std::vector<int64_t> Threads = *Kernel.getIntArrayAttr("threads");
    int64_t T = Threads[0];
    if (Loop.getParentOp() != &Kernel || T % 128 || T < 256 || T + 128 > 1024 ||
        llvm::any_of(llvm::drop_begin(Threads),
                     [](int64_t N) { return N != 1; }))
      return 0;
    bool Own = false;
    Kernel.walk([&](Operation &Op) {
      Own |= Op.is(OpKind::Barrier) || Op.is(OpKind::MBarrierInit) ||
             Op.is(OpKind::SetMaxNReg) ||
             (Op.is(OpKind::If) && Op.hasAttr("thread_range")) ||
             (Op.is(OpKind::TmaLoad) && !Loop.isAncestorOf(&Op) &&
              !llvm::is_contained(PrologueLoads, &Op)) ||
             (Op.is(OpKind::For) && &Op != &Loop &&
              Op.getStringAttr("kind") == llvm::StringRef("pipelined"));
    });
    if (Own)
      return 0;
    llvm::SmallPtrSet<Value *, 16> Moved;
    for (Operation &Op : Kernel.getBody()) {
      if (llvm::is_contained(PrologueLoads, &Op))
        continue;
      bool Keep = (Op.is(OpKind::Alloc) || isPureScalarOp(Op)) &&
                  llvm::none_of(Op.getOperands(),
                                [&](Value *V) { return Moved.count(V); });
      if (Keep)
        continue;
      Consumer.push_back(&Op);
      for (unsigned R = 0; R != Op.getNumResults(); ++R)
        Moved.insert(Op.getResult(R));
    }
    bool ProducerSees = llvm::none_of(Loop.getOperands(),
                                      [&](Value *V) { return Moved.count(V); });
    for (Operation *Op : PrologueLoads)
      ProducerSees &= llvm::none_of(Op->getOperands(),
                                    [&](Value *V) { return Moved.count(V); });
    for (unsigned I : producerItems()) {
      std::vector<Operation *> Ops = PB.Items[I].Prod->Slice;
      Ops.push_back(PB.Items[I].head());
      for (Operation *Op : Ops)
        ProducerSees &= llvm::none_of(Op->getOperands(),
                                      [&](Value *V) { return Moved.count(V); });
    }
    return ProducerSees ? T : 0;
  }

  /// Adds the producer warpgroup [T, T + 128): its first thread loads
  /// every iteration's stage once the consumers released it,
  ///   for k: [if it >= S: wait empty[it % S], parity it / S - 1]
  ///          expect_tx full[it % S]; loads(k) into it % S; arrive
  /// and moves \p Consumer into the role of threads [0, T).
  void splitRoles(Operation &Kernel, int64_t T,
                  const std::vector<Operation *> &Consumer) {
    std::vector<int64_t> Threads = *Kernel.getIntArrayAttr("threads");
    Threads[0] = T + 128;
    Kernel.setAttr("threads", Attribute::intArray(Threads));
    Builder B(Kernel.getBody());
    B.setLoc(Loop.getLoc());
    Value *Tx = B.createThreadId(0);
    Value *TC = B.createConstInt(T);
    Operation *Producer = B.createIf(B.createCmp(CmpPred::Ge, Tx, TC));
    Producer->setAttr("thread_range", Attribute::intArray({T, 128}));
    Operation *Consumers = B.createIf(B.createCmp(CmpPred::Lt, Tx, TC));
    Consumers->setAttr("thread_range", Attribute::intArray({0, T}));
    // plan-shared-memory: the producer only loads stages the consumers'
    // loop waits for, so the ring's bytes are free after that loop.
    Producer->setAttr("tma_role", Attribute::string("producer"));
    Consumers->setAttr("tma_role", Attribute::string("consumer"));
    if (T == 256 && !Kernel.getBoolAttr("no_set_max_nreg").value_or(false)) {
      // ptxas gives a 384-thread block 168 registers per thread; the
      // producer returns 128 of them per thread, the consumers take them.
      B.setInsertionPointToEnd(Producer->getBody());
      B.create(OpKind::SetMaxNReg, {}, {}, {},
               {{"regs", Attribute::integer(40)},
                {"inc", Attribute::boolean(false)}});
      B.setInsertionPointToEnd(Consumers->getBody());
      B.create(OpKind::SetMaxNReg, {}, {}, {},
               {{"regs", Attribute::integer(232)},
                {"inc", Attribute::boolean(true)}});
    }
    for (Operation *Op : Consumer) {
      Op->moveToEnd(Consumers->getBody());
      if (Op == &Loop && DrainWait)
        DrainWait->moveToEnd(Consumers->getBody());
    }
    B.setInsertionPointToEnd(Producer->getBody());
    B.setInsertionPointToEnd(
        B.createIf(B.createCmp(CmpPred::Eq, Tx, TC))->getBody());
    if (Pre)
      issuePrologueLoads(B);
    Operation *Fill = B.createFor(Loop.getOperand(0), Loop.getOperand(1),
                                  Loop.getOperand(2), "serial", "kp");
    B.setInsertionPointToEnd(Fill->getBody());
    Value *K = Fill->getBody().getArgument(0);
    Value *Lo = Loop.getOperand(0);
    Value *N = isConstantInt(Lo, 0) ? K : B.createBinary(OpKind::Sub, K, Lo);
    Value *It =
        Step == 1 ? N
                  : B.createBinary(OpKind::FloorDiv, N, B.createConstInt(Step));
    Value *SC = B.createConstInt(Stages);
    Value *Stage = B.createBinary(OpKind::FloorMod, It, SC);
    Builder Reuse = B;
    Reuse.setInsertionPointToEnd(
        B.createIf(B.createCmp(CmpPred::Ge, It, SC))->getBody());
    Reuse.create(OpKind::MBarrierWait,
                 {Empty, Stage,
                  Reuse.createBinary(
                      OpKind::Add, Reuse.createBinary(OpKind::FloorDiv, It, SC),
                      Reuse.createConstInt(1))},
                 {2, 1}, {});
    issueLoads(B, K, Stage);
  }

  /// The body's wgmma_wait {pending = 0} closing its one wgmma group
  /// (wgmma_fence ... wgmma_wait, both at its top level), when nothing in
  /// the loop outside the group touches the group's registers; null
  /// otherwise.
  Operation *overlappableWgmmaWait() {
    Operation *Fence = nullptr, *Wait = nullptr;
    int Count = 0;
    Loop.walk([&](Operation &Op) {
      Count += Op.is(OpKind::WgmmaFence) || Op.is(OpKind::WgmmaWait);
    });
    for (Operation &Op : Body) {
      if (Op.is(OpKind::WgmmaFence))
        Fence = &Op;
      else if (Op.is(OpKind::WgmmaWait) && Fence)
        Wait = &Op;
    }
    if (Count != 2 || !Wait || Wait->getIntAttr("pending") != 0)
      return nullptr;
    llvm::SmallPtrSet<Operation *, 32> Group;
    for (Operation *Op = Fence; Op != Wait->getNextNode();
         Op = Op->getNextNode())
      Op->walk([&](Operation &Inner) { Group.insert(&Inner); });
    for (Value *Regs : Fence->getOperands())
      for (const Use &U : Regs->getUses())
        if (Loop.isAncestorOf(U.User) && !Group.count(U.User))
          return nullptr;
    return Wait;
  }

  /// for k { producers(k); commit; wait 0; barrier; consumers(k); barrier }
  void emitSingleStage() {
    Builder B;
    B.setLoc(Loop.getLoc());
    B.setInsertionPointToEnd(Body);
    issueBody(B, IV, nullptr, nullptr, /*WaitBeforeConsumers=*/true);
    B.create(OpKind::Barrier, {}, {}, {});
  }

  /// Rebuilds the body at the end of itself in issue order: free ops, then
  /// the items (producers as clones for iteration \p K), a commit after
  /// the last producer; the original producers are erased.
  void issueBody(Builder &B, Value *K, Value *Cond, Value *Stage,
                 bool WaitBeforeConsumers) {
    for (Operation *Op : PB.FreeOps)
      Op->moveToEnd(Body);
    std::vector<unsigned> Producers = producerItems();
    for (unsigned I : Sequence) {
      if (!IsProducer[I]) {
        for (Operation *Op : PB.Items[I].Ops)
          Op->moveToEnd(Body);
        continue;
      }
      emitProducer(B, I, K, Cond, Stage);
      if (I != Producers.back())
        continue;
      createCommit(B);
      if (!WaitBeforeConsumers)
        continue;
      createWait(B, 0);
      B.create(OpKind::Barrier, {}, {}, {});
    }
    for (unsigned I : Producers)
      PB.Items[I].head()->erase();
  }
};

class LowerPipelinedPass : public Pass {
public:
  llvm::StringRef name() const override { return "lower-pipelined"; }
  llvm::StringRef description() const override {
    return "Software-pipeline T.Pipelined loops: multi-buffered cp.async "
           "copies issued num_stages - 1 iterations ahead";
  }

  bool run(Operation &Module, PassContext &Ctx) override {
    std::vector<Operation *> Loops = Module.collect(isPipelined);
    // Inner loops first: an outer loop then sees them as ordinary code.
    bool OK = true;
    for (auto It = Loops.rbegin(); It != Loops.rend(); ++It)
      OK &= PipelineLowering(**It, Ctx).run();
    return OK;
  }
};

} // namespace

std::unique_ptr<Pass> tilec::createLowerPipelinedPass() {
  return std::make_unique<LowerPipelinedPass>();
}
