//===- LowerPipelined.cpp - Software pipelining of T.Pipelined loops ------===//

#include "LowerPipelined.h"
#include "Divergence.h"
#include "PipelineSchedule.h"
#include "PlanSharedMemory.h"
#include "PredicatedCopy.h"
#include "tilec/IR/Builder.h"
#include "tilec/IR/ConstantMatch.h"
#include "tilec/Support/Diagnostics.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SetVector.h"
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

bool isBufferIn(const Value *V, Scope S) {
  return V->getType().isBuffer() && V->getType().getScope() == S;
}

/// Bytes a vcopy from global into shared memory moves when cp.async can
/// move them (4, 8 or 16), else 0.
int64_t asyncBytes(const Operation &Op) {
  if (!Op.is(OpKind::VCopy) ||
      !isBufferIn(Op.getGroup(0).front(), Scope::Shared) ||
      !isBufferIn(Op.getGroup(1).front(), Scope::Global))
    return 0;
  DType T = Op.getGroup(0).front()->getType().getDType();
  // A converting vcopy (different dtypes) is not a plain byte copy.
  if (Op.getGroup(1).front()->getType().getDType() != T)
    return 0;
  int64_t Bytes = Op.getIntAttr("lanes").value_or(1) * bitWidth(T) / 8;
  return Bytes == 4 || Bytes == 8 || Bytes == 16 ? Bytes : 0;
}

bool hasAsyncCopy(Operation &Root) {
  bool Found = false;
  Root.walk([&](Operation &Op) {
    Found |= asyncBytes(Op) != 0 || predicatedCopyBytes(Op) != 0;
  });
  return Found;
}

/// Every vcopy under \p Root that cp.async can do becomes a cp_async, and
/// every bounds-guarded copy loop that predicated cp.async can do exactly
/// becomes predicated cp_asyncs (Root itself may be replaced).
void makeAsync(Operation &Root) {
  std::vector<Operation *> Guarded;
  Root.walk([&](Operation &Op) {
    if (predicatedCopyBytes(Op))
      Guarded.push_back(&Op);
  });
  for (Operation *Loop : Guarded)
    makePredicatedCopy(*Loop);
  if (llvm::is_contained(Guarded, &Root))
    return;
  std::vector<Operation *> Copies;
  Root.walk([&](Operation &Op) {
    if (asyncBytes(Op))
      Copies.push_back(&Op);
  });
  for (Operation *Copy : Copies) {
    Builder B;
    B.setInsertionPoint(Copy);
    B.setLoc(Copy->getLoc());
    B.create(OpKind::CpAsync, Copy->getOperands(), Copy->getSegments(), {},
             {{"bytes", Attribute::integer(asyncBytes(*Copy))}});
    Copy->erase();
  }
}

/// Puts \p Idx in front of the indices of every group of \p Op on \p Buf.
void prependIndex(Operation &Op, const Value *Buf, Value *Idx) {
  std::vector<Value *> Operands;
  std::vector<unsigned> Segments;
  for (unsigned G = 0; G != Op.getNumGroups(); ++G) {
    llvm::ArrayRef<Value *> Group = Op.getGroup(G);
    bool Staged = Group.front() == Buf && Group.size() > 1;
    Operands.push_back(Group.front());
    if (Staged)
      Operands.push_back(Idx);
    Operands.insert(Operands.end(), Group.begin() + 1, Group.end());
    Segments.push_back(Group.size() + (Staged ? 1 : 0));
  }
  Op.setOperands(Operands, Segments);
}

class PipelineLowering {
public:
  PipelineLowering(Operation &Loop, PassContext &Ctx)
      : Loop(Loop), Ctx(Ctx), Body(Loop.getBody()), IV(Body.getArgument(0)) {}

