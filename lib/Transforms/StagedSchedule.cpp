//===- StagedSchedule.cpp - A user's order/stage schedule -----------------===//

#include "StagedSchedule.h"
#include "PlanSharedMemory.h"
#include "tilec/IR/ConstantMatch.h"
#include "tilec/Support/Diagnostics.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"
#include <algorithm>
#include <limits>
#include <numeric>

using namespace tilec;
using namespace tilec::ir;

static constexpr int64_t Unknown = std::numeric_limits<int64_t>::max();

StagedSchedule::StagedSchedule(Operation &Loop, const PipelineBody &PB,
                               std::vector<ScheduleUnit> Units,
                               int64_t NumStages, int64_t Step, bool Ring,
                               PassContext &Ctx)
    : Loop(Loop), PB(PB), Units(std::move(Units)),
      NumStages(std::max<int64_t>(NumStages, 1)), Step(Step), Ring(Ring),
      Ctx(Ctx) {
  for (const ScheduleUnit &U : this->Units)
    UserStages.push_back(U.Stage);
}

bool StagedSchedule::error(const std::string &Message) {
  Ctx.Diags.report(Loop.getLoc(), diag::err_bad_pipeline) << Message;
  return false;
}

std::string StagedSchedule::describe(unsigned U) const {
  return "statement " + std::to_string(U) + " (stage " +
         std::to_string(UserStages[U]) + ", order " +
         std::to_string(Units[U].Order) + ")";
}

/// Whether unit A of iteration i + ShiftA runs before unit B of iteration i.
bool StagedSchedule::before(unsigned A, int64_t ShiftA, unsigned B) const {
  int64_t SA = Units[A].Stage + ShiftA, SB = Units[B].Stage;
  return SA < SB || (SA == SB && Pos[A] < Pos[B]);
}

static bool definedIn(const Operation &Loop, const Value *V) {
  const Operation *Def = V->isBlockArgument()
                             ? V->getOwnerBlock()->getParentOp()
                             : V->getDefiningOp();
  return Def && Loop.isAncestorOf(Def);
}

void StagedSchedule::collectAccesses() {
  Accesses.assign(Units.size(), {});
  for (unsigned U = 0; U != Units.size(); ++U)
    for (unsigned I : Units[U].Items)
      for (Operation *Top : PB.Items[I].Ops)
        Top->walk([&](Operation &Op) {
          for (unsigned G = 0; G != Op.getNumGroups(); ++G) {
            Value *Buf = Op.getGroup(G).front();
            if (!Buf->getType().isBuffer() || definedIn(Loop, Buf))
              continue;
            if (groupIsWritten(Op, G))
              Accesses[U].Writes.insert(Buf);
            else
              Accesses[U].Reads.insert(Buf);
          }
        });
}

std::vector<unsigned> StagedSchedule::readers(unsigned C) const {
  std::vector<unsigned> Result;
  for (unsigned X = 0; X != Units.size(); ++X)
    if (X != C && llvm::any_of(Accesses[C].Writes, [&](Value *B) {
          return Accesses[X].Reads.count(B) != 0;
        }))
      Result.push_back(X);
  return Result;
}

bool StagedSchedule::resolveCopies() {
  for (unsigned U = 0; U != Units.size(); ++U) {
    ScheduleUnit &Unit = Units[U];
    if (Unit.Stage != -1)
      continue;
    if (!Unit.Copy)
      return error("statement " + std::to_string(U) +
                   " has order and stage -1 but is not a copy from global to "
                   "shared memory that can be issued ahead; give it an order "
                   "and a stage");
    int64_t First = Unknown;
    for (unsigned X : readers(U))
      if (Units[X].Stage != -1)
        First = std::min(First, Units[X].Stage);
    if (First == Unknown)
      First = 0;
    // The ring issues the loads as soon as a stage is free; cp.async copies
    // go num_stages - 1 iterations ahead of their first reader.
    Unit.Stage = Ring ? First : First - (NumStages - 1);
  }
  int64_t Min = Unknown;
  for (const ScheduleUnit &Unit : Units)
    Min = std::min(Min, Unit.Stage);
  for (ScheduleUnit &Unit : Units) {
    Unit.Stage -= Min;
    MaxStage = std::max(MaxStage, Unit.Stage);
  }
  Sequence.resize(Units.size());
  std::iota(Sequence.begin(), Sequence.end(), 0);
  std::stable_sort(
      Sequence.begin(), Sequence.end(),
      [&](unsigned A, unsigned B) { return Units[A].Order < Units[B].Order; });
  Pos.assign(Units.size(), 0);
  for (unsigned P = 0; P != Sequence.size(); ++P)
    Pos[Sequence[P]] = P;
  return true;
}

/// A, before B in the body, conflicts with B on \p Buf: B of iteration i
/// runs after A of iteration i and, unless Buf has versions, before A of
/// iteration i + 1.
bool StagedSchedule::checkPair(unsigned A, unsigned B, Value *Buf) {
  bool AWrites = Accesses[A].Writes.count(Buf);
  bool BWrites = Accesses[B].Writes.count(Buf);
  std::string Name = "'" + Buf->getNameHint().str() + "'";
  std::string What = describe(B) + (BWrites ? " writes " : " reads ") + Name +
                     ", which " + describe(A) +
                     (AWrites ? " writes" : " reads") +
                     " before it in the loop body, but ";
  if (!before(A, 0, B))
    return error(What + "the schedule runs it first");
  if (Versions.count(Buf) || before(B, -1, A))
    return true;
  return error(What + "runs after " + describe(A) + " of the next iteration " +
               (AWrites ? "overwrote" : "read") + " it, and " + Name +
               " cannot get several versions: only shared buffers that one "
               "statement writes, without reading them, and later ones read "
               "can");
}

bool StagedSchedule::checkDependences() {
  for (unsigned A = 0; A != Units.size(); ++A)
    for (unsigned B = A + 1; B != Units.size(); ++B) {
      llvm::SmallSetVector<Value *, 4> Conflicts;
      for (Value *W : Accesses[A].Writes)
        if (Accesses[B].Reads.count(W) || Accesses[B].Writes.count(W))
          Conflicts.insert(W);
      for (Value *R : Accesses[A].Reads)
        if (Accesses[B].Writes.count(R))
          Conflicts.insert(R);
      for (Value *Buf : Conflicts)
        if (!checkPair(A, B, Buf))
          return false;
    }
  return true;
}

/// Statements exchange data through buffers: with guards around them in the
/// prologue and epilogue, one's SSA values would not reach another.
bool StagedSchedule::checkValues() {
  llvm::DenseMap<const Operation *, unsigned> Owner;
  for (unsigned U = 0; U != Units.size(); ++U)
    for (unsigned I : Units[U].Items)
      for (Operation *Top : PB.Items[I].Ops)
        Top->walk([&](Operation &Op) { Owner[&Op] = U; });
  for (unsigned U = 0; U != Units.size(); ++U)
    for (unsigned I : Units[U].Items)
      for (Operation *Top : PB.Items[I].Ops) {
        int Other = -1;
        Top->walk([&](Operation &Op) {
          for (Value *V : Op.getOperands()) {
            auto It = Owner.find(V->getDefiningOp());
            if (It != Owner.end() && It->second != U)
              Other = int(It->second);
          }
        });
        if (Other >= 0)
          return error("statement " + std::to_string(U) +
                       " uses a value that statement " + std::to_string(Other) +
                       " computes; in a schedule given by order/stage, "
                       "statements exchange data only through buffers");
      }
  return true;
}

/// The versions of a buffer that unit \p W writes: every other access
/// (a read) of iteration i must come before W of iteration i + R.
int64_t StagedSchedule::versionsFor(Value *Buf, unsigned W) const {
  int64_t R = 1;
  for (unsigned X = 0; X != Units.size(); ++X)
    if (X != W && Accesses[X].Reads.count(Buf))
      R = std::max(R,
                   Units[X].Stage - Units[W].Stage + (Pos[X] < Pos[W] ? 0 : 1));
  return R;
}

/// Whether \p Buf, which unit \p W writes, can get versions: a shared
/// allocation outside the loop with a static shape and no view, written by
/// W only, read neither by W (a value carried across iterations) nor by a
/// unit before W in the body, used outside the loop only by
/// annotate_layout and accessed with full indices.
bool StagedSchedule::canVersion(Value *Buf, unsigned W) const {
  Operation *Alloc = Buf->getDefiningOp();
  if (!Alloc || !Alloc->is(OpKind::Alloc) ||
      Buf->getType().getScope() != Scope::Shared ||
      !Buf->getType().getStaticShape() || Accesses[W].Reads.count(Buf))
    return false;
  for (unsigned U = 0; U != Units.size(); ++U)
    if ((U != W && Accesses[U].Writes.count(Buf)) ||
        (U < W && Accesses[U].Reads.count(Buf)))
      return false;
  return hasStageableUses(Loop, Buf);
}