  /// False after an error was reported.
  bool run() {
    Stages = Loop.getIntAttr("num_stages").value_or(0);
    if (Stages < 1 || !canPipeline())
      return makeSerial(Loop), true;
    PB = analyzePipelineBody(Loop);
    if (!chooseProducers() || !checkOrder())
      return false;
    std::vector<unsigned> Producers = producerItems();
    bool AnyAsync =
        Ctx.Tgt.AsyncCopy && llvm::any_of(Producers, [&](unsigned I) {
          return hasAsyncCopy(*PB.Items[I].head());
        });
    if (Producers.empty() || (Stages == 1 && !AnyAsync))
      return makeSerial(Loop), true;
    if (Stages > 1) {
      for (unsigned I : Producers)
        Staged.insert(PB.Items[I].Prod->Dsts.begin(),
                      PB.Items[I].Prod->Dsts.end());
      if (!fitsSharedMemory())
        return false;
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

  /// A positive constant step, no break/continue of this loop, and a loop
  /// every thread runs the same way (the schedule has barriers).
  bool canPipeline() {
    auto S = matchConstantInt(Loop.getOperand(2));
    if (!S || *S <= 0 || !Loop.getParentOfKind(OpKind::Kernel))
      return false;
    Step = *S;
    bool Exits = false, UserSync = false;
    Loop.walk([&](Operation &Op) {
      // The user synchronizes this loop's roles with mbarriers: issuing
      // copies early would bypass them.
      UserSync |= Op.is(OpKind::MBarrierWait) ||
                  Op.is(OpKind::MBarrierArrive) ||
                  (Op.is(OpKind::If) && Op.hasAttr("thread_range"));
      if (!Op.is(OpKind::Break) && !Op.is(OpKind::Continue))
        return;
      Operation *P = Op.getParentOp();
      while (P != &Loop && !P->is(OpKind::For) && !P->is(OpKind::While))
        P = P->getParentOp();
      Exits |= P == &Loop;
    });
    if (Exits || UserSync)
      return false;
    // The schedule puts barriers in the loop: every thread must reach them.
    Operation *Kernel = Loop.getParentOfKind(OpKind::Kernel);
    if (!Kernel)
      return false;
    Divergence Div(*Kernel);
    for (Operation *P = &Loop; P != Kernel; P = P->getParentOp()) {
      bool Uniform = (P->is(OpKind::For) || P->is(OpKind::If)) &&
                     !Div.anyDivergent(P->getOperands());
      if (!Uniform)
        return false;
    }
    return true;
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
    bool Hoistable = llvm::all_of(PB.Statements[S], [&](unsigned I) {
      return PB.Items[I].Prod.has_value();
    });
    bool Ahead = St < 0 ? Hoistable : St == 0 && Stages > 1;
    if (St >= 0 && St != 0 && St != Stages - 1) {
      error("stage " + std::to_string(St) + " of statement " +
            std::to_string(S) +
            " is not supported: only 0 (copies issued "
            "ahead) and num_stages - 1 = " +
            std::to_string(Stages - 1) + " (the rest) are");
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
  void emitProducer(Builder &B, unsigned I, Value *K, Value *Cond,
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
    if (Ctx.Tgt.AsyncCopy)
      makeAsync(*Copy);
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

  /// prologue; for k { wait S-2; barrier; [if k + (S-1)*step < hi]
  /// producers(k + S-1) into stage (it + S-1) % S; commit; consumers(k)
  /// reading stage it % S }; wait 0
  void emitMultiStage() {
    auto Uses = consumerUses();
    for (Value *Buf : Staged) {
      std::vector<Dim> Dims = {Dim(Stages)};
      for (const Dim &D : Buf->getType().getDims())
        Dims.push_back(D);
      Buf->setType(
          Type::buffer(Scope::Shared, Dims, Buf->getType().getDType()));
    }
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
    std::vector<Operation *> Loops;
    Module.walk([&](Operation &Op) {
      if (isPipelined(Op))
        Loops.push_back(&Op);
    });
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