/// Copies' buffers (the ring's with TMA) and, where needed and possible,
/// shared buffers written by one statement and read in later stages.
void StagedSchedule::computeVersions() {
  for (unsigned C = 0; C != Units.size(); ++C) {
    if (!Units[C].Copy)
      continue;
    int64_t R = 1;
    for (Value *Buf : Accesses[C].Writes)
      R = std::max(R, versionsFor(Buf, C));
    for (Value *Buf : Accesses[C].Writes) {
      if (Ring)
        RingBuffers.insert(Buf);
      if (R > 1 || Ring)
        Versions[Buf] = Ring ? NumStages : R;
    }
  }
  for (unsigned W = 0; W != Units.size(); ++W)
    for (Value *Buf : Accesses[W].Writes)
      if (!Units[W].Copy && canVersion(Buf, W) && versionsFor(Buf, W) > 1)
        Versions[Buf] = versionsFor(Buf, W);
}

/// Every iteration's copies share ring stage i % S: the stage must be
/// released (at the end of the loop iteration of its last reader) before
/// iteration i + S acquires it (before its first reader).
bool StagedSchedule::checkRing() {
  for (unsigned U : Sequence) {
    if (Units[U].Copy || llvm::none_of(Accesses[U].Reads, [&](Value *B) {
          return RingBuffers.count(B);
        }))
      continue;
    if (FirstReader < 0 || before(U, 0, FirstReader))
      FirstReader = int(U);
    if (LastReader < 0 || before(LastReader, 0, U))
      LastReader = int(U);
  }
  if (FirstReader < 0)
    return true;
  int64_t Need = Units[LastReader].Stage - Units[FirstReader].Stage + 1;
  if (Need <= NumStages)
    return true;
  return error(
      "num_stages = " + std::to_string(NumStages) +
      " TMA stages are too few for this schedule: " + describe(FirstReader) +
      " reads an iteration's copies first and " + describe(LastReader) +
      " last, so the next copies into that stage wait for it; use "
      "num_stages >= " +
      std::to_string(Need));
}

/// Group numbers relative to the first copy of the current iteration: copy
/// unit C of iteration i commits group (i + stage(C)) * NC + rank(C).
void StagedSchedule::planWaits() {
  WaitBefore.assign(Units.size(), -1);
  if (Ring || !Ctx.Tgt.AsyncCopy)
    return;
  std::vector<int64_t> Rank(Units.size(), -1);
  int64_t NC = 0;
  for (unsigned U : Sequence)
    if (Units[U].Copy)
      Rank[U] = NC++;
  int64_t Done = -Unknown, Committed = 0;
  for (unsigned X : Sequence) {
    int64_t Need = -Unknown;
    for (unsigned C = 0; C != Units.size(); ++C)
      if (Rank[C] >= 0 && C != X &&
          llvm::any_of(Accesses[C].Writes,
                       [&](Value *B) { return Accesses[X].Reads.count(B); }))
        Need = std::max(Need, (Units[C].Stage - Units[X].Stage) * NC + Rank[C]);
    if (Need != -Unknown && Need >= Done) {
      WaitBefore[X] = Committed - 1 - Need;
      assert(WaitBefore[X] >= 0 && "a copy read before it was issued");
      Done = Need + 1;
    }
    Committed += Rank[X] >= 0;
  }
}

bool StagedSchedule::check() {
  collectAccesses();
  if (!resolveCopies() || !checkValues())
    return false;
  computeVersions();
  if (!checkDependences() || (Ring && !checkRing()))
    return false;
  planWaits();
  if (Ring)
    return true;
  Operation *Kernel = Loop.getParentOfKind(OpKind::Kernel);
  auto BytesOf = [&](const Value *Buf) {
    int64_t Bytes = Buf->getType().sizeInBytes().value_or(0);
    auto It = Versions.find(const_cast<Value *>(Buf));
    return It == Versions.end() ? Bytes : Bytes * It->second;
  };
  return checkPeakSharedMemory(*Kernel, sharedLiveRanges(*Kernel, BytesOf),
                               Ctx);
}

//===--- Emission ---------------------------------------------------------===//

/// One iteration of the rebuilt loop: per unit, the iteration it works on
/// (J, null when it has none here), its loop value K and its guard.
struct StagedSchedule::Instance {
  std::vector<Value *> J, K, Guard;
};

/// The pure index ops outside any unit that \p Ops use, in body order.
static std::vector<Operation *>
freeOpsUsed(const PipelineBody &PB, const std::vector<Operation *> &Ops) {
  llvm::DenseSet<const Operation *> Free(PB.FreeOps.begin(), PB.FreeOps.end());
  llvm::DenseSet<const Operation *> Used;
  std::vector<const Operation *> Work;
  auto Visit = [&](const Operation &Op) {
    for (const Value *V : Op.getOperands()) {
      const Operation *Def = V->getDefiningOp();
      if (Def && Free.count(Def) && Used.insert(Def).second)
        Work.push_back(Def);
    }
  };
  for (Operation *Top : Ops)
    Top->walk([&](const Operation &Op) { Visit(Op); });
  while (!Work.empty()) {
    const Operation *Op = Work.back();
    Work.pop_back();
    Visit(*Op);
  }
  std::vector<Operation *> Result;
  for (Operation *Op : PB.FreeOps)
    if (Used.count(Op))
      Result.push_back(Op);
  return Result;
}

void StagedSchedule::emitUnit(Builder &B, unsigned U, Value *J, Value *K,
                              const ScheduleHooks &Hooks) {
  const ScheduleUnit &Unit = Units[U];
  llvm::DenseMap<int64_t, Value *> Slots;
  auto SlotOf = [&](int64_t R) {
    Value *&Slot = Slots[R];
    if (!Slot)
      Slot = B.createBinary(OpKind::FloorMod, J, B.createConstInt(R));
    return Slot;
  };
  if (Unit.Copy) {
    for (unsigned I : Unit.Items) {
      auto It = Versions.find(PB.Items[I].Prod->Dsts.front());
      Hooks.EmitCopy(B, I, K,
                     It == Versions.end() ? nullptr : SlotOf(It->second));
    }
    return;
  }
  if (Hooks.Acquire && int(U) == FirstReader)
    Hooks.Acquire(B, J);
  std::vector<Operation *> Ops;
  for (unsigned I : Unit.Items)
    Ops.insert(Ops.end(), PB.Items[I].Ops.begin(), PB.Items[I].Ops.end());
  for (auto &[Buf, R] : Versions)
    if (Accesses[U].Reads.count(Buf) || Accesses[U].Writes.count(Buf))
      SlotOf(R);
  ValueMap Map;
  Map[Loop.getBody().getArgument(0)] = K;
  for (Operation *Op : freeOpsUsed(PB, Ops))
    B.insert(Op->clone(Map));
  std::vector<Operation *> Clones;
  for (Operation *Op : Ops)
    Clones.push_back(B.insert(Op->clone(Map)));
  for (Operation *Clone : Clones) {
    std::vector<Operation *> Inner;
    Clone->walk([&](Operation &Op) { Inner.push_back(&Op); });
    for (Operation *Op : Inner)
      for (auto &[Buf, R] : Versions)
        if (llvm::is_contained(Op->getOperands(), Buf))
          prependIndex(*Op, Buf, SlotOf(R));
  }
}

void StagedSchedule::emitIteration(Builder &B, const Instance &It,
                                   const ScheduleHooks &Hooks) {
  for (unsigned U : Sequence) {
    if (WaitBefore[U] >= 0) {
      B.create(OpKind::CpAsyncWait, {}, {}, {},
               {{"pending", Attribute::integer(WaitBefore[U])}});
      B.create(OpKind::Barrier, {}, {}, {});
    }
    bool Skip = Ring && Units[U].Copy;
    if (It.J[U] && !Skip) {
      Builder Inner = B;
      if (It.Guard[U])
        Inner.setInsertionPointToEnd(B.createIf(It.Guard[U])->getBody());
      emitUnit(Inner, U, It.J[U], It.K[U], Hooks);
    }
    if (Units[U].Copy && !Ring && Ctx.Tgt.AsyncCopy)
      B.create(OpKind::CpAsyncCommit, {}, {}, {});
  }
  // The release ends the iteration: the waits of the wgmma groups reading
  // the stage sink down to it.
  if (!Hooks.Release || LastReader < 0 || !It.J[LastReader])
    return;
  Builder Inner = B;
  if (It.Guard[LastReader])
    Inner.setInsertionPointToEnd(B.createIf(It.Guard[LastReader])->getBody());
  Hooks.Release(Inner, It.J[LastReader], It.K[LastReader]);
}

/// Iteration \p J's loop value, lo + J * step (the original lo).
Value *StagedSchedule::loopValue(Builder &B, Value *J) const {
  Value *Off =
      Step == 1 ? J : B.createBinary(OpKind::Mul, J, B.createConstInt(Step));
  return isConstantInt(Lo, 0) ? Off : B.createBinary(OpKind::Add, Lo, Off);
}

StagedSchedule::Instance StagedSchedule::emptyInstance() const {
  size_t NU = Units.size();
  return {std::vector<Value *>(NU), std::vector<Value *>(NU),
          std::vector<Value *>(NU)};
}

/// Iteration t < MaxStage runs the units of stage <= t on iteration t - s.
void StagedSchedule::emitPrologue(Builder &B, const TripCount &N,
                                  const ScheduleHooks &Hooks) {
  for (int64_t T = 0; T < MaxStage; ++T) {
    Instance It = emptyInstance();
    for (unsigned U = 0; U != Units.size(); ++U) {
      int64_t J = T - Units[U].Stage;
      if (J < 0 || (N.Known && J >= *N.Known))
        continue;
      It.J[U] = B.createConstInt(J);
      It.K[U] = loopValue(B, It.J[U]);
      if (!N.Known)
        It.Guard[U] = B.createCmp(CmpPred::Lt, It.J[U], N.Value);
    }
    emitIteration(B, It, Hooks);
  }
}

/// The loop runs t from MaxStage on; its variable k is iteration t's value.
void StagedSchedule::emitMain(Builder &Before, const ScheduleHooks &Hooks) {
  Block &Body = Loop.getBody();
  Value *IV = Body.getArgument(0);
  if (MaxStage > 0)
    Loop.setOperand(0, loopValue(Before, Before.createConstInt(MaxStage)));
  Builder B;
  B.setLoc(Loop.getLoc());
  B.setInsertionPointToEnd(Body);
  Value *Iter = isConstantInt(Lo, 0) ? IV : B.createBinary(OpKind::Sub, IV, Lo);
  if (Step != 1)
    Iter = B.createBinary(OpKind::FloorDiv, Iter, B.createConstInt(Step));
  Instance Main = emptyInstance();
  for (unsigned U = 0; U != Units.size(); ++U) {
    int64_t S = Units[U].Stage;
    Main.J[U] =
        S ? B.createBinary(OpKind::Sub, Iter, B.createConstInt(S)) : Iter;
    Main.K[U] =
        S ? B.createBinary(OpKind::Sub, IV, B.createConstInt(S * Step)) : IV;
  }
  emitIteration(B, Main, Hooks);
}

/// Iteration t = n + e runs the units of stage > e, unless the prologue
/// already ran it (n + e < MaxStage).
void StagedSchedule::emitEpilogue(Builder &B, const TripCount &N,
                                  const ScheduleHooks &Hooks) {
  for (int64_t E = 0; E < MaxStage; ++E) {
    if (N.Known && *N.Known + E < MaxStage)
      continue;
    Value *T = B.createBinary(OpKind::Add, N.Value, B.createConstInt(E));
    Value *Guard =
        N.Known ? nullptr
                : B.createCmp(CmpPred::Ge, T, B.createConstInt(MaxStage));
    Instance It = emptyInstance();
    for (unsigned U = 0; U != Units.size(); ++U) {
      if (Units[U].Stage <= E)
        continue;
      It.J[U] =
          B.createBinary(OpKind::Sub, T, B.createConstInt(Units[U].Stage));
      It.K[U] = loopValue(B, It.J[U]);
      It.Guard[U] = Guard;
    }
    emitIteration(B, It, Hooks);
  }
  if (!Ring && Ctx.Tgt.AsyncCopy &&
      llvm::any_of(Units, [](const ScheduleUnit &U) { return U.Copy; }))
    B.create(OpKind::CpAsyncWait, {}, {}, {},
             {{"pending", Attribute::integer(0)}});
}

void StagedSchedule::emit(const ScheduleHooks &Hooks) {
  std::vector<Operation *> Old;
  for (Operation &Op : Loop.getBody())
    Old.push_back(&Op);
  Lo = Loop.getOperand(0);
  Value *Hi = Loop.getOperand(1);
  auto LoC = matchConstantInt(Lo), HiC = matchConstantInt(Hi);
  Builder B;
  B.setLoc(Loop.getLoc());
  B.setInsertionPoint(&Loop);
  TripCount N;
  if (LoC && HiC) {
    N.Known = std::max<int64_t>(0, (*HiC - *LoC + Step - 1) / Step);
    N.Value = B.createConstInt(*N.Known);
  } else {
    N.Value = B.createBinary(OpKind::Sub, Hi, Lo);
    if (Step != 1)
      N.Value = B.createBinary(
          OpKind::FloorDiv,
          B.createBinary(OpKind::Add, N.Value, B.createConstInt(Step - 1)),
          B.createConstInt(Step));
  }
  emitPrologue(B, N, Hooks);
  emitMain(B, Hooks);
  B.setInsertionPointAfter(&Loop);
  emitEpilogue(B, N, Hooks);
  for (auto It = Old.rbegin(); It != Old.rend(); ++It)
    (*It)->erase();
  for (auto &[Buf, R] : Versions) {
    // lower-pipelined stages the TMA ring's buffers.
    if (RingBuffers.count(Buf))
      continue;
    std::vector<Dim> Dims = {Dim(R)};
    for (const Dim &D : Buf->getType().getDims())
      Dims.push_back(D);
    Buf->setType(Type::buffer(Scope::Shared, Dims, Buf->getType().getDType()));
  }
  sinkWgmmaWaits(Loop.getBody());
}

//===--- wgmma wait placement ---------------------------------------------===//

/// Whether \p Op must run after the wgmma group whose registers are \p Regs
/// completed: it touches them, writes shared memory (the group may read
/// it), or synchronizes.
static bool needsGroup(Operation &Op,
                       const llvm::SmallPtrSetImpl<Value *> &Regs) {
  bool Needs = false;
  Op.walk([&](Operation &Inner) {
    OpKind K = Inner.getKind();
    Needs |= K == OpKind::WgmmaWait || K == OpKind::Barrier ||
             K == OpKind::CpAsyncWait || K == OpKind::MBarrierArrive ||
             K == OpKind::MBarrierWait || K == OpKind::MBarrierExpectTx ||
             K == OpKind::Break || K == OpKind::Continue;
    for (Value *V : Inner.getOperands())
      Needs |= Regs.count(V) != 0;
    for (unsigned G = 0; G != Inner.getNumGroups(); ++G) {
      Value *Buf = Inner.getGroup(G).front();
      Needs |= Buf->getType().isBuffer() &&
               Buf->getType().getScope() == Scope::Shared &&
               groupIsWritten(Inner, G);
    }
  });
  return Needs;
}

static void sinkWait(Operation &Wait) {
  llvm::SmallPtrSet<Value *, 4> Regs(Wait.getOperands().begin(),
                                     Wait.getOperands().end());
  int64_t Commits = 0;
  Operation *Op = Wait.getNextNode();
  for (; Op && !needsGroup(*Op, Regs); Op = Op->getNextNode())
    Op->walk(
        [&](Operation &Inner) { Commits += Inner.is(OpKind::WgmmaCommit); });
  if (Op == Wait.getNextNode())
    return;
  Block &Body = *Wait.getParentBlock();
  if (Op)
    Wait.moveBefore(Op);
  else
    Wait.moveToEnd(Body);
  Wait.setAttr("pending", Attribute::integer(Commits));
}

void tilec::sinkWgmmaWaits(Block &Body) {
  std::vector<Operation *> Waits;
  for (Operation &Op : Body)
    if (Op.is(OpKind::WgmmaWait) && Op.getIntAttr("pending") == 0 &&
        !Op.getBoolAttr("user").value_or(false))
      Waits.push_back(&Op);
  for (auto It = Waits.rbegin(); It != Waits.rend(); ++It)
    sinkWait(**It);
}
